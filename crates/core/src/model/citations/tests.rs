//! Attribution's unit tests: offsets, validity, numbering, keys, dates, markers.

use super::*;
use crate::model::event::{AgentEvent, AuditTrace, Reference};
use serde_json::json;

fn doc(id: Option<&str>, url: Option<&str>, hd: Option<&str>) -> SourceDoc {
    SourceDoc {
        id: id.map(Into::into),
        url: url.map(Into::into),
        headline: hd.map(Into::into),
        ..Default::default()
    }
}

fn reference(start: u64, end: u64, source: Option<SourceDoc>) -> Reference {
    Reference {
        start: Some(start),
        end: Some(end),
        tool_name: Some("search".into()),
        audit_id: Some("audit-1".into()),
        source,
        marker: false,
        unplaced: false,
    }
}

fn session(answer: &str, refs: Vec<Reference>) -> Session {
    let mut session = Session::new();
    session.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: answer.into(),
    });
    session.apply(AgentEvent::Grounding(refs));
    session.apply(AgentEvent::Complete {
        checkpoint_id: None,
        consumption: vec![],
    });
    session
}

#[test]
fn offsets_after_emoji_count_code_points_not_bytes_or_utf16_units() {
    let s = session(
        "a😀b€c",
        vec![reference(2, 3, Some(doc(Some("d"), None, None)))],
    );
    let attribution = Attribution::resolve(&s, true);
    assert_eq!(attribution.citations[0].text(s.answer.as_str()), "b");
    assert_eq!(attribution.citations[0].bytes, 5..6);
}

#[test]
fn offsets_after_cjk_and_combining_marks_are_code_points() {
    let text = "東京e\u{301}: revenue rose";
    let s = session(
        text,
        vec![reference(6, 13, Some(doc(Some("d"), None, None)))],
    );
    let attribution = Attribution::resolve(&s, true);
    assert_eq!(attribution.citations[0].text(s.answer.as_str()), "revenue");
}

#[test]
fn invalid_references_are_dropped_counted_and_not_numbered() {
    let mut bad = reference(0, 1, Some(doc(Some("bad-start"), None, None)));
    bad.start = None;
    let s = session(
        "hello",
        vec![
            reference(3, 2, Some(doc(Some("reversed"), None, None))),
            reference(0, 6, Some(doc(Some("past-end"), None, None))),
            bad,
            reference(0, 5, Some(doc(Some("good"), None, None))),
        ],
    );
    let attribution = Attribution::resolve(&s, true);
    assert_eq!(attribution.invalid_references, 3);
    assert_eq!(attribution.sources.len(), 1);
    assert_eq!(attribution.sources[0].n, 1);
    assert_eq!(attribution.sources[0].key, "good");
}

#[test]
fn sources_dedupe_by_id_then_url_then_action_url_then_headline() {
    let mut by_action_url = doc(None, None, Some("H2"));
    by_action_url.action_url = Some("https://a".into());
    let mut same_action_url = doc(None, None, Some("other"));
    same_action_url.action_url = Some("https://a".into());
    let s = session(
        "0123456789",
        vec![
            reference(0, 1, Some(doc(Some("id1"), Some("https://x"), Some("H")))),
            reference(1, 2, Some(doc(Some("id1"), Some("https://y"), Some("H9")))),
            reference(2, 3, Some(doc(None, Some("https://x"), Some("H")))),
            reference(3, 4, Some(doc(None, Some("https://x"), Some("Z")))),
            reference(4, 5, Some(by_action_url)),
            reference(5, 6, Some(same_action_url)),
            reference(6, 7, Some(doc(None, None, Some("Only headline")))),
            reference(7, 8, Some(doc(None, None, Some("Only headline")))),
        ],
    );
    let attribution = Attribution::resolve(&s, true);
    let keys: Vec<_> = attribution.sources.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["id1", "https://x", "https://a", "Only headline"]);
    let numbers: Vec<_> = attribution.citations.iter().map(|c| c.source).collect();
    assert_eq!(
        numbers,
        [
            Some(1),
            Some(1),
            Some(2),
            Some(2),
            Some(3),
            Some(3),
            Some(4),
            Some(4)
        ]
    );
}

#[test]
fn the_same_audit_id_does_not_merge_different_documents() {
    let s = session(
        "abcd",
        vec![
            reference(0, 1, Some(doc(Some("a"), None, None))),
            reference(1, 2, Some(doc(Some("b"), None, None))),
        ],
    );
    assert_eq!(Attribution::resolve(&s, true).sources.len(), 2);
}

