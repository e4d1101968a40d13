use serde_json::json;

use super::*;
use crate::model::event::{Chart, PlanStep};

/// `event` arrived at `ms`, as the pipeline hands it on: one payload received, then its meaning.
fn arrive(timeline: &mut Timeline, ms: u64, event: AgentEvent) {
    timeline.push(ms, &AgentEvent::Received);
    timeline.push(ms, &event);
}

fn plan(statuses: [StepStatus; 2]) -> AgentEvent {
    let [a, b] = statuses;
    AgentEvent::Plan(Plan {
        title: None,
        steps: vec![
            PlanStep {
                description: "Search filings".into(),
                status: a,
            },
            PlanStep {
                description: "Write the answer".into(),
                status: b,
            },
        ],
    })
}

fn delta(text: &str) -> AgentEvent {
    AgentEvent::AnswerDelta {
        message_id: None,
        text: text.into(),
    }
}

fn thought(text: &str) -> AgentEvent {
    AgentEvent::Thinking {
        message_id: None,
        role: None,
        text: text.into(),
    }
}

/// A research turn: a plan, thinking, a search that takes 1.5 s, a 6.5 s silence, the answer.
fn research_turn() -> Timeline {
    use StepStatus::*;
    let mut t = Timeline::new();
    t.first_byte(400);
    arrive(&mut t, 500, plan([NotStarted, NotStarted]));
    arrive(&mut t, 600, plan([InProgress, NotStarted]));
    arrive(
        &mut t,
        700,
        thought("Which quarters matter here for revenue?"),
    );
    arrive(&mut t, 800, thought(" More."));
    let search = AgentEvent::ToolCall {
        role: None,
        tool_name: "search".into(),
        arguments: json!({"query": "NVIDIA revenue"}),
    };
    arrive(&mut t, 900, search);
    let audit = AgentEvent::Audit {
        role: None,
        traces: vec![AuditTrace {
            audit_type: "search".into(),
            tool_id: None,
            query: Some("NVIDIA revenue".into()),
            title: None,
            result_count: Some(12),
            raw: json!({}),
        }],
    };
    arrive(&mut t, 2400, audit);
    arrive(&mut t, 2500, plan([Completed, InProgress]));
    arrive(&mut t, 9000, delta("Hello "));
    let chart = Chart {
        title: Some("Revenue".into()),
        ..Chart::default()
    };
    arrive(&mut t, 10_000, AgentEvent::Chart(chart));
    arrive(&mut t, 11_000, delta("world"));
    arrive(&mut t, 11_500, plan([Completed, Completed]));
    let complete = AgentEvent::Complete {
        checkpoint_id: None,
        consumption: Vec::new(),
    };
    arrive(&mut t, 12_000, complete);
    t
}

#[test]
fn a_research_turn_becomes_one_phase_per_thing_that_happened_with_its_start_and_end() {
    let t = research_turn();
    let rows: Vec<(&str, &str, u64, Option<u64>)> = t
        .phases
        .iter()
        .map(|p| (p.kind.as_str(), p.label.as_str(), p.start_ms, p.end_ms))
        .collect();
    assert_eq!(
        rows,
        [
            ("request", "request → first byte", 0, Some(400)),
            ("plan_step", "Search filings", 600, Some(2500)),
            ("thinking", "thinking", 700, Some(900)),
            ("tool", "search", 900, Some(2400)),
            ("plan_step", "Write the answer", 2500, Some(11_500)),
            ("answer", "answer", 9000, Some(11_000)),
            ("chart", "Revenue", 10_000, Some(10_000)),
            ("end", "complete", 12_000, Some(12_000)),
        ]
    );
    let search = &t.phases[3];
    assert_eq!(search.detail.as_deref(), Some("NVIDIA revenue"));
    assert_eq!(search.results, Some(12));
    assert_eq!(t.phases[1].detail.as_deref(), Some("completed"));
    assert_eq!(
        t.phases[2].detail.as_deref(),
        Some("Which quarters matter here for revenue? More.")
    );
}

#[test]
fn the_figures_people_ask_about_come_out_of_the_arrivals() {
    let t = research_turn();
    assert_eq!(t.first_byte_ms, Some(400));
    assert_eq!(t.first_answer_ms, Some(9000));
    assert_eq!(t.last_ms, Some(12_000));
    // 11 characters from 9 s to 11 s.
    assert_eq!(t.answer_throughput(), Some(5.5));
    assert_eq!(
        t.gaps,
        [Gap {
            start_ms: 2500,
            end_ms: 9000
        }]
    );
    assert_eq!(
        t.summary_line(),
        "timing: first byte 0.4 s · first answer text 9.0 s · answer 6 chars/s · total 12.0 s · 1 silent gap of 6.5 s"
    );
    let json = t.to_json();
    assert_eq!(json["first_answer_ms"], 9000);
    assert_eq!(json["answer_chars_per_s"], 5.5);
    assert_eq!(json["phases"][3]["kind"], "tool");
    assert_eq!(json["phases"][3]["results"], 12);
    assert_eq!(json["gaps"][0]["end_ms"], 9000);
}

