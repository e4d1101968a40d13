//! Exact attribution: grounding references → numbered sources and validated citations.
//!
//! Offsets are code points into the whole answer. A reference is valid iff both offsets are integers
//! with `0 ≤ start ≤ end ≤ answer length` once the answer is complete; invalid ones are dropped,
//! counted, and play no part in numbering. Sources are numbered by first appearance among valid
//! sourced references, keyed by `id` > `url` > `action.url` > `hd` (never the audit id).

use std::collections::HashMap;
use std::ops::Range;

use crate::model::event::SourceDoc;
use crate::model::session::Session;

/// A date shown in labels (`Apr 05, 2026`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date(jiff::civil::Date);

impl Date {
    /// The first 10 characters of `ts` when they are a real calendar date `YYYY-MM-DD`.
    ///
    /// ```
    /// use research_tui_core::model::citations::Date;
    /// let date = Date::from_timestamp("2026-04-05T13:20:00Z").unwrap();
    /// assert_eq!(date.display(), "Apr 05, 2026");
    /// assert!(Date::from_timestamp("2026-02-29").is_none());
    /// ```
    pub fn from_timestamp(ts: &str) -> Option<Date> {
        let head = ts.get(..10)?;
        // Exactly `YYYY-MM-DD`: jiff's parser alone also takes other ISO 8601 shapes (a signed year,
        // `20260415T1`), which are not the dates these fields carry.
        let shaped = head.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
        let date: jiff::civil::Date = head.parse().ok().filter(|_| shaped)?;
        // Year 0000 parses as ISO 8601 but is no one's publication date.
        (date.year() >= 1).then_some(Date(date))
    }

    /// `2026-04-05`.
    pub fn iso(&self) -> String {
        self.0.to_string()
    }

    /// `Apr 05, 2026`.
    pub fn display(&self) -> String {
        self.0.strftime("%b %d, %Y").to_string()
    }
}

/// A numbered, deduplicated source.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub n: usize,
    pub key: String,
    pub kind: Option<String>,
    pub headline: Option<String>,
    pub publisher: String,
    pub date: Option<Date>,
    pub url: Option<String>,
    pub label: String,
    /// The document as first cited (chunks, extract text).
    pub doc: SourceDoc,
    /// Indices into [`Attribution::citations`] of the spans it supports.
    pub citations: Vec<usize>,
    /// Consulted but never cited at a position.
    pub consulted_only: bool,
}

impl Source {
    pub(crate) fn from_doc(n: usize, key: String, doc: &SourceDoc) -> Self {
        let publisher = doc
            .src_name
            .clone()
            .or_else(|| doc.action_name.clone())
            .unwrap_or_else(|| "Unknown source".to_owned());
        // `ts`, else `action.ts` (EXTERNAL results date their action); a present but malformed `ts`
        // means no date rather than a guess from elsewhere.
        let date = doc
            .ts
            .as_deref()
            .filter(|ts| !ts.is_empty())
            .or(doc.action_ts.as_deref())
            .and_then(Date::from_timestamp);
        let label = match date {
            Some(date) => format!("{publisher} - {}", date.display()),
            None => publisher.clone(),
        };
        Source {
            n,
            key,
            kind: doc.kind.clone(),
            headline: doc.headline.clone(),
            publisher,
            date,
            url: doc.url.clone().or_else(|| doc.action_url.clone()),
            label,
            doc: doc.clone(),
            citations: Vec::new(),
            consulted_only: false,
        }
    }
}

/// The identity key: `id`, else `url`, else `action.url`, else `hd`. A source with none of them
/// cannot be told apart from any other, so (like the reference client) it is not numbered and its
/// citation is kept as a tool-level one.
pub fn source_key(doc: &SourceDoc) -> Option<&str> {
    [&doc.id, &doc.url, &doc.action_url, &doc.headline]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .find(|key| !key.is_empty())
}

/// A valid citation: a span of the answer and what supports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Citation {
    pub start: usize,
    pub end: usize,
    pub bytes: Range<usize>,
    /// The source number, or `None` for a tool-level citation.
    pub source: Option<usize>,
    pub tool_name: Option<String>,
    pub audit_id: Option<String>,
    /// The search query of the audit trace this reference names.
    pub query: Option<String>,
    /// The span is the provider's own citation marker (see [`crate::model::event::Reference::marker`]):
    /// displays hide it and show the `[n]` marker at its end instead.
    pub marker: bool,
}

impl Citation {
    pub fn text<'a>(&self, answer: &'a str) -> &'a str {
        &answer[self.bytes.clone()]
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attribution {
    /// Numbered sources in order (`sources[i].n == i + 1`), then consulted-only ones.
    pub sources: Vec<Source>,
    /// Valid citations in arrival order.
    pub citations: Vec<Citation>,
    pub invalid_references: usize,
    /// References whose span is not in the answer yet (only while streaming).
    pub pending_references: usize,
}

