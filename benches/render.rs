//! `render` throughput on a large synthetic stream, as a ratio to a serde_json parse-only pass over
//! the same bytes (measured in the same run), plus peak heap memory as a multiple of the file size.
//!
//! The stream ([`streams::benchmark_stream`]): ≈1.8 M answer characters in 40 k ANSWER chunks, 5,000
//! references to 1,000 sources, 200 tool calls with audit traces — about 8 MB. `render` is what the
//! command does: read the stream into a session and write the document out as it is rendered (here
//! to `io::sink`). The ratio per format is the median over alternating pairs (the floor, then
//! `render`) of the thread's CPU time, so machine load hits both sides alike. Targets: ≤ 1.2× the
//! parse-only floor, ≤ 5× memory.

#[path = "support/streams.rs"]
mod streams;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use research_tui::render::text::DEFAULT_WIDTH;
use research_tui::render::{Format, write_sized};
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

fn render_all(bytes: &[u8], format: Format) {
    let (session, _) = read_session(bytes, Provider::Bigdata).unwrap();
    write_sized(&session, format, DEFAULT_WIDTH, std::io::sink()).unwrap();
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

fn cpu_of(f: impl FnOnce()) -> Duration {
    let start = thread_cpu();
    f();
    thread_cpu() - start
}

/// The median of `runs` ratios `f` / `floor`, each pair measured one right after the other.
fn median_ratio(mut floor: impl FnMut(), mut f: impl FnMut(), runs: usize) -> f64 {
    let mut ratios: Vec<f64> = (0..runs)
        .map(|_| {
            let base = cpu_of(&mut floor);
            cpu_of(&mut f).as_secs_f64() / base.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[runs / 2]
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
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!("load average: {}", load.trim());
    for format in [Format::Markdown, Format::Json, Format::Text] {
        let ratio = median_ratio(
            || {
                black_box(parse_only(&bytes));
            },
            || render_all(&bytes, format),
            15,
        );
        let before = CURRENT.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        render_all(&bytes, format);
        let peak = PEAK.load(Ordering::Relaxed) - before;
        eprintln!(
            "render --format {format:?}: {ratio:.2}× serde_json parse-only, CPU (target ≤ 1.2×); peak heap {:.2}× file size (target ≤ 5×)",
            peak as f64 / size as f64
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
