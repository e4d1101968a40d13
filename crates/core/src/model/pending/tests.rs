use proptest::prelude::*;
use serde_json::Value;

use super::*;
use crate::model::event::{AgentEvent, AuditTrace};

/// Documents whose identity keys overlap in every way the numbering rules care about.
fn doc(i: usize) -> SourceDoc {
    let mut doc = SourceDoc {
        headline: Some(format!("headline {i}")),
        ..SourceDoc::default()
    };
    match i {
        0 => doc.id = Some("a".into()),
        1 => doc.url = Some("https://b".into()),
        2 => {
            doc.headline = None;
            doc.action_url = Some("https://c".into());
        }
        3 => doc.headline = Some("H".into()),
        // No key at all: its citation is tool-level.
        4 => doc.headline = None,
        // Document 1's URL with tracking parameters: the same source.
        5 => doc.url = Some("https://b?utm_source=openai&utm_medium=x".into()),
        // The same id as document 0, another URL: the same source.
        _ => {
            doc.id = Some("a".into());
            doc.url = Some("https://other".into());
        }
    }
    doc
}

fn reference(
    start: Option<u64>,
    end: Option<u64>,
    source: Option<usize>,
    audit: usize,
    unplaced: bool,
) -> Reference {
    Reference {
        start: start.filter(|_| !unplaced),
        end: end.filter(|_| !unplaced),
        unplaced,
        tool_name: Some("search".into()),
        audit_id: (audit < 3).then(|| format!("audit-{audit}")),
        source: source.map(doc),
        marker: audit == 1,
    }
}

fn arb_reference() -> impl Strategy<Value = Reference> {
    (
        prop::option::weighted(0.95, 0u64..70),
        prop::option::weighted(0.95, 0u64..70),
        prop::option::weighted(0.85, 0usize..7),
        0usize..4,
        prop::bool::weighted(0.1),
    )
        .prop_map(|(start, len, source, audit, unplaced)| {
            // Mostly well-formed spans, some reversed or open.
            let end = match (start, len) {
                (Some(s), Some(l)) if l % 7 != 0 => Some(s + l % 20),
                (_, l) => l,
            };
            reference(start, end, source, audit, unplaced)
        })
}

fn arb_chunk() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "é", "😀", "東", " ", "\n", "bc"]),
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

fn arb_event() -> impl Strategy<Value = AgentEvent> {
    prop_oneof![
        30 => arb_chunk().prop_map(|text| AgentEvent::AnswerDelta { message_id: None, text }),
        15 => prop::collection::vec(arb_reference(), 0..6).prop_map(AgentEvent::Grounding),
        5 => prop::collection::vec(0usize..7, 1..3)
            .prop_map(|docs| AgentEvent::Consulted(docs.into_iter().map(doc).collect())),
        5 => (0usize..3, "[a-z]{1,4}").prop_map(|(i, query)| AgentEvent::Audit {
            role: None,
            traces: vec![AuditTrace {
                audit_type: "SearchAuditV1".into(),
                tool_id: Some(format!("audit-{i}")),
                query: Some(query),
                title: None,
                result_count: None,
                raw: Value::Null,
            }],
        }),
        1 => arb_chunk().prop_map(|text| AgentEvent::AnswerReplace { text }),
        1 => prop::collection::vec(arb_reference(), 0..4).prop_map(AgentEvent::GroundingReplace),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Whatever arrives in whatever order, and however often the resolver is asked, the attribution
    /// it keeps is the one a full resolve gives — while streaming and once finished.
    #[test]
    fn incremental_resolution_equals_a_full_resolve(
        events in prop::collection::vec((arb_event(), any::<bool>()), 0..60),
    ) {
        let mut session = Session::new();
        let mut resolver = LiveResolver::new();
        let mut attribution = Attribution::default();
        let mut replaced = false;
        for (event, check) in events {
            replaced |= matches!(event, AgentEvent::AnswerReplace { .. } | AgentEvent::GroundingReplace(_));
            let citations_before = attribution.citations.clone();
            session.apply(event);
            if !check {
                continue;
            }
            let change = resolver.update(&mut attribution, &session, false);
            prop_assert_eq!(&attribution, &Attribution::resolve(&session, false));
            if let Change::Grew { added, shifted, .. } = &change {
                // The added citations are exactly the new ones; the rest kept their order (an
                // audit trace that arrived may have given them a query).
                let span = |c: &Citation| (c.start, c.end, c.source, c.audit_id.clone());
                let kept: Vec<_> = attribution
                    .citations
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !added.contains(i))
                    .map(|(_, c)| span(c))
                    .collect();
                prop_assert_eq!(kept, citations_before.iter().map(span).collect::<Vec<_>>());
                prop_assert!(*shifted || added.iter().all(|&i| i >= citations_before.len()));
            }
        }
        if !replaced {
            prop_assert_eq!(resolver.rebuilds(), 0, "streaming alone never resolves anew");
        }
        resolver.update(&mut attribution, &session, true);
        prop_assert_eq!(&attribution, &Attribution::resolve(&session, true));
        session.apply(AgentEvent::AnswerDelta { message_id: None, text: "tail".into() });
        resolver.update(&mut attribution, &session, true);
        prop_assert_eq!(&attribution, &Attribution::resolve(&session, true));
    }
}

#[test]
fn references_sent_before_their_text_become_citations_once_each_as_the_answer_reaches_them() {
    let mut session = Session::new();
    session.apply(AgentEvent::Grounding(
        (0..100)
            .map(|i| {
                reference(
                    Some(i * 10),
                    Some(i * 10 + 5),
                    Some(i as usize % 4),
                    0,
                    false,
                )
            })
            .collect(),
    ));
    let mut resolver = LiveResolver::new();
    let mut attribution = Attribution::default();
    resolver.update(&mut attribution, &session, false);
    assert_eq!(attribution.pending_references, 100);
    assert_eq!(
        attribution.sources.len(),
        4,
        "pending references keep their numbers"
    );
    let mut added_total = 0;
    for _ in 0..1000 {
        session.apply(AgentEvent::AnswerDelta {
            message_id: None,
            text: "x".into(),
        });
        if let Change::Grew { added, shifted, .. } =
            resolver.update(&mut attribution, &session, false)
        {
            assert!(!shifted, "references in order of their ends are appended");
            added_total += added.len();
        }
    }
    assert_eq!(added_total, 100);
    assert_eq!(attribution.pending_references, 0);
    assert_eq!(attribution, Attribution::resolve(&session, false));
    assert_eq!(resolver.rebuilds(), 0);
}

#[test]
fn a_chunk_that_completes_no_reference_changes_nothing() {
    let mut session = Session::new();
    session.apply(AgentEvent::Grounding(vec![reference(
        Some(0),
        Some(50),
        Some(0),
        0,
        false,
    )]));
    let mut resolver = LiveResolver::new();
    let mut attribution = Attribution::default();
    assert!(matches!(
        resolver.update(&mut attribution, &session, false),
        Change::Grew { sources: true, .. }
    ));
    session.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: "short".into(),
    });
    assert_eq!(
        resolver.update(&mut attribution, &session, false),
        Change::Unchanged
    );
}
