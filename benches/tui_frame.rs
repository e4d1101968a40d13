//! Frame cost of the interactive app at 140×42 (TestBackend): a 1 MB answer against a 1 KB answer,
//! both cached and following the bottom (target: ≤ 2×), and appending a chunk to a 1 MB answer then
//! redrawing. Prints the measured ratio as well as criterion's numbers.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::event::{AgentEvent, Reference, SourceDoc};
use research_tui::tui::screen;
use research_tui::tui::state::{App, AppConfig, Mode};
use research_tui::tui::theme::Theme;

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
fn app_with(bytes: usize) -> App {
    let mut app = App::new(AppConfig {
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

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap()
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &mut App) {
    terminal.draw(|frame| screen::draw(frame, app)).unwrap();
}

fn mean_frame(app: &mut App, iterations: u32) -> Duration {
    let mut terminal = terminal();
    draw(&mut terminal, app);
    let start = Instant::now();
    for _ in 0..iterations {
        draw(&mut terminal, black_box(&mut *app));
    }
    start.elapsed() / iterations
}

/// Append one chunk (every 16th ends its paragraph, as real answers do) and redraw.
fn append_and_draw(app: &mut App, terminal: &mut Terminal<TestBackend>, counter: &mut usize) {
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

    // Our own measurement for the ratio (criterion's numbers follow).
    let t_small = mean_frame(&mut small, 300);
    let t_large = mean_frame(&mut large, 300);
    println!(
        "frame 140x42: 1 KB answer {:?}, 1 MB answer {:?}, ratio {:.2}x (target <= 2x)",
        t_small,
        t_large,
        t_large.as_secs_f64() / t_small.as_secs_f64()
    );
    let mut append = app_with(1024 * 1024);
    let mut term = terminal();
    draw(&mut term, &mut append);
    let mut counter = 0;
    let start = Instant::now();
    for _ in 0..200 {
        append_and_draw(&mut append, &mut term, &mut counter);
    }
    let t_append = start.elapsed() / 200;
    println!(
        "append a chunk to a 1 MB answer and redraw: {:?} ({:.2}x a steady 1 KB frame)",
        t_append,
        t_append.as_secs_f64() / t_small.as_secs_f64()
    );

    let mut group = c.benchmark_group("tui_frame");
    let mut term = terminal();
    draw(&mut term, &mut small);
    group.bench_function("steady_1kb_answer", |b| {
        b.iter(|| draw(&mut term, black_box(&mut small)))
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
