//! `render` throughput on a large synthetic stream, as a ratio to a serde_json parse-only pass over
//! the same bytes (measured in the same run), plus peak heap memory as a multiple of the file size.
//!
//! The stream ([`streams::benchmark_stream`]): ≈1.8 M answer characters in 40 k ANSWER chunks, 5,000
//! references to 1,000 sources, 200 tool calls with audit traces — about 8 MB. Targets: ≤ 2× the
//! parse-only time, ≤ 5× memory.

#[path = "support/streams.rs"]
mod streams;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use research_tui::render::{Format, render};
use research_tui::wire::input::read_session;
use research_tui::wire::provider::Provider;
use serde_json::Value;

struct PeakAlloc;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        ptr
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size > layout.size() {
                let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                    - layout.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

/// The baseline: split lines and parse every `data:` payload with serde_json, nothing else.
fn parse_only(bytes: &[u8]) -> usize {
    let text = std::str::from_utf8(bytes).unwrap();
    let mut n = 0;
    for line in text.lines() {
        if let Some(data) = line.strip_prefix("data: ") {
            let value: Value = serde_json::from_str(data).unwrap();
            n += usize::from(value.is_object());
        }
    }
    n
}

fn render_all(bytes: &[u8], format: Format) -> usize {
    let (session, _) = read_session(bytes, Provider::Bigdata).unwrap();
    render(&session, format).len()
}

fn median_time(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn bench(c: &mut Criterion) {
    let bytes = streams::benchmark_stream(false);
    let size = bytes.len();
    let (session, _) = read_session(&bytes[..], Provider::Bigdata).unwrap();
    eprintln!(
        "stream: {:.1} MB, {} answer chars, {} references",
        size as f64 / 1e6,
        session.answer.char_len(),
        session.references.len()
    );
    drop(session);

    let mut group = c.benchmark_group("render_7mb");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(size as u64));
    group.bench_function("serde_json_parse_only", |b| {
        b.iter(|| parse_only(black_box(&bytes)))
    });
    group.bench_function("render_markdown", |b| {
        b.iter(|| render_all(black_box(&bytes), Format::Markdown))
    });
    group.bench_function("render_json", |b| {
        b.iter(|| render_all(black_box(&bytes), Format::Json))
    });
    group.finish();

    // Ratios from interleaved runs in this process, so machine load affects both sides alike.
    let baseline = median_time(
        || {
            black_box(parse_only(&bytes));
        },
        7,
    );
    for format in [Format::Markdown, Format::Json, Format::Text] {
        let t = median_time(
            || {
                black_box(render_all(&bytes, format));
            },
            7,
        );
        let before = CURRENT.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        black_box(render_all(&bytes, format));
        let peak = PEAK.load(Ordering::Relaxed) - before;
        eprintln!(
            "render --format {format:?}: {:.2}× serde_json parse-only (target ≤ 2×); peak heap {:.2}× file size (target ≤ 5×)",
            t.as_secs_f64() / baseline.as_secs_f64(),
            peak as f64 / size as f64
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
