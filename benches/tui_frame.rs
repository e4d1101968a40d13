//! Frame cost of the interactive app at 140×42 (TestBackend): a 1 MB answer against a 1 KB answer,
//! both cached and following the bottom (target: ≤ 2×), appending a chunk to a 1 MB answer then
//! redrawing, and the same with 5,000 references pending (sent before the text they cite, as the
//! Bigdata agent does), and a 1 KB answer with three charts in view (bars, lines in two units, a
//! scatter) against one without, both with the view kept between frames as the app keeps it.
//! Prints the measured ratios as well as criterion's numbers.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::event::{AgentEvent, Chart, Reference, SourceDoc};
use research_tui::styled::theme::Theme;

use research_tui::tui::state::{AppConfig, Mode};
use research_tui::tui::ui::Ui;

const WIDTH: u16 = 140;
const HEIGHT: u16 = 42;

/// Markdown of about `bytes` bytes (headings, paragraphs, lists, a table now and then) and one
/// reference per paragraph over 40 sources.
fn answer(bytes: usize) -> (String, Vec<Reference>) {
    let sentence = "Data-center revenue grew strongly on Blackwell demand while margins held in the mid-seventies and guidance implied further sequential growth. ";
    let mut text = String::new();
    let mut refs = Vec::new();
    let mut chars = 0usize;
    let push = |text: &mut String, s: &str, chars: &mut usize| {
        text.push_str(s);
        *chars += s.chars().count();
    };
    let mut block = 0usize;
    while text.len() < bytes {
        match block % 25 {
            0 => push(&mut text, &format!("## Section {block}\n\n"), &mut chars),
            7 => push(
                &mut text,
                "| Segment | Revenue | YoY |\n|---|---:|---:|\n| Data Center | $66.8B | +71% |\n| Gaming | $4.5B | +20% |\n\n",
                &mut chars,
            ),
            13 => push(
                &mut text,
                "- **Compute** grew on Blackwell Ultra.\n- **Networking** grew on Spectrum-X.\n- Gaming rose on RTX demand.\n\n",
                &mut chars,
            ),
            _ => {
                let start = chars;
                for _ in 0..3 {
                    push(&mut text, sentence, &mut chars);
                }
                let end = chars - 1;
                push(&mut text, "\n\n", &mut chars);
                let n = block % 40;
                refs.push(Reference {
                    start: Some(start as u64),
                    end: Some(end as u64),
                    tool_name: Some("search".into()),
                    audit_id: Some(format!("audit-{n}")),
                    source: Some(SourceDoc {
                        id: Some(format!("doc-{n}")),
                        headline: Some(format!("Headline number {n}")),
                        src_name: Some("Reuters".into()),
                        ts: Some("2026-05-27T00:00:00Z".into()),
                        url: Some(format!("https://example.com/{n}")),
                        ..Default::default()
                    }),
                    ..Default::default()
                });
            }
        }
        block += 1;
    }
    (text, refs)
}

/// A streaming turn with the answer in 64-byte chunks and its references.
fn app_with(bytes: usize) -> Ui {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    app.fixed_elapsed = Some(Duration::from_secs(12));
    app.begin_turn(Some("Break down NVIDIA's latest quarter".into()));
    app.apply_update(StreamUpdate::Connected);
    let (text, refs) = answer(bytes);
    let mut events = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let mut cut = rest.len().min(64);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        events.push(AgentEvent::AnswerDelta {
            message_id: None,
            text: rest[..cut].to_owned(),
        });
        rest = &rest[cut..];
    }
    events.push(AgentEvent::Grounding(refs));
    app.apply_update(StreamUpdate::Events(events));
    app
}

