//! The session reducer: each event's effect on the session, statuses, and the rules for
//! thinking, plans and answers.

use super::*;
use crate::model::event::{PlanStep, StepStatus};

fn thinking(id: Option<&str>, text: &str) -> AgentEvent {
    AgentEvent::Thinking {
        message_id: id.map(str::to_owned),
        role: None,
        text: text.into(),
    }
}

#[test]
fn code_point_index_maps_emoji_and_cjk_offsets_to_bytes() {
    let mut answer = AnswerBuffer::default();
    for chunk in ["a😀", "b€", "c東京"] {
        answer.push(chunk);
    }
    assert_eq!(answer.char_len(), 7);
    assert_eq!(answer.byte_of(2), Some(5));
    assert_eq!(
        &answer.as_str()[answer.byte_of(2).unwrap()..answer.byte_of(3).unwrap()],
        "b"
    );
    assert_eq!(answer.byte_of(7), Some(answer.as_str().len()));
    assert_eq!(answer.byte_of(8), None);
}

#[test]
fn code_point_index_is_exact_across_many_checkpoints() {
    let mut answer = AnswerBuffer::default();
    let mut expected = String::new();
    for i in 0..500 {
        let chunk = if i % 3 == 0 {
            "e\u{301}x"
        } else if i % 3 == 1 {
            "plain text "
        } else {
            "日本😀"
        };
        answer.push(chunk);
        expected.push_str(chunk);
    }
    for (cp, (byte, _)) in expected.char_indices().enumerate() {
        assert_eq!(answer.byte_of(cp), Some(byte), "code point {cp}");
    }
}

/// Every code point's byte is found in an answer that arrived as `chunks`.
fn index_is_exact(
    chunks: impl Iterator<Item = String>,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let mut answer = AnswerBuffer::default();
    let mut expected = String::new();
    for chunk in chunks {
        answer.push(&chunk);
        expected.push_str(&chunk);
    }
    for (cp, (byte, _)) in expected.char_indices().enumerate() {
        proptest::prop_assert_eq!(answer.byte_of(cp), Some(byte), "code point {}", cp);
    }
    let len = expected.chars().count();
    proptest::prop_assert_eq!(answer.byte_of(len), Some(expected.len()));
    proptest::prop_assert_eq!(answer.byte_of(len + 1), None);
    Ok(())
}

proptest::proptest! {
    /// The code point index is exact however the answer arrives: chunks of any length of ASCII,
    /// accents, CJK and emoji, each code point's byte found.
    #[test]
    fn code_point_index_is_exact_for_any_chunks(
        chunks in proptest::collection::vec(
            proptest::collection::vec(
                proptest::sample::select(vec!["a", "bc ", "e\u{301}", "日本", "😀", "€", "ü"]),
                0..90,
            ),
            1..12,
        ),
    ) {
        index_is_exact(chunks.iter().map(|chunk| chunk.concat()))?;
    }

    /// Mostly ASCII with a character beyond it here and there, as most answers are (runs of
    /// ASCII longer than the index's step between two checkpoints): exact too.
    #[test]
    fn code_point_index_is_exact_for_mostly_ascii_chunks(
        chunks in proptest::collection::vec(
            proptest::collection::vec(
                (0usize..150, proptest::sample::select(vec!["é", "日本", "😀", "e\u{301}", ""])),
                0..6,
            ),
            1..12,
        ),
    ) {
        index_is_exact(chunks.iter().map(|pieces| {
            pieces.iter().map(|(n, c)| "ab ".repeat(*n / 3) + c).collect::<String>()
        }))?;
    }
}

#[test]
fn each_planning_event_replaces_the_plan() {
    let mut session = Session::new();
    let plan = |n: usize| {
        AgentEvent::Plan(Plan {
            title: Some("t".into()),
            steps: (0..n)
                .map(|i| PlanStep {
                    description: format!("s{i}"),
                    status: StepStatus::NotStarted,
                })
                .collect(),
        })
    };
    session.apply(plan(3));
    session.apply(plan(2));
    assert_eq!(session.plan.unwrap().steps.len(), 2);
}

