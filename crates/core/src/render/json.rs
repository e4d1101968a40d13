//! `--format json`: one object for scripts. Text is exact (JSON escaping makes it safe).
//! Serialised straight from borrowed data: no intermediate `Value` tree, no copy of the answer.

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::citations::Attribution;
use crate::model::event::Chart;
use crate::model::json_text::JsonText;
use crate::model::session::Session;
use crate::model::timeline::Timeline;

#[derive(Serialize)]
struct Document<'a> {
    chat_id: Option<&'a str>,
    execution_id: Option<&'a str>,
    status: &'static str,
    error: Option<&'a str>,
    checkpoint_id: Option<&'a str>,
    plan: Option<PlanOut<'a>>,
    answer: &'a str,
    sources: Vec<SourceOut<'a>>,
    citations: Vec<CitationOut<'a>>,
    structured_output: Option<&'a Value>,
    charts: Vec<ChartOut<'a>>,
    consumption: Option<Vec<&'a Value>>,
    tool_errors: Vec<ToolErrorOut<'a>>,
    stats: StatsOut,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    consulted_sources: Vec<ConsultedOut<'a>>,
    /// When each phase happened, when the arrival times are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    timeline: Option<Value>,
}

/// A chart as sent: its spec, and its data (`data_points`, else the spec's inline `data.values`).
#[derive(Serialize)]
struct ChartOut<'a> {
    id: Option<&'a str>,
    title: Option<&'a str>,
    caption: Option<&'a str>,
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    start: Option<u64>,
    end: Option<u64>,
    spec: Option<&'a RawValue>,
    data: Option<&'a RawValue>,
}

/// The part of a spec `data` reads: its inline `data.values`, borrowed from the spec's text.
#[derive(serde::Deserialize)]
struct InlineData<'a> {
    #[serde(borrow)]
    data: Option<InlineValues<'a>>,
}

#[derive(serde::Deserialize)]
struct InlineValues<'a> {
    #[serde(borrow)]
    values: Option<&'a RawValue>,
}

impl<'a> ChartOut<'a> {
    fn of(chart: &'a Chart) -> Self {
        let inline = || {
            let spec: InlineData = serde_json::from_str(chart.spec.as_ref()?.as_str()).ok()?;
            spec.data?.values
        };
        ChartOut {
            id: chart.chart_id.as_deref(),
            title: chart.title.as_deref(),
            caption: chart.caption.as_deref(),
            kind: chart.chart_type.as_deref(),
            start: chart.start,
            end: chart.end,
            spec: chart.spec.as_ref().map(JsonText::raw),
            data: chart
                .data_points
                .as_ref()
                .map(JsonText::raw)
                .or_else(inline),
        }
    }
}

#[derive(Serialize)]
struct PlanOut<'a> {
    title: Option<&'a str>,
    steps: Vec<StepOut<'a>>,
}

#[derive(Serialize)]
struct StepOut<'a> {
    description: &'a str,
    status: &'a str,
}

#[derive(Serialize)]
struct SourceOut<'a> {
    n: usize,
    key: &'a str,
    kind: Option<&'a str>,
    headline: Option<&'a str>,
    publisher: &'a str,
    date: Option<String>,
    url: Option<&'a str>,
    label: &'a str,
    /// Only when true: the answer cites it, but no span of it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    without_position: bool,
}

#[derive(Serialize)]
struct CitationOut<'a> {
    start: usize,
    end: usize,
    text: &'a str,
    source: Option<usize>,
    tool_name: Option<&'a str>,
    audit_id: Option<&'a str>,
    query: Option<&'a str>,
}

#[derive(Serialize)]
struct ToolErrorOut<'a> {
    tool_name: &'a str,
    error: &'a str,
}

#[derive(Serialize)]
struct StatsOut {
    events: usize,
    malformed: usize,
    unknown: usize,
    /// Events a resumed stream sent again, dropped (shown when there were some).
    #[serde(skip_serializing_if = "is_zero")]
    repeated: usize,
    invalid_references: usize,
}

