//! Charts and structured output in the app, drawn into a `TestBackend`: each chart kind inside the
//! answer at 140×42 and 80×24, full screen, without colors, a chart that cannot be drawn, and the
//! structured output as a table with its raw JSON one key away.

use std::io::Write;

use crossterm::event::KeyCode;
use ratatui::style::Color;
use research_tui::styled::theme::Theme;

use research_tui::tui::state::{AppConfig, Effect, Mode, Popup};
use research_tui::tui::ui::Ui;
use serde_json::{Value, json};

use crate::support;

use support::*;

const ANSWER: &str = "## Results\n\nRevenue grew in every quarter of the year.\n\nThe rest of the answer goes on after the chart.\n";
/// The span the charts illustrate: the first paragraph.
const SPAN: (usize, usize) = (12, 54);

/// A recorded stream: the answer, `charts` over [`SPAN`], an optional structured output.
fn stream(charts: &[Value], structured: Option<Value>) -> tempfile::NamedTempFile {
    let mut events = vec![json!({"type": "ANSWER", "content": ANSWER})];
    for (i, chart) in charts.iter().enumerate() {
        let mut chart = chart.clone();
        chart["type"] = json!("CHART");
        chart["chart_id"] = json!(format!("chart-{i}"));
        chart["start"] = json!(SPAN.0);
        chart["end"] = json!(SPAN.1);
        events.push(chart);
    }
    if let Some(content) = structured {
        events.push(json!({"type": "STRUCTURED_OUTPUT", "content": content}));
    }
    events.push(json!({"type": "COMPLETE", "checkpoint_id": "ckpt-charts"}));
    let mut file = tempfile::NamedTempFile::new().unwrap();
    for event in events {
        let line = json!({"chat_id": "chat-charts", "message": event});
        write!(file, ": delay=1\ndata: {line}\n\n").unwrap();
    }
    file
}

fn shown(charts: &[Value], structured: Option<Value>, theme: Theme) -> Ui {
    assert_eq!(
        ANSWER
            .chars()
            .skip(SPAN.0)
            .take(SPAN.1 - SPAN.0)
            .collect::<String>(),
        "Revenue grew in every quarter of the year."
    );
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme,
        can_ask: true,
    });
    app.fixed_elapsed = Some(std::time::Duration::from_secs(42));
    let file = stream(charts, structured);
    play(
        &mut app,
        file.path().to_str().unwrap(),
        Some("How did revenue move?"),
        None,
    );
    browse(&mut app);
    keys(&mut app, "ag");
    app
}

fn quarters() -> Vec<Value> {
    [
        ("Q1", 44.1, 71.3),
        ("Q2", 46.7, 72.7),
        ("Q3", 57.0, 73.6),
        ("Q4", 66.5, 75.0),
    ]
    .iter()
    .map(|(q, r, m)| json!({"quarter": q, "revenue": r, "margin": m}))
    .collect()
}

fn grouped_bars() -> Value {
    json!({"title": "Growth and margin by company", "caption": "Latest reported period.",
        "chart_type": "grouped_bar", "vega_lite_spec": {
        "data": {"values": [
            {"company": "ASML", "growth": 3, "margin": 53.2},
            {"company": "AMAT", "growth": 7, "margin": 48.9},
            {"company": "LRCX", "growth": 18, "margin": 50.1}]},
        "transform": [{"fold": ["growth", "margin"], "as": ["metric", "value"]}],
        "mark": "bar",
        "encoding": {"x": {"field": "company", "type": "nominal", "sort": null},
            "xOffset": {"field": "metric"}, "color": {"field": "metric"},
            "y": {"field": "value", "type": "quantitative", "title": "Percent (%)"}}}})
}

fn stacked_bars() -> Value {
    json!({"title": "Revenue by segment", "chart_type": "stacked_bar", "vega_lite_spec": {
        "data": {"values": [
            {"year": "FY25", "segment": "Data Center", "rev": 115.2},
            {"year": "FY25", "segment": "Gaming", "rev": 11.4},
            {"year": "FY26", "segment": "Data Center", "rev": 180.0},
            {"year": "FY26", "segment": "Gaming", "rev": 15.1}]},
        "mark": "bar",
        "encoding": {"x": {"field": "year", "type": "ordinal"},
            "y": {"field": "rev", "type": "quantitative", "title": "Revenue ($B)"},
            "color": {"field": "segment", "type": "nominal"}}}})
}

