//! A CHART message: its spec and data points are kept as the JSON text they came in (a spec
//! can be megabytes, and a `Value` tree of it costs many times that), read here by borrowing
//! from the payload; the lenient path hands over a message already parsed.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::model::event::Chart;
use crate::model::json_text::JsonText;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    delta: Option<&'a RawValue>,
}

/// The fields of a CHART, each in both spellings the API generations use.
#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(borrow)]
    chart_id: Option<&'a RawValue>,
    #[serde(borrow, rename = "chartId")]
    chart_id_camel: Option<&'a RawValue>,
    #[serde(borrow)]
    title: Option<&'a RawValue>,
    #[serde(borrow)]
    caption: Option<&'a RawValue>,
    #[serde(borrow)]
    chart_type: Option<&'a RawValue>,
    #[serde(borrow, rename = "chartType")]
    chart_type_camel: Option<&'a RawValue>,
    #[serde(borrow)]
    start: Option<&'a RawValue>,
    #[serde(borrow)]
    end: Option<&'a RawValue>,
    #[serde(borrow)]
    vega_lite_spec: Option<&'a RawValue>,
    #[serde(borrow, rename = "vegaLiteSpec")]
    vega_lite_spec_camel: Option<&'a RawValue>,
    #[serde(borrow)]
    data_points: Option<&'a RawValue>,
    #[serde(borrow, rename = "dataPoints")]
    data_points_camel: Option<&'a RawValue>,
}

/// The chart in payload `data` (a `message` or `delta` envelope), or `data` back when its shape
/// is unusual and the lenient path must read it. The spec and data points sent as JSON share
/// the payload's text: it is kept once.
pub(super) fn decode_typed(data: String) -> Result<Chart, String> {
    let shared = Arc::new(data);
    read(&shared).ok_or_else(|| Arc::unwrap_or_clone(shared))
}

fn read(shared: &Arc<String>) -> Option<Chart> {
    let envelope: Envelope = serde_json::from_str(shared).ok()?;
    let body = envelope.message.or(envelope.delta)?;
    let wire: Wire = serde_json::from_str(body.get()).ok()?;
    let spec = wire.vega_lite_spec.or(wire.vega_lite_spec_camel);
    let points = wire.data_points.or(wire.data_points_camel);
    Some(Chart {
        chart_id: text(wire.chart_id).or_else(|| text(wire.chart_id_camel)),
        title: text(wire.title),
        caption: text(wire.caption),
        chart_type: text(wire.chart_type).or_else(|| text(wire.chart_type_camel)),
        start: wire.start.and_then(|v| serde_json::from_str(v.get()).ok()),
        end: wire.end.and_then(|v| serde_json::from_str(v.get()).ok()),
        spec: spec.and_then(|spec| spec_of(shared, spec)),
        data_points: points
            .filter(|p| p.get() != "null")
            .and_then(|p| JsonText::part_of(shared, p)),
        ..Chart::default()
    })
}

/// A string (or number) field; empty strings are absent.
fn text(raw: Option<&RawValue>) -> Option<String> {
    let raw = raw?.get();
    if raw.starts_with('"') {
        serde_json::from_str::<String>(raw)
            .ok()
            .filter(|s| !s.is_empty())
    } else {
        serde_json::from_str::<serde_json::Number>(raw)
            .ok()
            .map(|n| n.to_string())
    }
}

/// A spec sent as an object, or as JSON text in a string.
fn spec_of(shared: &Arc<String>, raw: &RawValue) -> Option<JsonText> {
    match raw.get() {
        "null" => None,
        quoted if quoted.starts_with('"') => {
            JsonText::parse(&serde_json::from_str::<String>(quoted).ok()?)
        }
        _ => JsonText::part_of(shared, raw),
    }
}

/// A CHART the lenient path parsed: the same fields from a `Value` message.
pub(super) fn decode_lenient(msg: Map<String, Value>) -> Chart {
    let offset = |key: &str| msg.get(key).and_then(Value::as_u64);
    let field = |keys: &[&str]| keys.iter().find_map(|key| msg.get(*key));
    let spec = match field(&["vega_lite_spec", "vegaLiteSpec"]) {
        Some(Value::String(text)) => JsonText::parse(text),
        Some(Value::Null) | None => None,
        Some(spec) => Some(JsonText::from(spec)),
    };
    Chart {
        chart_id: super::string_of(&msg, &["chart_id", "chartId"]),
        title: super::string_of(&msg, &["title"]),
        caption: super::string_of(&msg, &["caption"]),
        chart_type: super::string_of(&msg, &["chart_type", "chartType"]),
        start: offset("start"),
        end: offset("end"),
        spec,
        data_points: field(&["data_points", "dataPoints"])
            .filter(|v| !v.is_null())
            .map(JsonText::from),
        ..Chart::default()
    }
}
