//! Charts and structured output through the real binary: `ask --charts` asks the demo agent for
//! them (checked on the body it received), and `ask`/`render` show them in every format.

use std::process::Output;

use serde_json::{Value, json};

use crate::support;

const SECTOR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/recordings/bigdata/sector-comparison.sse"
);

fn research_tui(args: &[&str], dir: &std::path::Path) -> Output {
    support::cli(dir)
        .args(args)
        .env("BIGDATA_API_KEY", "sk-test-charts-0001")
        .output()
        .unwrap()
}

async fn received(base: &str) -> Vec<Value> {
    let requests: Vec<Value> = crate::support::http()
        .get(format!("{base}/_demo/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    requests.into_iter().map(|r| r["body"].clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_with_charts_requests_them_and_a_follow_up_keeps_asking() {
    let addr = support::demo_agent(200.0).await;
    let base = format!("http://{addr}");
    let dir = tempfile::tempdir().unwrap();
    let ask = |args: &[&str]| {
        let mut all = vec!["ask"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--base-url", &base]);
        tokio::task::block_in_place(|| research_tui(&all, dir.path()))
    };
    let output = ask(&["What did NVIDIA report?", "--charts", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let body = received(&base).await.pop().unwrap();
    assert_eq!(
        body["tools_configs"]["python_code_execution"],
        json!({"enabled": true, "chart_generation_enabled": true})
    );
    let charts = doc["charts"].as_array().unwrap();
    assert_eq!(charts.len(), 2);
    let first = &charts[0];
    assert_eq!(first["id"], "chart-nvda-segments");
    assert_eq!(first["type"], "bar");
    assert_eq!(first["spec"]["mark"], "bar");
    assert_eq!(first["data"][0]["label"], "Data Center");
    let (start, end) = (
        first["start"].as_u64().unwrap(),
        first["end"].as_u64().unwrap(),
    );
    let span: String = doc["answer"]
        .as_str()
        .unwrap()
        .chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect();
    assert_eq!(
        span,
        "Data Center is now more than nine-tenths of the business."
    );

    let checkpoint = doc["checkpoint_id"].as_str().unwrap().to_owned();
    let output = ask(&["And AMD?", "--resume", &checkpoint]);
    assert_eq!(output.status.code(), Some(0));
    let body = received(&base).await.pop().unwrap();
    assert_eq!(
        body["tools_configs"]["python_code_execution"]["chart_generation_enabled"], true,
        "the saved session remembers that charts were asked for"
    );
    let plain = ask(&["Anything else?"]);
    assert_eq!(plain.status.code(), Some(0));
    let body = received(&base).await.pop().unwrap();
    assert!(body.get("tools_configs").is_none(), "{body}");
}

#[test]
fn charts_are_refused_where_they_cannot_be_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let xai = research_tui(
        &["ask", "Q", "--charts", "--provider", "xai", "--demo"],
        dir.path(),
    );
    assert_eq!(xai.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&xai.stderr).contains("--charts"));
    let workflow = research_tui(
        &[
            "ask",
            "",
            "--charts",
            "--workflow",
            "earnings-brief",
            "--demo",
        ],
        dir.path(),
    );
    assert_eq!(workflow.status.code(), Some(2));
}

#[test]
fn render_text_draws_the_charts_and_the_structured_output_as_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let output = research_tui(&["render", SECTOR, "--format", "text"], dir.path());
    let text = String::from_utf8(output.stdout).unwrap();
    let charts = text.find("\nCharts\n").expect("a Charts section");
    let sources = text.find("\nSources\n").unwrap();
    assert!(charts < sources, "charts come before the sources");
    assert!(text.contains("▦ Growth, margin and China exposure (grouped_bar)"));
    assert!(text.contains("█ Revenue growth YoY   ▓ Gross margin   ▒ China share"));
    assert!(
        text.contains("  ASML   ██"),
        "the forward P/E bars, tallest first"
    );
    assert!(text.contains(" 33x\n"));
    let drawn = &text[charts..sources];
    assert!(
        drawn
            .lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80)
    );
    let table = &text[text.find("\nStructured output\n").unwrap()..];
    assert!(table.contains("  Lam Research\n    ticker                  LRCX\n"));
    assert!(!text.contains("\"ticker\""), "no JSON dump");
}

#[test]
fn render_markdown_fences_each_spec_and_tables_the_structured_output() {
    let dir = tempfile::tempdir().unwrap();
    let output = research_tui(&["render", SECTOR, "--format", "markdown"], dir.path());
    let markdown = String::from_utf8(output.stdout).unwrap();
    assert_eq!(markdown.matches("```vega-lite\n").count(), 2);
    let block = &markdown[markdown
        .find("**Growth, margin and China exposure**")
        .unwrap()..];
    let fence = &block[block.find("```vega-lite\n").unwrap() + 13..];
    let spec: Value = serde_json::from_str(&fence[..fence.find("\n```").unwrap()]).unwrap();
    assert_eq!(spec["transform"][0]["as"], json!(["metric", "value"]));
    assert!(markdown.contains(
        "| company | ticker | latest_period | revenue | revenue_unit | revenue_growth_yoy_pct | gross_margin_pct | china_share_pct | forward_pe |"
    ));
    assert!(
        markdown
            .contains("| Lam Research | LRCX | Mar-Q 2026 | 5.6 | USD bn | 18 | 50.1 | 30 | 27 |")
    );
}

/// The app's `--charts` (or `charts = true`) reaches the request through its provider options,
/// which a saved session keeps; other providers ignore it.
#[test]
fn the_apps_chart_option_asks_for_charts_in_the_bigdata_request_only() {
    use research_tui::agent::live::{LiveConfig, request};
    use research_tui::wire::provider::Provider;
    use research_tui::wire::provider::{Ask, ProviderOptions};
    let options = ProviderOptions {
        charts: true,
        ..ProviderOptions::default()
    };
    let config = LiveConfig::new(Provider::Bigdata, None).with_options(&options);
    assert!(
        config.provider_options().charts,
        "kept for the saved session"
    );
    let body = request(&config, &Ask::new("Q")).body;
    assert_eq!(
        body["tools_configs"]["python_code_execution"],
        json!({"enabled": true, "chart_generation_enabled": true})
    );
    let plain = LiveConfig::new(Provider::Bigdata, None);
    assert!(
        request(&plain, &Ask::new("Q"))
            .body
            .get("tools_configs")
            .is_none()
    );
    let xai = LiveConfig::new(Provider::Xai, None).with_options(&options);
    assert!(
        request(&xai, &Ask::new("Q"))
            .body
            .get("tools_configs")
            .is_none()
    );
}
