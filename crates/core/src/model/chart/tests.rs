//! The Vega-Lite subset on specs shaped like the agent's and like Vega-Lite's own examples
//! (bar, grouped bar, stacked bar, line, area, point, layer, fold), and the fallbacks.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn chart(spec: Value) -> Chart {
    Chart {
        spec: Some(spec.into()),
        ..Chart::default()
    }
}

fn drawn(spec: Value) -> Drawing {
    match interpret(&chart(spec)) {
        ChartView::Drawn(drawing) => drawing.clone(),
        ChartView::Undrawable(why) => panic!("not drawn: {why}"),
    }
}

fn undrawable(spec: Value) -> String {
    match interpret(&chart(spec)) {
        ChartView::Undrawable(why) => why.clone(),
        ChartView::Drawn(drawing) => panic!("drawn: {drawing:?}"),
    }
}

/// Vega-Lite's "Simple Bar Chart" example.
#[test]
fn a_simple_bar_chart_reads_categories_in_ascending_order() {
    let d = drawn(json!({
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": [
            {"a": "C", "b": 2}, {"a": "A", "b": 28}, {"a": "B", "b": 55}
        ]},
        "mark": "bar",
        "encoding": {
            "x": {"field": "a", "type": "nominal", "axis": {"labelAngle": 0}},
            "y": {"field": "b", "type": "quantitative"}
        }
    }));
    assert_eq!(d.mark, Mark::Bar);
    assert_eq!(d.categories(), ["A", "B", "C"]);
    assert_eq!(d.series.len(), 1);
    assert_eq!(d.series[0].name, None);
    assert_eq!(d.series[0].points, [(0.0, 28.0), (1.0, 55.0), (2.0, 2.0)]);
    assert_eq!(d.x.title.as_deref(), Some("a"));
    assert_eq!(d.y_bounds(), (0.0, 55.0));
}

/// The agent's shape: a titled axis with its unit, `sort: null` keeping fiscal quarters in order.
#[test]
fn an_axis_title_gives_the_unit_and_sort_null_keeps_the_data_order() {
    let d = drawn(json!({
        "data": {"values": [
            {"quarter": "Q1 FY26", "revenue": 44.1},
            {"quarter": "Q4 FY26", "revenue": 68.1},
            {"quarter": "Q1 FY27", "revenue": 73.2}
        ]},
        "mark": {"type": "line", "point": true},
        "encoding": {
            "x": {"field": "quarter", "type": "ordinal", "sort": null, "title": "Fiscal quarter"},
            "y": {"field": "revenue", "type": "quantitative", "title": "Revenue ($B)"}
        }
    }));
    assert_eq!(d.mark, Mark::Line);
    assert_eq!(d.categories(), ["Q1 FY26", "Q4 FY26", "Q1 FY27"]);
    assert_eq!(d.y.unit.as_deref(), Some("$B"));
    assert_eq!(d.x.title.as_deref(), Some("Fiscal quarter"));
}

/// Vega-Lite's "Grouped Bar Chart (Multiple Measure with Repeat)" shape with xOffset.
#[test]
fn x_offset_groups_bars_side_by_side() {
    let d = drawn(json!({
        "data": {"values": [
            {"category": "A", "group": "x", "value": 0.1},
            {"category": "A", "group": "y", "value": 0.6},
            {"category": "B", "group": "x", "value": 0.7},
            {"category": "B", "group": "y", "value": 0.2}
        ]},
        "mark": "bar",
        "encoding": {
            "x": {"field": "category"},
            "y": {"field": "value", "type": "quantitative"},
            "xOffset": {"field": "group"},
            "color": {"field": "group"}
        }
    }));
    assert!(!d.stacked);
    assert!(d.has_legend());
    let names: Vec<_> = d.series.iter().map(|s| s.name.clone().unwrap()).collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(d.value_at(1, 0), Some(0.6));
}