/// A streaming turn with `bytes` of answer in and `pending` references sent before their text (as
/// the Bigdata agent does), their ends spread over the next `bytes` of answer still to come.
fn app_with_pending(bytes: usize, pending: usize) -> Ui {
    let mut app = app_with(bytes);
    let turn = app.turns.last().unwrap();
    let len = turn.session.answer.char_len() as u64;
    let ahead = (0..pending as u64)
        .map(|i| {
            let end = len + 40 + i * (bytes as u64) / pending as u64;
            Reference {
                start: Some(end - 30),
                end: Some(end),
                tool_name: Some("search".into()),
                source: Some(SourceDoc {
                    id: Some(format!("pending-{}", i % 500)),
                    headline: Some(format!("Pending headline {i}")),
                    ..Default::default()
                }),
                ..Default::default()
            }
        })
        .collect();
    app.apply_update(StreamUpdate::Events(vec![AgentEvent::Grounding(ahead)]));
    app
}

/// [`app_with`] 1 KB, and three charts over its first paragraphs (so in view at the top).
fn app_with_charts() -> Ui {
    let mut app = app_with(1024);
    let quarters: Vec<serde_json::Value> = (0..8)
        .map(|q| serde_json::json!({"q": format!("Q{q}"), "rev": 40.0 + 5.0 * q as f64, "gm": 70.0 + q as f64 * 0.6}))
        .collect();
    let specs = [
        serde_json::json!({"data": {"values": quarters}, "mark": "bar",
            "encoding": {"x": {"field": "q", "type": "ordinal"}, "y": {"field": "rev", "type": "quantitative", "title": "Revenue ($B)"}}}),
        serde_json::json!({"data": {"values": quarters}, "encoding": {"x": {"field": "q", "type": "ordinal"}},
            "layer": [{"mark": "line", "encoding": {"y": {"field": "rev", "type": "quantitative", "title": "Revenue ($B)"}}},
                      {"mark": "line", "encoding": {"y": {"field": "gm", "type": "quantitative", "title": "Margin (%)"}}}]}),
        serde_json::json!({"data": {"values": quarters}, "mark": "point",
            "encoding": {"x": {"field": "rev", "type": "quantitative"}, "y": {"field": "gm", "type": "quantitative"}}}),
    ];
    let events = specs
        .into_iter()
        .enumerate()
        .map(|(i, spec)| {
            AgentEvent::Chart(Chart {
                title: Some(format!("Chart {i}")),
                start: Some(20),
                end: Some(60 + i as u64),
                spec: Some(spec.into()),
                ..Chart::default()
            })
        })
        .collect();
    app.apply_update(StreamUpdate::Events(events));
    app
}

/// A terminal (the app keeps its panes' rows between frames, as in the event loop).
struct Screen {
    terminal: Terminal<TestBackend>,
}

fn terminal() -> Screen {
    Screen {
        terminal: Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap(),
    }
}

fn draw(screen: &mut Screen, app: &mut Ui) {
    screen.terminal.draw(|frame| app.draw(frame)).unwrap();
}

/// Time `base` and `other` in alternating rounds of 20 calls each: their medians per call and the
/// median of the per-round ratios `other / base`.
fn interleaved(base: &mut impl FnMut(), other: &mut impl FnMut()) -> (Duration, Duration, f64) {
    const ROUNDS: usize = 25;
    const CALLS: u32 = 20;
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..CALLS {
            f();
        }
        start.elapsed() / CALLS
    };
    let mut rounds: Vec<(Duration, Duration)> =
        (0..ROUNDS).map(|_| (time(base), time(other))).collect();
    let mut ratios: Vec<f64> = rounds
        .iter()
        .map(|(a, b)| b.as_secs_f64() / a.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    rounds.sort_by_key(|(a, _)| *a);
    let base_median = rounds[ROUNDS / 2].0;
    rounds.sort_by_key(|(_, b)| *b);
    (base_median, rounds[ROUNDS / 2].1, ratios[ROUNDS / 2])
}

/// Append one chunk (every 16th ends its paragraph, as real answers do) and redraw.
fn append_and_draw(app: &mut Ui, terminal: &mut Screen, counter: &mut usize) {
    *counter += 1;
    let text = if (*counter).is_multiple_of(16) {
        "and networking grew on Spectrum-X.\n\n"
    } else {
        "and networking grew on Spectrum-X "
    };
    app.apply_update(StreamUpdate::Events(vec![AgentEvent::AnswerDelta {
        message_id: None,
        text: text.into(),
    }]));
    draw(terminal, app);
}