fn lines() -> Value {
    json!({"title": "Quarterly revenue and margin", "caption": "Two units: two panels.",
        "chart_type": "line", "vega_lite_spec": {
        "data": {"values": quarters()},
        "encoding": {"x": {"field": "quarter", "type": "ordinal", "sort": null}},
        "layer": [
            {"mark": "line", "encoding": {"y": {"field": "revenue", "type": "quantitative", "title": "Revenue ($B)"}}},
            {"mark": "line", "encoding": {"y": {"field": "margin", "type": "quantitative", "title": "Margin (%)"}}}]}})
}

fn area() -> Value {
    json!({"title": "Revenue", "chart_type": "area", "vega_lite_spec": {
        "data": {"values": quarters()}, "mark": "area",
        "encoding": {"x": {"field": "quarter", "type": "ordinal", "sort": null},
            "y": {"field": "revenue", "type": "quantitative", "title": "Revenue ($B)"}}}})
}

fn stacked_area() -> Value {
    let rows: Vec<Value> = quarters()
        .iter()
        .flat_map(|q| {
            let revenue = q["revenue"].as_f64().unwrap();
            [("Data Center", revenue * 0.9), ("Other", revenue * 0.1)]
                .map(|(segment, v)| json!({"quarter": q["quarter"], "segment": segment, "rev": v}))
        })
        .collect();
    json!({"title": "Revenue by segment over time", "chart_type": "area", "vega_lite_spec": {
        "data": {"values": rows}, "mark": "area",
        "encoding": {"x": {"field": "quarter", "type": "ordinal", "sort": null},
            "y": {"field": "rev", "type": "quantitative", "title": "Revenue ($B)"},
            "color": {"field": "segment"}}}})
}

fn scatter() -> Value {
    json!({"title": "Valuation against growth", "chart_type": "scatter", "vega_lite_spec": {
        "data": {"values": [
            {"pe": 33, "growth": 3, "region": "Europe"}, {"pe": 22, "growth": 7, "region": "US"},
            {"pe": 27, "growth": 18, "region": "US"}, {"pe": 25, "growth": 5, "region": "Japan"}]},
        "mark": "point",
        "encoding": {"x": {"field": "growth", "type": "quantitative", "title": "Growth (%)"},
            "y": {"field": "pe", "type": "quantitative", "title": "Forward P/E (x)"},
            "color": {"field": "region"}}}})
}

fn undrawable() -> Value {
    json!({"title": "Revenue share", "caption": "A pie the terminal does not draw.",
        "chart_type": "pie", "vega_lite_spec": {"mark": "arc", "data": {"values": [{"a": 1}]}}})
}

/// Each chart kind inside the answer, at both sizes.
#[test]
fn each_chart_kind_is_drawn_inside_the_answer_after_its_span() {
    let kinds = [
        ("grouped_bars", grouped_bars()),
        ("stacked_bars", stacked_bars()),
        ("lines", lines()),
        ("area", area()),
        ("stacked_area", stacked_area()),
        ("scatter", scatter()),
        ("undrawable", undrawable()),
    ];
    for (name, chart) in kinds {
        let mut app = shown(&[chart], None, Theme::default());
        let wide = draw(&mut app, 140, 42).backend().to_string();
        let after_span = wide.find("Revenue grew in every quarter").expect(&wide);
        let chart_at = wide.find("┃ ▦ ").unwrap();
        // The rest of the answer comes after the chart (below the window for a tall one).
        let rest = wide.find("The rest of the answer").unwrap_or(usize::MAX);
        assert!(
            after_span < chart_at && chart_at < rest,
            "{name}: the chart follows its span"
        );
        insta::assert_snapshot!(format!("chart_{name}_140x42"), wide);
        insta::assert_snapshot!(
            format!("chart_{name}_80x24"),
            draw(&mut app, 80, 24).backend()
        );
    }
}

#[test]
fn enter_opens_the_chart_full_screen_and_it_redraws_at_the_new_size() {
    let mut app = shown(&[lines()], None, Theme::default());
    draw(&mut app, 140, 42);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.popup, Some(Popup::Chart { turn: 0, chart: 0 }));
    insta::assert_snapshot!(
        "chart_full_screen_140x42",
        draw(&mut app, 140, 42).backend()
    );
    insta::assert_snapshot!("chart_full_screen_80x24", draw(&mut app, 80, 24).backend());
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.popup, None);
}

#[test]
fn without_colors_series_differ_by_pattern_and_marker() {
    let mut app = shown(&[grouped_bars()], None, Theme::default().without_colors());
    let terminal = draw(&mut app, 140, 42);
    for cell in terminal.backend().buffer().content() {
        assert_eq!(cell.fg, Color::Reset);
    }
    let screen = terminal.backend().to_string();
    assert!(screen.contains("█ growth   ▓ margin"), "{screen}");
    let mut app = shown(&[scatter()], None, Theme::default().without_colors());
    draw(&mut app, 140, 42);
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("● Europe") && screen.contains("○ Japan"),
        "{screen}"
    );
    insta::assert_snapshot!("chart_scatter_no_color_full_screen", screen);
}