/// Vega-Lite's "Stacked Bar Chart" shape: colour alone stacks bars; duplicates are summed.
#[test]
fn colour_alone_stacks_bars_and_sums_repeated_values() {
    let d = drawn(json!({
        "data": {"values": [
            {"year": 2024, "segment": "Data Center", "rev": 100},
            {"year": 2024, "segment": "Gaming", "rev": 10},
            {"year": 2025, "segment": "Data Center", "rev": 150},
            {"year": 2025, "segment": "Data Center", "rev": 15},
            {"year": 2025, "segment": "Gaming", "rev": 12}
        ]},
        "mark": "bar",
        "encoding": {
            "x": {"field": "year", "type": "ordinal"},
            "y": {"field": "rev", "type": "quantitative", "aggregate": "sum"},
            "color": {"field": "segment", "type": "nominal"}
        }
    }));
    assert!(d.stacked);
    assert_eq!(d.categories(), ["2024", "2025"]);
    assert_eq!(d.value_at(0, 1), Some(165.0));
    assert_eq!(d.stack_totals(), [(110.0, 0.0), (177.0, 0.0)]);
    assert_eq!(d.y_bounds(), (0.0, 177.0));
    assert_eq!(d.y.title.as_deref(), Some("Sum of rev"));
}

#[test]
fn a_normalized_stack_draws_shares_in_percent() {
    let d = drawn(json!({
        "data": {"values": [
            {"c": "a", "s": "p", "v": 1}, {"c": "a", "s": "q", "v": 3}
        ]},
        "mark": "bar",
        "encoding": {
            "x": {"field": "c", "type": "nominal"},
            "y": {"field": "v", "type": "quantitative", "stack": "normalize"},
            "color": {"field": "s"}
        }
    }));
    assert_eq!(d.y.unit.as_deref(), Some("%"));
    assert_eq!(d.value_at(1, 0), Some(75.0));
}

#[test]
fn horizontal_bars_put_the_categories_on_the_domain() {
    let d = drawn(json!({
        "data": {"values": [{"n": "ASML", "pe": 32}, {"n": "AMAT", "pe": 21}]},
        "mark": "bar",
        "encoding": {
            "y": {"field": "n", "type": "nominal", "sort": "-x"},
            "x": {"field": "pe", "type": "quantitative", "title": "P/E (x)"}
        }
    }));
    assert_eq!(d.categories(), ["ASML", "AMAT"]);
    assert_eq!(d.y.title.as_deref(), Some("P/E (x)"));
}

/// Vega-Lite's "Multi Series Line Chart" (stocks by symbol) over temporal dates.
#[test]
fn temporal_lines_split_by_colour_are_ordered_by_date() {
    let d = drawn(json!({
        "data": {"values": [
            {"symbol": "MSFT", "date": "2024-02-01", "price": 40},
            {"symbol": "MSFT", "date": "2024-01-01", "price": 39},
            {"symbol": "AAPL", "date": "2024-01-01", "price": 90}
        ]},
        "mark": "line",
        "encoding": {
            "x": {"field": "date", "type": "temporal"},
            "y": {"field": "price", "type": "quantitative"},
            "color": {"field": "symbol", "type": "nominal"}
        }
    }));
    assert!(!d.stacked);
    assert_eq!(d.categories(), ["2024-01-01", "2024-02-01"]);
    assert_eq!(d.series[1].name.as_deref(), Some("MSFT"));
    assert_eq!(d.series[1].points, [(0.0, 39.0), (1.0, 40.0)]);
}

/// Vega-Lite's "Stacked Area Chart" shape.
#[test]
fn areas_split_by_colour_stack() {
    let d = drawn(json!({
        "data": {"values": [
            {"t": 1, "k": "a", "v": 1}, {"t": 1, "k": "b", "v": 2},
            {"t": 2, "k": "a", "v": 2}, {"t": 2, "k": "b", "v": 2}
        ]},
        "mark": "area",
        "encoding": {
            "x": {"field": "t", "type": "ordinal"},
            "y": {"field": "v", "type": "quantitative"},
            "color": {"field": "k"}
        }
    }));
    assert_eq!(d.mark, Mark::Area);
    assert!(d.stacked);
}