#[test]
fn tool_level_references_are_kept_but_never_numbered() {
    let s = session(
        "abcd",
        vec![
            reference(0, 2, None),
            reference(2, 4, Some(doc(Some("a"), None, None))),
        ],
    );
    let attribution = Attribution::resolve(&s, true);
    assert_eq!(attribution.citations.len(), 2);
    assert_eq!(attribution.citations[0].source, None);
    assert_eq!(attribution.citations[1].source, Some(1));
    assert_eq!(attribution.tool_citations().count(), 1);
}

#[test]
fn labels_use_publisher_and_a_real_calendar_date() {
    let mut bigdata = doc(Some("1"), None, None);
    bigdata.src_name = Some("SEC EDGAR".into());
    bigdata.ts = Some("2026-04-15T00:00:00Z".into());
    let mut external = doc(Some("2"), None, None);
    external.action_name = Some("Reuters".into());
    external.action_ts = Some("2026-04-05".into());
    external.action_url = Some("https://r".into());
    let mut bad_date = doc(Some("3"), None, None);
    bad_date.ts = Some("2026-02-30T00:00:00Z".into());
    let s = session(
        "abc",
        vec![
            reference(0, 1, Some(bigdata)),
            reference(1, 2, Some(external)),
            reference(2, 3, Some(bad_date)),
        ],
    );
    let attribution = Attribution::resolve(&s, true);
    let labels: Vec<_> = attribution
        .sources
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "SEC EDGAR - Apr 15, 2026",
            "Reuters - Apr 05, 2026",
            "Unknown source"
        ]
    );
    assert_eq!(attribution.sources[1].url.as_deref(), Some("https://r"));
    assert_eq!(attribution.sources[1].date.unwrap().iso(), "2026-04-05");
}

#[test]
fn a_malformed_ts_means_no_date_even_when_the_action_has_one() {
    let mut d = doc(Some("1"), None, None);
    d.src_name = Some("Wire".into());
    d.ts = Some("yesterday".into());
    d.action_ts = Some("2026-04-05".into());
    let s = session("abc", vec![reference(0, 1, Some(d))]);
    assert_eq!(Attribution::resolve(&s, true).sources[0].label, "Wire");
}

#[test]
fn calendar_validation_knows_leap_years() {
    assert!(Date::from_timestamp("0000-01-01").is_none());
    assert!(Date::from_timestamp("2024-02-29").is_some());
    assert!(Date::from_timestamp("2100-02-29").is_none());
    assert!(Date::from_timestamp("2000-02-29").is_some());
    assert!(Date::from_timestamp("2026-13-01").is_none());
    assert!(Date::from_timestamp("2026-4-15").is_none());
    assert!(Date::from_timestamp("20260415").is_none());
    assert!(Date::from_timestamp("20260415T1").is_none());
    assert!(Date::from_timestamp("+002-04-15").is_none());
    assert!(Date::from_timestamp("2026-04-1 ").is_none());
}

#[test]
fn dates_print_zero_padded() {
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    for (i, name) in months.iter().enumerate() {
        let date = Date::from_timestamp(&format!("2026-{:02}-01", i + 1)).unwrap();
        assert_eq!(date.display(), format!("{name} 01, 2026"));
    }
    let date = Date::from_timestamp("0005-03-07").unwrap();
    assert_eq!(date.iso(), "0005-03-07");
    assert_eq!(date.display(), "Mar 07, 0005");
    let date = Date::from_timestamp("2026-12-31T23:59:59+05:00").unwrap();
    assert_eq!(
        (date.iso().as_str(), date.display().as_str()),
        ("2026-12-31", "Dec 31, 2026")
    );
}

#[test]
fn citations_carry_the_query_of_their_audit_trace() {
    let mut s = Session::new();
    s.apply(AgentEvent::Audit {
        role: None,
        traces: vec![AuditTrace {
            audit_type: "SearchAuditV1".into(),
            tool_id: Some("audit-1".into()),
            query: Some("NVIDIA Q2".into()),
            title: None,
            result_count: Some(1),
            raw: json!({}),
        }],
    });
    s.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: "ab".into(),
    });
    let mut orphan = reference(1, 2, None);
    orphan.audit_id = Some("nowhere".into());
    s.apply(AgentEvent::Grounding(vec![reference(0, 1, None), orphan]));
    let attribution = Attribution::resolve(&s, true);
    assert_eq!(attribution.citations[0].query.as_deref(), Some("NVIDIA Q2"));
    assert_eq!(attribution.citations[1].query, None);
}