#[test]
fn with_colors_each_series_has_its_own() {
    let mut app = shown(&[grouped_bars()], None, Theme::default());
    let terminal = draw(&mut app, 140, 42);
    let buffer = terminal.backend().buffer();
    let color_of = |glyph: &str| {
        buffer
            .content()
            .iter()
            .find(|c| c.symbol() == glyph)
            .map(|c| c.fg)
            .unwrap()
    };
    assert_ne!(color_of("█"), color_of("▓"));
}

#[test]
fn a_chart_is_drawn_once_per_width_not_per_frame() {
    use research_tui::tui::screen::chart::ChartCache;
    let app = shown(&[lines()], None, Theme::default());
    let mut cache = ChartCache::default();
    let first = cache.rows(
        &app.turns[0],
        0,
        100,
        (&app.theme, "Enter or a click: full screen"),
    );
    let again = cache.rows(
        &app.turns[0],
        0,
        100,
        (&app.theme, "Enter or a click: full screen"),
    );
    assert!(
        std::rc::Rc::ptr_eq(&first, &again),
        "the same rows, not drawn again"
    );
    let narrower = cache.rows(
        &app.turns[0],
        0,
        60,
        (&app.theme, "Enter or a click: full screen"),
    );
    assert!(!std::rc::Rc::ptr_eq(&first, &narrower));
}

fn peers() -> Value {
    json!([
        {"company": "ASML", "ticker": "ASML", "growth_pct": 3, "forward_pe": 33},
        {"company": "Applied Materials", "ticker": "AMAT", "growth_pct": 7, "forward_pe": 22},
        {"company": "Lam Research", "ticker": "LRCX", "growth_pct": 18, "forward_pe": 27,
         "segments": {"etch": 0.6, "dep": 0.4}}
    ])
}

#[test]
fn structured_output_unfolds_into_a_table_and_j_shows_the_json_y_copies() {
    let mut app = shown(&[], Some(peers()), Theme::default());
    keys(&mut app, "G");
    key(&mut app, KeyCode::Enter);
    let narrow = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        narrow.contains("Lam Research") && narrow.contains("  ticker      LRCX"),
        "{narrow}"
    );
    // Zoomed, the answer is wide enough for the columns.
    keys(&mut app, "z");
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("▾ Structured output · 3 rows × 5 columns"),
        "{screen}"
    );
    assert!(
        screen.contains("Lam Research      │ LRCX   │         18 │         27 │ {2 fields}"),
        "{screen}"
    );
    insta::assert_snapshot!("structured_table_140x42", screen);
    insta::assert_snapshot!("structured_table_80x24", draw(&mut app, 80, 24).backend());
    keys(&mut app, "J");
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("Structured output (JSON)") && screen.contains("\"ticker\": \"LRCX\""));
    let Some(Effect::CopyText(copied)) = key(&mut app, KeyCode::Char('y')) else {
        panic!("y copies the JSON");
    };
    assert_eq!(serde_json::from_str::<Value>(&copied).unwrap(), peers());
}

/// The structured output's hints name the keys in force: the answer's title (folded) and the
/// table's heading (unfolded).
#[test]
fn the_structured_outputs_hints_name_the_keys_in_force() {
    let mut app = shown(&[], Some(peers()), Theme::default());
    app.keys = research_tui::tui::state::keymap::Keymap::with_entries(&[(
        "raw_json".to_owned(),
        Some(vec!["X".to_owned()]),
    )])
    .unwrap();
    keys(&mut app, "G");
    let folded = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        folded.contains("Enter unfolds the structured output"),
        "{folded}"
    );
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "z");
    let open = draw(&mut app, 140, 42).backend().to_string();
    assert!(open.contains("(Enter folds · X raw JSON)"), "{open}");
    assert!(!open.contains("J raw JSON"), "{open}");
}

/// A second turn: a long answer, then a structured output of its own.
fn second_turn_with_output() -> tempfile::NamedTempFile {
    let long: String = (1..=40)
        .map(|i| format!("Paragraph {i} of the follow-up's answer.\n\n"))
        .collect();
    let mut file = tempfile::NamedTempFile::new().unwrap();
    for event in [
        json!({"type": "ANSWER", "content": long}),
        json!({"type": "STRUCTURED_OUTPUT", "content": [{"company": "Tokyo Electron", "ticker": "TEL"}]}),
        json!({"type": "COMPLETE", "checkpoint_id": "ckpt-second"}),
    ] {
        let line = json!({"chat_id": "chat-charts", "message": event});
        write!(file, ": delay=1\ndata: {line}\n\n").unwrap();
    }
    file
}