/// Vega-Lite's "Scatterplot" (cars: horsepower against miles per gallon).
#[test]
fn two_quantitative_axes_make_a_numeric_scatter() {
    let d = drawn(json!({
        "data": {"values": [
            {"Horsepower": 130, "Miles_per_Gallon": 18, "Origin": "USA"},
            {"Horsepower": 95, "Miles_per_Gallon": 24, "Origin": "Japan"},
            {"Horsepower": "n/a", "Miles_per_Gallon": 30, "Origin": "Japan"}
        ]},
        "mark": "point",
        "encoding": {
            "x": {"field": "Horsepower", "type": "quantitative"},
            "y": {"field": "Miles_per_Gallon", "type": "quantitative"},
            "color": {"field": "Origin", "type": "nominal"}
        }
    }));
    assert_eq!(d.mark, Mark::Point);
    assert_eq!(d.domain, Domain::Numbers);
    assert_eq!(d.series.len(), 2);
    assert_eq!(d.x_bounds(), (95.0, 130.0));
}

/// The agent's revenue-and-margin shape: two layers over one x axis, a text layer of labels.
#[test]
fn layers_share_the_x_axis_and_name_their_series_by_their_y_title() {
    let d = drawn(json!({
        "data": {"values": [
            {"q": "Q4 FY26", "rev": 68.1, "gm": 73.5},
            {"q": "Q1 FY27", "rev": 73.2, "gm": 75.1}
        ]},
        "encoding": {"x": {"field": "q", "type": "ordinal", "sort": null}},
        "layer": [
            {"mark": "bar", "encoding": {"y": {"field": "rev", "type": "quantitative", "title": "Revenue ($B)"}}},
            {"mark": {"type": "line", "color": "orange"},
             "encoding": {"y": {"field": "gm", "type": "quantitative", "title": "Gross margin (%)"}}},
            {"mark": "text", "encoding": {"text": {"field": "rev"}}}
        ]
    }));
    assert_eq!(d.mark, Mark::Bar);
    assert_eq!(d.series.len(), 2);
    assert_eq!(d.series[0].name.as_deref(), Some("Revenue ($B)"));
    assert_eq!(d.series[1].mark, Mark::Line);
    assert_eq!(d.series[1].name.as_deref(), Some("Gross margin (%)"));
}

/// Vega-Lite's fold example, and Altair's `datasets` indirection.
#[test]
fn fold_turns_wide_rows_into_series_from_a_named_dataset() {
    let d = drawn(json!({
        "data": {"name": "data-1"},
        "datasets": {"data-1": [
            {"company": "ASML", "FY24": 28.3, "FY25": 32.7},
            {"company": "LRCX", "FY24": 14.9, "FY25": 18.4}
        ]},
        "transform": [{"fold": ["FY24", "FY25"], "as": ["year", "revenue"]}],
        "mark": "bar",
        "encoding": {
            "x": {"field": "company", "type": "nominal"},
            "xOffset": {"field": "year"},
            "y": {"field": "revenue", "type": "quantitative", "axis": {"format": "$.1f"}},
            "color": {"field": "year", "type": "nominal"}
        }
    }));
    assert_eq!(d.series.len(), 2);
    assert_eq!(d.value_at(1, 1), Some(18.4));
    assert_eq!(d.y.unit.as_deref(), Some("$"));
}

#[test]
fn what_cannot_be_drawn_says_why() {
    assert!(undrawable(json!({"mark": "arc", "data": {"values": [{"a": 1}]}})).contains("arc"));
    assert!(
        undrawable(json!({"data": {"url": "data/cars.json"}, "mark": "point"})).contains("URL")
    );
    let filter =
        json!({"data": {"values": []}, "transform": [{"filter": "datum.a > 1"}], "mark": "bar"});
    assert!(undrawable(filter).contains("filter"));
    assert!(undrawable(json!({"hconcat": []})).contains("hconcat"));
    let nominal = json!({
        "data": {"values": [{"a": "x", "b": "y"}]}, "mark": "bar",
        "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "nominal"}}
    });
    assert!(undrawable(nominal).contains("quantitative"));
    assert_eq!(
        *interpret(&Chart::default()),
        ChartView::Undrawable("no spec and no data points".into())
    );
}