fn bench(c: &mut Criterion) {
    let mut small = app_with(1024);
    let mut large = app_with(1024 * 1024);
    // The first frame renders every block once (later frames reuse them).
    let mut cold = app_with(1024 * 1024);
    let start = Instant::now();
    draw(&mut terminal(), &mut cold);
    println!(
        "first frame of a 1 MB answer (renders every block): {:?}",
        start.elapsed()
    );

    // Our own measurement for the ratios (criterion's numbers follow), interleaved with a steady 1 KB
    // frame so that changes in machine load hit both sides alike.
    let mut small_term = terminal();
    draw(&mut small_term, &mut small);
    let mut steady_small = || draw(&mut small_term, black_box(&mut small));
    let mut large_term = terminal();
    draw(&mut large_term, &mut large);
    let (t_small, t_large, ratio) = interleaved(&mut steady_small, &mut || {
        draw(&mut large_term, black_box(&mut large))
    });
    println!(
        "frame 140x42: 1 KB answer {t_small:?}, 1 MB answer {t_large:?}, ratio {ratio:.2}x (target <= 2x)"
    );
    let mut append = app_with(1024 * 1024);
    let mut append_term = terminal();
    draw(&mut append_term, &mut append);
    let mut counter = 0;
    let (_, t_append, ratio) = interleaved(&mut steady_small, &mut || {
        append_and_draw(&mut append, &mut append_term, &mut counter)
    });
    println!(
        "append a chunk to a 1 MB answer and redraw: {t_append:?} ({ratio:.2}x a steady 1 KB frame)"
    );
    let mut pending = app_with_pending(1024 * 1024, 5_000);
    let mut pending_term = terminal();
    draw(&mut pending_term, &mut pending);
    let mut pending_counter = 0;
    let (_, t_pending, ratio) = interleaved(&mut steady_small, &mut || {
        append_and_draw(&mut pending, &mut pending_term, &mut pending_counter)
    });
    println!(
        "append a chunk to a 1 MB answer with 5,000 references pending and redraw: {t_pending:?} ({ratio:.2}x a steady 1 KB frame)"
    );

    // Charts: a kept view draws each chart once; later frames only copy its rows.
    let mut plain = app_with(1024);
    let mut charts = app_with_charts();
    let (mut plain_term, mut chart_term) = (terminal(), terminal());
    draw(&mut chart_term, &mut charts);
    assert!(
        chart_term
            .terminal
            .backend()
            .to_string()
            .contains("Chart 0"),
        "the charts are in view"
    );
    let (t_plain, t_charts, ratio) = interleaved(
        &mut || draw(&mut plain_term, black_box(&mut plain)),
        &mut || draw(&mut chart_term, black_box(&mut charts)),
    );
    println!(
        "frame 140x42 with three charts in view: {t_charts:?} against {t_plain:?} without, ratio {ratio:.2}x"
    );

    let mut group = c.benchmark_group("tui_frame");
    group.bench_function("steady_1kb_answer", |b| {
        b.iter(|| draw(&mut small_term, black_box(&mut small)))
    });
    let mut term = terminal();
    draw(&mut term, &mut large);
    group.bench_function("steady_1mb_answer", |b| {
        b.iter(|| draw(&mut term, black_box(&mut large)))
    });
    let mut term = terminal();
    draw(&mut term, &mut append);
    group.bench_function("append_chunk_1mb_answer", |b| {
        b.iter(|| append_and_draw(&mut append, &mut term, &mut counter))
    });
    let mut term = terminal();
    draw(&mut term, &mut pending);
    group.bench_function("append_chunk_1mb_answer_5000_pending", |b| {
        b.iter(|| append_and_draw(&mut pending, &mut term, &mut counter))
    });
    group.bench_function("steady_1kb_answer_three_charts", |b| {
        b.iter(|| draw(&mut chart_term, black_box(&mut charts)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