/// `J` and Enter act on the structured output the person sees, not the selected (newest) turn's
/// far below it.
#[test]
fn j_and_enter_act_on_the_structured_output_on_screen_not_the_selected_turns() {
    let mut app = shown(&[], Some(peers()), Theme::default());
    let second = second_turn_with_output();
    play(
        &mut app,
        second.path().to_str().unwrap(),
        Some("And Tokyo Electron?"),
        None,
    );
    browse(&mut app);
    keys(&mut app, "ag");
    let screen = draw(&mut app, 80, 24).backend().to_string();
    assert!(screen.contains("How did revenue move?"), "{screen}");
    assert!(!screen.contains("Paragraph 40"), "{screen}");
    assert_eq!(
        app.current_index(),
        1,
        "the newest turn is the selected one"
    );
    keys(&mut app, "J");
    let screen = draw(&mut app, 80, 24).backend().to_string();
    assert!(
        screen.contains("\"ticker\": \"LRCX\"") && !screen.contains("TEL"),
        "the first turn's JSON: {screen}"
    );
    insta::assert_snapshot!("structured_json_of_the_turn_on_screen_80x24", screen);
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 80, 24).backend().to_string();
    assert!(
        screen.contains("▾ Structured output · 3 rows"),
        "the first turn's table unfolded: {screen}"
    );
    // At the bottom, the second turn's output is the one on screen.
    keys(&mut app, "G");
    draw(&mut app, 80, 24);
    keys(&mut app, "J");
    let screen = draw(&mut app, 80, 24).backend().to_string();
    assert!(screen.contains("\"ticker\": \"TEL\""), "{screen}");
}

#[test]
fn the_tool_level_citation_that_drew_a_chart_points_at_it() {
    let mut app = support::app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    // Past the nine sources to the first tool data entry: the chart tool.
    keys(&mut app, "cjjjjjjjjj");
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("Tool data: python_code_execution"),
        "{screen}"
    );
    assert!(
        screen.contains("Chart      ▦ Revenue by segment, Q1 FY2027 — drawn in the answer"),
        "{screen}"
    );
}

#[test]
fn export_writes_each_chart_as_a_vega_lite_block_and_the_structured_output_as_a_table() {
    use research_tui::tui::export::{ExportMeta, export_to};
    let app = shown(&[lines()], Some(peers()), Theme::default());
    let dir = tempfile::tempdir().unwrap();
    let path = export_to(dir.path(), &app.turns, &ExportMeta::default()).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let block = &text[text
        .find("**Quarterly revenue and margin**\n\n*Two units: two panels.*\n\n```vega-lite\n")
        .unwrap()..];
    let body = &block[block.find("```vega-lite\n").unwrap() + 13..];
    let spec: Value = serde_json::from_str(&body[..body.find("\n```").unwrap()]).unwrap();
    assert_eq!(spec, lines()["vega_lite_spec"]);
    assert!(text.contains(
        "| company | ticker | growth_pct | forward_pe | segments |\n|---|---|---:|---:|---|\n"
    ));
    assert!(text.contains("| Lam Research | LRCX | 18 | 27 | {2 fields} |"));
}

#[test]
fn enter_on_a_charts_activity_line_opens_the_chart() {
    let mut app = support::app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    // The newest activity item is the second chart.
    keys(&mut app, "t");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.popup, Some(Popup::Chart { turn: 0, chart: 1 }));
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("Quarterly revenue and non-GAAP gross margin"),
        "{screen}"
    );
}

/// The line under a chart in the answer says what opens it full screen with the keys in force.
#[test]
fn the_line_under_a_chart_names_the_key_that_opens_it_in_force() {
    let mut app = shown(&[grouped_bars()], None, Theme::default());
    let default = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        default.contains("Enter or a click: full screen"),
        "{default}"
    );
    let mut app = shown(&[grouped_bars()], None, Theme::default());
    app.keys = research_tui::tui::state::keymap::Keymap::with_entries(&[(
        "enter".to_owned(),
        Some(vec!["f3".to_owned()]),
    )])
    .unwrap();
    let remapped = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        remapped.contains("F3 or a click: full screen"),
        "{remapped}"
    );
    assert!(!remapped.contains("Enter or a click"), "{remapped}");
}