#[test]
fn data_points_are_drawn_when_the_spec_is_not() {
    let chart = Chart {
        chart_type: Some("grouped_bar".into()),
        spec: Some(json!({"mark": "arc"}).into()),
        data_points: Some(
            json!([
                {"label": "ASML", "FY24": 28.3, "FY25": 32.7},
                {"label": "LRCX", "FY24": 14.9, "FY25": 18.4}
            ])
            .into(),
        ),
        ..Chart::default()
    };
    let ChartView::Drawn(d) = interpret(&chart) else {
        panic!("not drawn");
    };
    assert_eq!(d.mark, Mark::Bar);
    assert_eq!(d.categories(), ["ASML", "LRCX"]);
    assert_eq!(d.series[1].name.as_deref(), Some("FY25"));
    let pairs = Chart {
        chart_type: Some("line".into()),
        data_points: Some(json!([[1, 2.0], [2, 3.5]]).into()),
        ..Chart::default()
    };
    let ChartView::Drawn(d) = interpret(&pairs) else {
        panic!("not drawn");
    };
    assert_eq!(d.domain, Domain::Numbers);
    assert_eq!(d.series[0].points, [(1.0, 2.0), (2.0, 3.5)]);
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>().prop_map(|f| json!(f)),
        any::<i64>().prop_map(|i| json!(i)),
        prop::sample::select(vec![
            "bar",
            "line",
            "area",
            "point",
            "x",
            "y",
            "color",
            "quantitative",
            "nominal",
            "temporal",
            "values",
            "data",
            "mark",
            "encoding",
            "field",
            "layer",
            "fold",
            "normalize",
            "-y",
            "2024",
            "",
        ])
        .prop_map(|s| json!(s)),
        ".*".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        let keys = prop::sample::select(vec![
            "data",
            "values",
            "mark",
            "type",
            "encoding",
            "x",
            "y",
            "color",
            "xOffset",
            "field",
            "sort",
            "stack",
            "aggregate",
            "layer",
            "transform",
            "fold",
            "as",
            "datasets",
            "name",
            "title",
            "axis",
            "format",
            "a",
            "b",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys, inner), 0..6).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #[test]
    fn any_json_as_a_spec_or_data_points_never_panics(spec in arbitrary_json(), points in arbitrary_json()) {
        let chart = Chart {
            chart_type: Some("stacked_bar".into()),
            spec: Some(spec.into()),
            data_points: Some(points.into()),
            ..Chart::default()
        };
        if let ChartView::Drawn(d) = interpret(&chart) {
            let (lo, hi) = d.y_bounds();
            prop_assert!(lo <= hi);
            prop_assert!(d.series.len() <= MAX_SERIES);
        }
    }
}

#[test]
fn layers_in_different_units_are_drawn_as_panels_with_their_own_scale() {
    let d = drawn(json!({
        "data": {"values": [
            {"q": "Q4 FY26", "rev": 68.1, "gm": 73.5, "om": 65.0},
            {"q": "Q1 FY27", "rev": 73.2, "gm": 75.1, "om": 66.2}
        ]},
        "encoding": {"x": {"field": "q", "type": "ordinal", "sort": null}},
        "layer": [
            {"mark": "line", "encoding": {"y": {"field": "rev", "type": "quantitative", "title": "Revenue ($B)"}}},
            {"mark": "line", "encoding": {"y": {"field": "gm", "type": "quantitative", "title": "Gross margin (%)"}}},
            {"mark": "line", "encoding": {"y": {"field": "om", "type": "quantitative", "title": "Operating margin (%)"}}}
        ],
        "resolve": {"scale": {"y": "independent"}}
    }));
    let panels = d.panels();
    assert_eq!(panels.len(), 2);
    assert_eq!(panels[0].y.unit.as_deref(), Some("$B"));
    assert_eq!(panels[1].y.unit.as_deref(), Some("%"));
    assert_eq!(panels[1].series.len(), 2);
    assert_eq!(panels[1].y.title, None);
    assert_eq!(panels[1].categories(), ["Q4 FY26", "Q1 FY27"]);
}
