//! Hostile charts through the real binary: specs built to multiply their rows (2,000 layers over
//! 20k rows, a fold of 20k fields over one 8 MB row, layers nested 4 deep × 12) and four 14 MB
//! chart events cost `render` (every format) and the app less than three times the stream's size
//! in peak memory, over what a one-line stream costs; the unbounded ones say "chart too large to
//! draw". The streams are generated here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::large_streams::App;
use crate::support;

/// One Bigdata.com SSE event.
fn event(message: Value) -> String {
    format!("data: {}\n\n", json!({"chat_id": "c", "message": message}))
}

fn stream(answer: &str, charts: impl IntoIterator<Item = Value>) -> String {
    let mut out = event(json!({"type": "ANSWER", "content": answer}));
    for chart in charts {
        out.push_str(&event(chart));
    }
    out + &event(json!({"type": "COMPLETE"}))
}

fn rows(n: usize) -> Value {
    (0..n)
        .map(|i| json!({"a": i, "b": i % 97, "name": format!("row {i:06} of the hostile dataset")}))
        .collect()
}

fn xy() -> Value {
    json!({"x": {"field": "a", "type": "quantitative"}, "y": {"field": "b", "type": "quantitative"}})
}

/// 2,000 line layers inheriting the same 20k rows.
fn layered() -> String {
    let layers: Vec<Value> = (0..2000)
        .map(|_| json!({"mark": "line", "encoding": xy()}))
        .collect();
    let spec = json!({"data": {"values": rows(20_000)}, "layer": layers});
    stream(
        "Layered.",
        [json!({"type": "CHART", "title": "Layered", "vega_lite_spec": spec})],
    )
}

/// Layers 4 deep, 12 at each level (20,736 views) over 20k rows.
fn nested() -> String {
    fn level(depth: usize) -> Value {
        match depth {
            0 => json!({"mark": "line"}),
            _ => json!({"layer": (0..12).map(|_| level(depth - 1)).collect::<Vec<_>>()}),
        }
    }
    let spec =
        json!({"data": {"values": rows(20_000)}, "encoding": xy(), "layer": level(4)["layer"]});
    stream(
        "Nested.",
        [json!({"type": "CHART", "title": "Nested", "vega_lite_spec": spec})],
    )
}

/// A fold of 20k fields over one 8 MB row.
fn fold() -> String {
    let row: serde_json::Map<String, Value> = (0..20_000)
        .map(|i| {
            (
                format!("f{i:05}"),
                json!(format!("{i}.{}", "0".repeat(390))),
            )
        })
        .collect();
    let fields: Vec<&String> = row.keys().collect();
    let spec = json!({
        "data": {"values": [row]},
        "transform": [{"fold": fields, "as": ["k", "v"]}],
        "mark": "bar",
        "encoding": {"x": {"field": "k", "type": "nominal"}, "y": {"field": "v", "type": "quantitative"}}
    });
    stream(
        "Fold.",
        [json!({"type": "CHART", "title": "Fold", "vega_lite_spec": spec})],
    )
}

/// Four 14 MB charts: a spec object, a spec sent as JSON text, data points, a spec again.
fn four_big() -> String {
    let points: Vec<Value> = (0..600_000)
        .map(|i| json!({"a": i, "b": (i * 7) % 1000}))
        .collect();
    let spec = json!({"data": {"values": points}, "mark": "point", "encoding": xy()});
    let pairs: Vec<Value> = (0..1_000_000).map(|i| json!([i, (i * 7) % 1000])).collect();
    stream(
        "Big.",
        [
            json!({"type": "CHART", "title": "Big 1", "vega_lite_spec": spec}),
            json!({"type": "CHART", "title": "Big 2", "vega_lite_spec": spec.to_string()}),
            json!({"type": "CHART", "title": "Big 3", "chart_type": "scatter", "data_points": pairs}),
            json!({"type": "CHART", "title": "Big 4", "vega_lite_spec": spec}),
        ],
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn render_peak(file: &Path, format: &str) -> u64 {
    let mut command = support::cli(support::scratch());
    command.args(["render", "--format", format]).arg(file);
    let (status, peak) = support::peak_rss(command);
    assert!(
        status.success(),
        "render --format {format} {}: {status}",
        file.display()
    );
    peak
}

fn render_text(file: &Path) -> String {
    let output = support::cli(support::scratch())
        .args(["render", "--format", "text"])
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The hostile streams, each with what its text rendering says.
fn hostile(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    vec![
        (
            write(dir, "layered.sse", &layered()),
            "chart too large to draw: 2000 layers",
        ),
        (
            write(dir, "nested.sse", &nested()),
            "chart too large to draw: more than 32 layers",
        ),
        (write(dir, "fold.sse", &fold()), "f00000"),
        (write(dir, "big.sse", &four_big()), "▦ Big 4"),
    ]
}

#[test]
fn hostile_charts_cost_render_less_than_three_times_the_stream_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = write(dir.path(), "tiny.sse", &stream("Tiny.", []));
    for (file, says) in hostile(dir.path()) {
        let size = std::fs::metadata(&file).unwrap().len();
        let text = render_text(&file);
        assert!(
            text.contains(says),
            "{} renders without {says:?}:\n{}",
            file.display(),
            &text[..text.len().min(2000)]
        );
        for format in ["markdown", "json", "text"] {
            let base = render_peak(&tiny, format);
            let peak = render_peak(&file, format);
            let grew = peak.saturating_sub(base);
            eprintln!(
                "render --format {format} of {}: {size} bytes, grew {grew} ({:.2}x)",
                file.display(),
                grew as f64 / size as f64
            );
            assert!(
                grew < 3 * size,
                "render --format {format} of {} ({size} bytes) grew by {grew} bytes",
                file.display()
            );
        }
    }
}

/// The app's peak memory once its screen shows `text`.
fn app_peak(file: &Path, text: &str) -> u64 {
    let app = App::start(&["replay", file.to_str().unwrap(), "--speed", "max"]);
    assert!(
        app.wait_for(text, Duration::from_secs(60)).is_some(),
        "the app never showed {text:?}:\n{}",
        app.screen()
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", app.pid())).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn hostile_charts_cost_the_app_less_than_three_times_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = write(dir.path(), "tiny.sse", &stream("Tiny.", []));
    let base = app_peak(&tiny, "Tiny.");
    let shown = [
        "chart too large to draw",
        "chart too large to draw",
        "chart: Fold",
        "chart: Big 4",
    ];
    for ((file, _), shown) in hostile(dir.path()).into_iter().zip(shown) {
        let size = std::fs::metadata(&file).unwrap().len();
        // A process's peak is noisy upward (the allocator's arenas, when threads first allocate):
        // the lesser of two runs is what the input costs.
        let peak = app_peak(&file, shown).min(app_peak(&file, shown));
        let grew = peak.saturating_sub(base);
        assert!(
            grew < 3 * size,
            "the app replaying {} ({size} bytes) grew by {grew} bytes",
            file.display()
        );
    }
}