#[test]
fn while_streaming_references_past_the_end_are_pending_and_keep_numbers() {
    let mut s = Session::new();
    s.apply(AgentEvent::Grounding(vec![
        reference(4, 8, Some(doc(Some("late"), None, None))),
        reference(0, 2, Some(doc(Some("early"), None, None))),
    ]));
    s.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: "abc".into(),
    });
    let streaming = Attribution::resolve(&s, false);
    assert_eq!(streaming.pending_references, 1);
    assert_eq!(streaming.sources[1].key, "early");
    assert_eq!(streaming.citations[0].source, Some(2));
}

#[test]
fn marker_spans_are_the_sorted_disjoint_byte_ranges_of_provider_markers() {
    let marker = |start, end, id: &str| Reference {
        marker: true,
        ..reference(start, end, Some(doc(Some(id), None, None)))
    };
    let s = session(
        "😀a[[1]](u)[[2]](v) b<sup>1</sup>",
        vec![
            marker(2, 10, "u"),
            marker(10, 18, "v"),
            reference(0, 2, Some(doc(Some("plain"), None, None))),
            marker(20, 32, "u"),
            marker(20, 32, "w"),
        ],
    );
    let attribution = Attribution::resolve(&s, true);
    let answer = s.answer.as_str();
    let spans: Vec<&str> = attribution
        .marker_spans()
        .into_iter()
        .map(|r| &answer[r])
        .collect();
    assert_eq!(spans, ["[[1]](u)[[2]](v)", "<sup>1</sup>"]);
    assert_eq!(
        attribution.markers(),
        vec![
            (5, vec![3]),
            (13, vec![1]),
            (21, vec![2]),
            (answer.len(), vec![1, 4])
        ]
    );
}

#[test]
fn a_url_with_tracking_parameters_is_the_same_source_and_keeps_the_cited_url() {
    let mut s = session(
        "abcd",
        vec![
            reference(
                0,
                1,
                Some(doc(
                    None,
                    Some("https://w.com/story?utm_source=openai"),
                    None,
                )),
            ),
            reference(1, 2, Some(doc(None, Some("https://w.com/story"), None))),
            reference(
                2,
                3,
                Some(doc(
                    None,
                    Some("https://w.com/story?id=2&utm_medium=x"),
                    None,
                )),
            ),
        ],
    );
    s.apply(AgentEvent::Consulted(vec![doc(
        None,
        Some("https://w.com/story"),
        None,
    )]));
    let attribution = Attribution::resolve(&s, true);
    let sources: Vec<_> = attribution
        .sources
        .iter()
        .map(|s| (s.n, s.key.as_str(), s.url.as_deref().unwrap()))
        .collect();
    assert_eq!(
        sources,
        [
            (
                1,
                "https://w.com/story",
                "https://w.com/story?utm_source=openai"
            ),
            (
                2,
                "https://w.com/story?id=2",
                "https://w.com/story?id=2&utm_medium=x"
            ),
        ]
    );
    assert_eq!(
        without_tracking("https://a.com/?UTM_Source=x&q=1"),
        "https://a.com/?q=1"
    );
    assert_eq!(
        without_tracking("https://a.com/utm_x"),
        "https://a.com/utm_x"
    );
}

#[test]
fn an_unplaced_reference_numbers_its_source_without_a_span_and_is_never_invalid() {
    let unplaced = |id: &str| Reference {
        unplaced: true,
        source: Some(doc(Some(id), None, None)),
        ..Reference::default()
    };
    let s = session(
        "abcd",
        vec![
            unplaced("x"),
            reference(0, 2, Some(doc(Some("y"), None, None))),
            unplaced("y"),
            unplaced("x"),
        ],
    );
    let attribution = Attribution::resolve(&s, true);
    assert_eq!(attribution.invalid_references, 0);
    assert_eq!(attribution.citations.len(), 1);
    let unplaced: Vec<_> = attribution.unplaced().map(|s| s.n).collect();
    assert_eq!(unplaced, [1], "y has a span, x has none");
    assert_eq!(attribution.numbered().count(), 2);
    assert!(attribution.markers().iter().all(|(_, ns)| ns == &vec![2]));
}

#[test]
fn several_markers_at_one_offset_are_ascending_without_repeats() {
    let s = session(
        "abcd",
        vec![
            reference(0, 2, Some(doc(Some("x"), None, None))),
            reference(1, 4, Some(doc(Some("y"), None, None))),
            reference(0, 4, Some(doc(Some("x"), None, None))),
            reference(1, 4, Some(doc(Some("y"), None, None))),
        ],
    );
    let markers = Attribution::resolve(&s, true).markers();
    assert_eq!(markers, vec![(2, vec![1]), (4, vec![1, 2])]);
}