impl Attribution {
    /// Resolve a session's references. While the answer may still grow (`session.is_finished()` is
    /// false and `finished` is false), references past the current end are pending, not invalid, and
    /// keep their source's number so numbers do not shift as the answer streams in.
    pub fn resolve(session: &Session, finished: bool) -> Attribution {
        let finished = finished || session.is_finished();
        let answer = &session.answer;
        let len = answer.char_len();
        let mut attribution = Attribution::default();
        let mut number_of: HashMap<&str, usize> = HashMap::new();
        for reference in &session.references {
            let span = match (reference.start, reference.end) {
                (Some(start), Some(end)) if start <= end => Some((start as usize, end as usize)),
                _ => None,
            };
            let Some((start, end)) = span.filter(|&(_, end)| end <= len || !finished) else {
                attribution.invalid_references += 1;
                continue;
            };
            let source = reference.source.as_ref().and_then(|doc| {
                let key = source_key(doc)?;
                let next = attribution.sources.len() + 1;
                let n = *number_of.entry(key).or_insert(next);
                if n == next {
                    attribution
                        .sources
                        .push(Source::from_doc(n, key.to_owned(), doc));
                }
                Some(n)
            });
            if end > len {
                attribution.pending_references += 1;
                continue;
            }
            let bytes = answer.byte_of(start).unwrap_or(0)..answer.byte_of(end).unwrap_or(0);
            if let Some(n) = source {
                attribution.sources[n - 1]
                    .citations
                    .push(attribution.citations.len());
            }
            attribution.citations.push(Citation {
                start,
                end,
                bytes,
                source,
                tool_name: reference.tool_name.clone(),
                audit_id: reference.audit_id.clone(),
                query: reference
                    .audit_id
                    .as_deref()
                    .and_then(|id| session.audit(id))
                    .and_then(|trace| trace.query.clone()),
                marker: reference.marker,
            });
        }
        for doc in &session.consulted {
            let Some(key) = source_key(doc) else { continue };
            if number_of.contains_key(key) {
                continue;
            }
            number_of.insert(key, 0);
            let mut source = Source::from_doc(0, key.to_owned(), doc);
            source.consulted_only = true;
            attribution.sources.push(source);
        }
        attribution
    }

    /// Numbered (cited) sources only.
    pub fn numbered(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter().filter(|s| !s.consulted_only)
    }

    pub fn tool_citations(&self) -> impl Iterator<Item = &Citation> {
        self.citations.iter().filter(|c| c.source.is_none())
    }

    /// Source numbers to show right after each end offset: `(byte position, ascending unique n)`,
    /// ordered by position.
    pub fn markers(&self) -> Vec<(usize, Vec<usize>)> {
        self.markers_where(|_| true)
    }

    /// Like [`Attribution::markers`], for citations the provider did not write into the answer
    /// itself: the `[n]`s to add to an answer printed as it was sent (its own markers stand in it).
    pub fn added_markers(&self) -> Vec<(usize, Vec<usize>)> {
        self.markers_where(|c| !c.marker)
    }

    fn markers_where(&self, keep: impl Fn(&Citation) -> bool) -> Vec<(usize, Vec<usize>)> {
        let mut at: Vec<(usize, usize)> = self
            .citations
            .iter()
            .filter(|c| keep(c))
            .filter_map(|c| c.source.map(|n| (c.bytes.end, n)))
            .collect();
        at.sort_unstable();
        at.dedup();
        let mut markers: Vec<(usize, Vec<usize>)> = Vec::new();
        for (pos, n) in at {
            match markers.last_mut() {
                Some((last, ns)) if *last == pos => ns.push(n),
                _ => markers.push((pos, vec![n])),
            }
        }
        markers
    }

    /// Byte ranges of the answer that are provider-written citation markers (xAI's `[[1]](url)`,
    /// Zeta Alpha's anchors), sorted and disjoint. Displays leave these bytes out; the `[n]` from
    /// [`Attribution::markers`] sits at each range's end and stands in for it.
    pub fn marker_spans(&self) -> Vec<Range<usize>> {
        let mut spans: Vec<Range<usize>> = self
            .citations
            .iter()
            .filter(|c| c.marker && c.bytes.start < c.bytes.end)
            .map(|c| c.bytes.clone())
            .collect();
        spans.sort_unstable_by_key(|r| (r.start, r.end));
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
                _ => merged.push(span),
            }
        }
        merged
    }
}

#[cfg(test)]
mod tests {
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
}