#[test]
fn thinking_chunks_group_by_message_id() {
    let mut session = Session::new();
    session.apply_all([
        thinking(Some("t1"), "I need "),
        thinking(Some("t2"), "Other"),
        thinking(Some("t1"), "the 10-K"),
    ]);
    assert_eq!(session.activity.len(), 2);
    assert!(
        matches!(&session.activity[0], Activity::Thinking { text, .. } if text == "I need the 10-K")
    );
}

#[test]
fn a_grounding_replacement_swaps_every_reference_and_bumps_the_grounding_revision() {
    let reference = |start: u64| Reference {
        start: Some(start),
        end: Some(start + 1),
        marker: true,
        ..Reference::default()
    };
    let mut session = Session::new();
    session.apply(AgentEvent::Grounding(vec![reference(0), reference(1)]));
    let after_grounding = session.grounding_revision;
    session.apply(AgentEvent::GroundingReplace(vec![
        reference(4),
        reference(5),
    ]));
    assert_eq!(session.references, vec![reference(4), reference(5)]);
    assert!(session.grounding_revision > after_grounding);
    let after_replace = session.grounding_revision;
    session.apply(AgentEvent::GroundingReplace(vec![
        reference(4),
        reference(5),
    ]));
    assert_eq!(
        session.grounding_revision, after_replace,
        "same list: no change"
    );
    session.apply(AgentEvent::GroundingReplace(Vec::new()));
    assert!(session.references.is_empty());
    assert_eq!(session.stats.events, 0, "only Received counts a payload");
}

#[test]
fn each_received_notice_counts_one_payload_and_changes_nothing_else() {
    let mut session = Session::new();
    session.apply_all([
        AgentEvent::Received,
        AgentEvent::Received,
        AgentEvent::Unknown { kind: "x".into() },
        AgentEvent::Malformed { reason: "y".into() },
    ]);
    assert_eq!(session.stats.events, 2);
    assert_eq!((session.stats.unknown, session.stats.malformed), (1, 1));
    assert!(session.activity.is_empty() && session.answer.as_str().is_empty());
    assert_eq!(session.status(), Status::Incomplete);
}

#[test]
fn a_run_the_provider_cancelled_is_finished_and_cancelled_not_complete() {
    let mut session = Session::new();
    session.apply(AgentEvent::Cancelled {
        reason: "cancelled".into(),
    });
    assert!(session.is_finished());
    assert_eq!(session.status(), Status::Cancelled);
    assert_eq!(session.status().as_str(), "cancelled");
}

#[test]
fn an_answer_replacement_replaces_the_text_and_its_code_point_index() {
    let mut session = Session::new();
    session.apply(AgentEvent::AnswerReplace {
        text: "BERT [[1]](/d \"x\")".into(),
    });
    session.apply(AgentEvent::AnswerReplace {
        text: "BERT 😀<sup>1</sup>".into(),
    });
    assert_eq!(session.answer.as_str(), "BERT 😀<sup>1</sup>");
    assert_eq!(session.answer.char_len(), 18);
    assert_eq!(session.answer.byte_of(6), Some(9));
    assert!(session.answer.is_resent());
    let mut streamed = Session::new();
    streamed.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: "BERT".into(),
    });
    assert!(!streamed.answer.is_resent());
}

#[test]
fn status_reflects_error_and_completion() {
    let mut session = Session::new();
    assert_eq!(session.status(), Status::Incomplete);
    session.apply(AgentEvent::Complete {
        checkpoint_id: Some("ck".into()),
        consumption: vec![],
    });
    assert_eq!(session.status(), Status::Complete);
    assert_eq!(session.checkpoint_id(), Some("ck"));
    session.apply(AgentEvent::Error {
        message: "boom".into(),
    });
    assert_eq!(session.status(), Status::Error);
}