/// What a list of an answer's sources shows, the full way: every source [`Attribution::resolve`]
/// numbers, its key and title.
fn numbered_the_full_way(session: &Session, finished: bool) -> Vec<(String, String)> {
    Attribution::resolve(session, finished)
        .numbered()
        .map(|s| (s.key.clone(), s.headline.clone().unwrap_or(s.label.clone())))
        .collect()
}

/// The same from [`Attribution::numbered_docs`] and [`Source::title_of`].
fn numbered_the_short_way(session: &Session, finished: bool) -> Vec<(String, String)> {
    Attribution::numbered_docs(session, finished)
        .into_iter()
        .map(|doc| {
            let key = source_key(doc).unwrap().into_owned();
            (key, Source::title_of(doc).into_owned())
        })
        .collect()
}

#[test]
fn the_numbered_documents_are_the_sources_resolve_numbers_in_every_recording() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut dirs = vec![
        std::path::PathBuf::from(format!("{root}/tests/fixtures/real")),
        std::path::PathBuf::from(format!("{root}/assets/recordings")),
    ];
    let (mut recordings, mut numbered) = (0, 0);
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "sse") {
                continue;
            }
            let file = std::fs::File::open(&path).unwrap();
            let (whole, _) = crate::wire::input::read_session(file, None).unwrap();
            recordings += 1;
            // Whole, and cut short (references past the answer's end: pending, or invalid).
            let mut cut = whole.clone();
            (cut.completion, cut.error, cut.cancelled) = (None, None, None);
            cut.answer = crate::model::session::AnswerBuffer::default();
            for (session, finished) in
                [(&whole, true), (&whole, false), (&cut, true), (&cut, false)]
            {
                let full = numbered_the_full_way(session, finished);
                numbered += full.len();
                assert_eq!(
                    numbered_the_short_way(session, finished),
                    full,
                    "{}, finished: {finished}",
                    path.display()
                );
            }
        }
    }
    assert!(
        recordings >= 40 && numbered > 500,
        "{recordings} recordings, {numbered} numbered"
    );
}

proptest::proptest! {
    /// Spans valid, invalid, past the end and missing, unplaced references, tool-level ones,
    /// documents keyed by id, URL (with tracking parameters), headline or nothing, cited again.
    #[test]
    fn the_numbered_documents_are_the_sources_resolve_numbers(
        answer in "[a-zé😀 ]{0,40}",
        refs in proptest::collection::vec(
            (0u64..60, 0u64..60, proptest::option::of(0usize..12), 0u8..8, proptest::bool::ANY),
            0..40,
        ),
        finished in proptest::bool::ANY,
    ) {
        let docs = [
            doc(Some("a"), None, Some("A")),
            doc(Some("a"), Some("https://x.com/other"), None),
            doc(None, Some("https://x.com/p?utm_source=s"), Some("P")),
            doc(None, Some("https://x.com/p"), None),
            doc(None, None, Some("H")),
            doc(None, None, None),
            doc(Some(""), Some("https://y.org/q"), Some("")),
            SourceDoc { src_name: Some("Reuters".into()), ts: Some("2026-04-05T00:00:00Z".into()), id: Some("r".into()), ..Default::default() },
            SourceDoc { action_name: Some("Web".into()), action_url: Some("https://z.net".into()), action_ts: Some("2026-02-30".into()), ..Default::default() },
            SourceDoc { action_url: Some("https://z.net?utm_medium=m".into()), ts: Some("bad".into()), action_ts: Some("2025-01-02".into()), ..Default::default() },
            doc(Some("b"), None, None),
            doc(None, Some("https://x.com/p?id=1&utm_x=2#f"), Some("Q")),
        ];
        let references = refs
            .into_iter()
            .map(|(start, end, source, shape, unplaced)| Reference {
                start: (shape != 1).then_some(start),
                end: (shape != 2).then_some(end),
                source: source.map(|i| docs[i].clone()),
                unplaced,
                ..reference(0, 0, None)
            })
            .collect();
        let mut session = session(&answer, references);
        if !finished {
            session.completion = None;
        }
        for finished in [false, true] {
            proptest::prop_assert_eq!(
                numbered_the_short_way(&session, finished),
                numbered_the_full_way(&session, finished)
            );
        }
    }
}
