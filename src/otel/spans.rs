//! A saved turn read from the store into the SDK's span data: the files (raw stream, arrival
//! times, meta) are read here, the spans decided by the pure [`crate::render::trace`].

use std::borrow::Cow;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanLinks};

use crate::local::store::{SavedSession, SessionStore};
use crate::render::trace::{self, AttrValue, SpanSpec, TimedTurn, TurnFacts};
use crate::wire::arrivals::Arrivals;
use crate::wire::redact::Secret;

/// The session saved in `dir` (its folder in the store).
pub fn load(dir: &Path) -> Option<SavedSession> {
    let id = dir.file_name()?.to_str()?;
    SessionStore::new(dir.parent()?).load(id).ok()
}

/// Turn `index` of `saved` as spans, or `None` when it has no stream to read.
pub fn saved_turn(
    saved: &SavedSession,
    index: usize,
    content: bool,
    secret: &Secret,
) -> Option<Vec<SpanSpec>> {
    let meta = saved.meta.turns.get(index)?;
    let path = saved.stream_path(meta)?;
    let file =
        crate::local::session_files::open_regular(&path, crate::local::store::MAX_TURN_BYTES)
            .ok()?;
    // Older turns have no arrival times: the turn then spans from its start to its end as the
    // meta says (to the second), its steps at its start.
    let started = crate::local::timestamp::unix_seconds(&meta.started_at);
    let arrivals = saved.arrivals(meta).unwrap_or_else(|| Arrivals {
        sent_unix_ms: started.map(|s| s * 1000),
        marks: Vec::new(),
    });
    let provider = saved.provider();
    let turn = TimedTurn::read(
        std::io::BufReader::new(file),
        provider,
        &arrivals,
        secret.clone(),
    )
    .ok()?;
    let facts = TurnFacts {
        session_id: &saved.meta.id,
        turn: index,
        provider,
        model: saved.meta.options.model.as_deref(),
        question: &meta.question,
        sent_unix_ms: arrivals.sent_unix_ms.or(started.map(|s| s * 1000))?,
        content,
        secret,
    };
    let mut spans = trace::turn_spans(&facts, &turn);
    if arrivals.is_empty()
        && let (Some(root), Some(ended)) = (
            spans.first_mut(),
            meta.ended_at
                .as_deref()
                .and_then(crate::local::timestamp::unix_seconds),
        )
    {
        root.end_unix_ns = root.end_unix_ns.max(ended * 1_000_000_000);
    }
    Some(spans)
}

/// The spans of one turn as the SDK's span data: one new trace, the root's children under it.
pub fn to_span_data(specs: Vec<SpanSpec>, scope: &InstrumentationScope) -> Vec<SpanData> {
    let ids = RandomIdGenerator::default();
    let trace_id = ids.new_trace_id();
    let span_ids: Vec<SpanId> = specs.iter().map(|_| ids.new_span_id()).collect();
    specs
        .into_iter()
        .enumerate()
        .map(|(i, spec)| {
            let context = SpanContext::new(
                trace_id,
                span_ids[i],
                TraceFlags::SAMPLED,
                false,
                TraceState::NONE,
            );
            SpanData {
                span_context: context,
                parent_span_id: spec.parent.map_or(SpanId::INVALID, |p| span_ids[p]),
                parent_span_is_remote: false,
                span_kind: match spec.kind {
                    trace::SpanKind::Client => SpanKind::Client,
                    trace::SpanKind::Internal => SpanKind::Internal,
                },
                name: Cow::Owned(spec.name),
                start_time: time(spec.start_unix_ns),
                end_time: time(spec.end_unix_ns),
                attributes: key_values(spec.attributes),
                dropped_attributes_count: 0,
                events: span_events(spec.events),
                links: SpanLinks::default(),
                status: match spec.status {
                    trace::SpanStatus::Unset => Status::Unset,
                    trace::SpanStatus::Ok => Status::Ok,
                    trace::SpanStatus::Error(description) => Status::error(description),
                },
                instrumentation_scope: scope.clone(),
            }
        })
        .collect()
}

fn span_events(events: Vec<trace::SpanEvent>) -> SpanEvents {
    let mut out = SpanEvents::default();
    out.events = events
        .into_iter()
        .map(|e| {
            opentelemetry::trace::Event::new(e.name, time(e.unix_ns), key_values(e.attributes), 0)
        })
        .collect();
    out
}

fn time(unix_ns: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(unix_ns)
}

fn key_values(attributes: Vec<trace::Attr>) -> Vec<KeyValue> {
    attributes
        .into_iter()
        .map(|(name, value)| match value {
            AttrValue::Str(text) => KeyValue::new(name, text),
            AttrValue::Int(n) => KeyValue::new(name, n),
        })
        .collect()
}