#[derive(Serialize)]
struct ConsultedOut<'a> {
    key: &'a str,
    headline: Option<&'a str>,
    url: Option<&'a str>,
    label: &'a str,
}

pub fn render(session: &Session, attribution: &Attribution) -> String {
    let mut text =
        serde_json::to_string_pretty(&document(session, attribution)).unwrap_or_default();
    text.push('\n');
    text
}

/// Write the document to `out` as it is serialised, with no copy of the answer in memory. `outcome`
/// replaces the status and error with what the caller knows better (a stream that never finished).
pub fn write(
    session: &Session,
    attribution: &Attribution,
    outcome: Option<(&'static str, &str)>,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    write_timed(session, attribution, outcome, None, out)
}

/// [`write`], with the turn's `timeline` when its arrival times are known.
pub fn write_timed(
    session: &Session,
    attribution: &Attribution,
    outcome: Option<(&'static str, &str)>,
    timeline: Option<&Timeline>,
    mut out: impl std::io::Write,
) -> std::io::Result<()> {
    let mut doc = document(session, attribution);
    doc.timeline = timeline.map(Timeline::to_json);
    if let Some((status, error)) = outcome {
        doc.status = status;
        doc.error = Some(error);
    }
    serde_json::to_writer_pretty(&mut out, &doc)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The same document as a `Value`, for callers that post-process it.
pub fn to_value(session: &Session, attribution: &Attribution) -> Value {
    serde_json::to_value(document(session, attribution)).unwrap_or(Value::Null)
}

fn document<'a>(session: &'a Session, attribution: &'a Attribution) -> Document<'a> {
    let answer = session.answer.as_str();
    Document {
        chat_id: session.ids.chat_id.as_deref(),
        execution_id: session.ids.execution_id.as_deref(),
        status: session.status().as_str(),
        error: session.error.as_deref(),
        checkpoint_id: session.checkpoint_id(),
        plan: session.plan.as_ref().map(|plan| PlanOut {
            title: plan.title.as_deref(),
            steps: plan
                .steps
                .iter()
                .map(|step| StepOut {
                    description: &step.description,
                    status: step.status.as_wire(),
                })
                .collect(),
        }),
        answer,
        sources: attribution
            .numbered()
            .map(|source| SourceOut {
                n: source.n,
                key: &source.key,
                kind: source.kind.as_deref(),
                headline: source.headline.as_deref(),
                publisher: &source.publisher,
                date: source.date.map(|d| d.iso()),
                url: source.url.as_deref(),
                label: &source.label,
                without_position: source.unplaced(),
            })
            .collect(),
        citations: attribution
            .citations
            .iter()
            .map(|citation| CitationOut {
                start: citation.start,
                end: citation.end,
                text: citation.text(answer),
                source: citation.source,
                tool_name: citation.tool_name.as_deref(),
                audit_id: citation.audit_id.as_deref(),
                query: citation.query.as_deref(),
            })
            .collect(),
        structured_output: session.structured_output.as_ref().map(|s| &s.content),
        charts: session.charts.iter().map(ChartOut::of).collect(),
        consumption: session
            .completion
            .as_ref()
            .map(|c| c.consumption.iter().map(|item| &item.raw).collect()),
        tool_errors: session
            .tool_errors
            .iter()
            .map(|(tool_name, error)| ToolErrorOut { tool_name, error })
            .collect(),
        stats: StatsOut {
            events: session.stats.events,
            malformed: session.stats.malformed,
            unknown: session.stats.unknown,
            repeated: session.stats.repeated,
            invalid_references: attribution.invalid_references,
        },
        consulted_sources: attribution
            .sources
            .iter()
            .filter(|s| s.consulted_only)
            .map(|s| ConsultedOut {
                key: &s.key,
                headline: s.headline.as_deref(),
                url: s.url.as_deref(),
                label: &s.label,
            })
            .collect(),
        timeline: None,
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
