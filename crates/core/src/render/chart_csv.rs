//! A chart's data as CSV (RFC 4180) — what the app's `y` copies from a chart shown full screen: one
//! row per x value (category or number), one column per series, read from the same drawing the
//! displays draw. A chart that cannot be drawn has no CSV: its data points (or spec) as sent.

use crate::model::chart::{ChartView, Domain, interpret};
use crate::model::event::Chart;
use crate::render::sanitize::sanitize_line;

/// The chart's data as CSV with a header row, or, for a chart that cannot be read, its
/// `data_points` (else its spec) as the JSON text it came as; `None` when it has neither.
pub fn chart_data(chart: &Chart) -> Option<String> {
    let drawing = match interpret(chart) {
        ChartView::Drawn(drawing) => drawing,
        ChartView::Undrawable(_) => {
            let json = chart.data_points.as_ref().or(chart.spec.as_ref())?;
            return Some(json.pretty().into_owned());
        }
    };
    let x_name = drawing
        .x
        .title
        .clone()
        .unwrap_or_else(|| match drawing.domain {
            Domain::Categories(_) => "category".to_owned(),
            Domain::Numbers => "x".to_owned(),
        });
    let mut header = vec![x_name];
    for (i, series) in drawing.series.iter().enumerate() {
        let name = series.name.clone().or_else(|| series.axis.title.clone());
        header.push(name.unwrap_or_else(|| format!("series {}", i + 1)));
    }
    // Every x any series has, in order (a category's index, or the number).
    let mut xs: Vec<f64> = drawing
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|(x, _)| *x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut out = row(&header);
    for x in xs {
        let mut cells = vec![match &drawing.domain {
            Domain::Categories(labels) => labels.get(x as usize).cloned().unwrap_or_default(),
            Domain::Numbers => x.to_string(),
        }];
        for series in &drawing.series {
            let y = series.points.iter().find(|(px, _)| *px == x);
            cells.push(y.map_or_else(String::new, |(_, y)| y.to_string()));
        }
        out.push_str(&row(&cells));
    }
    Some(out)
}

/// One CSV line: fields with a comma, quote or line break quoted, quotes doubled; control
/// characters and the like taken out first (the text goes to a clipboard a person pastes).
fn row(fields: &[String]) -> String {
    let cells: Vec<String> = fields
        .iter()
        .map(|field| {
            let field = sanitize_line(field);
            if field.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", field.replace('"', "\"\""))
            } else {
                field.into_owned()
            }
        })
        .collect();
    format!("{}\n", cells.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::json_text::JsonText;

    fn chart(spec: &str) -> Chart {
        Chart {
            chart_id: None,
            title: Some("Revenue".into()),
            caption: None,
            chart_type: Some("bar".into()),
            start: None,
            end: None,
            spec: JsonText::parse(spec),
            data_points: None,
            view: Default::default(),
        }
    }

    #[test]
    fn a_bar_chart_is_one_row_per_category_with_a_header() {
        let spec = r#"{"mark":"bar","data":{"values":[{"segment":"Data center, GPUs","revenue":39.1},{"segment":"Gaming","revenue":3.8}]},"encoding":{"x":{"field":"segment","type":"nominal"},"y":{"field":"revenue","type":"quantitative"}}}"#;
        let csv = chart_data(&chart(spec)).unwrap();
        assert_eq!(
            csv,
            "segment,revenue\n\"Data center, GPUs\",39.1\nGaming,3.8\n"
        );
    }

    #[test]
    fn a_chart_that_cannot_be_read_is_its_json_as_sent() {
        let csv = chart_data(&chart(r#"{"mark":"arc"}"#)).unwrap();
        assert!(csv.contains("\"mark\""), "{csv}");
    }
}