#[test]
fn while_a_turn_streams_its_open_phases_have_no_end_and_a_silence_shows_before_any_timeout() {
    let mut t = Timeline::new();
    assert_eq!(t.phases[0].end_ms, None, "waiting for the first byte");
    t.first_byte(300);
    let search = AgentEvent::ToolCall {
        role: None,
        tool_name: "web_search".into(),
        arguments: json!({"queries": ["a", "b"]}),
    };
    arrive(&mut t, 1000, search);
    let tool = &t.phases[1];
    assert_eq!((tool.end_ms, tool.detail.as_deref()), (None, Some("a; b")));
    assert_eq!(tool.duration_ms(4000), 3000);
    assert_eq!(t.silent_since(5000), None);
    assert_eq!(t.silent_since(7000), Some(1000));
    t.finish(7000);
    assert_eq!(t.phases[1].end_ms, Some(7000));
}

#[test]
fn a_failed_tool_call_ends_with_its_error() {
    let mut t = Timeline::new();
    let call = AgentEvent::ToolCall {
        role: None,
        tool_name: "fetch".into(),
        arguments: json!({"url": "https://example.com"}),
    };
    arrive(&mut t, 100, call);
    let failed = AgentEvent::ToolError {
        tool_name: "fetch".into(),
        error: "timeout".into(),
    };
    arrive(&mut t, 900, failed);
    assert_eq!(t.phases[1].end_ms, Some(900));
    assert_eq!(t.phases[1].detail.as_deref(), Some("failed: timeout"));
}

#[test]
fn an_absurd_stream_of_tool_calls_keeps_a_bounded_timeline() {
    let mut t = Timeline::new();
    for i in 0..100_000u64 {
        let call = AgentEvent::ToolCall {
            role: None,
            tool_name: "search".into(),
            arguments: json!({}),
        };
        arrive(&mut t, i * 6_000, call);
    }
    assert_eq!(t.phases.len(), MAX_PHASES);
    assert_eq!(t.gaps.len(), MAX_GAPS);
    assert_eq!(t.dropped, 100_000 + 1 - MAX_PHASES + 99_999 - MAX_GAPS);
}

#[test]
fn a_saved_stream_and_its_arrival_times_read_into_a_timeline() {
    use crate::wire::arrivals::Arrivals;
    use crate::wire::input::read_timeline;
    use crate::wire::provider::Provider;
    let events = [
        "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi \"}}\n\n",
        "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"there\"}}\n\n",
        "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k\"}}\n\n",
    ];
    let raw = events.concat();
    let (a, b) = (events[0].len(), events[0].len() + events[1].len());
    // The second event's bytes came in two chunks: it counts when its last byte arrived.
    let times = format!("sent 1\n0 250\n{a} 1000\n{} 1250\n{b} 8000\n", a + 10);
    let arrivals = Arrivals::parse(times.as_bytes());
    let t = read_timeline(raw.as_bytes(), Provider::Bigdata, &arrivals).unwrap();
    assert_eq!(t.first_byte_ms, Some(250));
    assert_eq!(t.first_answer_ms, Some(250));
    let answer = t
        .phases
        .iter()
        .find(|p| p.kind == PhaseKind::Answer)
        .unwrap();
    assert_eq!((answer.start_ms, answer.end_ms), (250, Some(1250)));
    assert_eq!(t.phases.last().unwrap().start_ms, 8000);
    assert_eq!(t.gaps.len(), 1);
}

#[test]
fn a_huge_step_title_or_query_is_kept_cut_not_whole() {
    let mut long = "x".repeat(1_000_000);
    cut_to(&mut long, TEXT_CHARS);
    assert_eq!(long.chars().count(), TEXT_CHARS + 1);
    assert!(long.ends_with('…'));
    let mut short = "é".repeat(TEXT_CHARS);
    cut_to(&mut short, TEXT_CHARS);
    assert_eq!(short, "é".repeat(TEXT_CHARS));
}

#[test]
fn a_long_thought_is_cut_at_a_word_with_an_ellipsis() {
    let mut timeline = Timeline::new();
    let words = "Revenue grew again this quarter because data-center demand kept rising faster than supply could follow";
    for chunk in words.split_inclusive(' ') {
        timeline.push(
            100,
            &AgentEvent::Thinking {
                message_id: None,
                role: None,
                text: chunk.to_owned(),
            },
        );
    }
    let detail = timeline.phases[1].detail.clone().unwrap();
    // The first 80 characters end inside "supply"; the cut is before it.
    assert_eq!(
        detail,
        "Revenue grew again this quarter because data-center demand kept rising faster…"
    );
    assert!(detail.chars().count() <= 80);
}
