//! A test OTLP/HTTP receiver on 127.0.0.1: every request it gets decoded with the OpenTelemetry
//! protobuf definitions (opentelemetry-proto's prost messages), never matched as text; and a port
//! that refuses connections, for a dead collector.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::HeaderMap;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// What the receiver got: each request's headers and decoded body.
#[derive(Clone, Default)]
pub struct Got(Arc<Mutex<Vec<(HeaderMap, Bytes)>>>);

impl Got {
    pub fn requests(&self) -> Vec<(HeaderMap, ExportTraceServiceRequest)> {
        let got = self.0.lock().unwrap().clone();
        got.into_iter()
            .map(|(headers, body)| {
                let request = ExportTraceServiceRequest::decode(body).expect("an OTLP request");
                (headers, request)
            })
            .collect()
    }

    /// Every span received, with its resource's `service.name`.
    pub fn spans(&self) -> Vec<Span> {
        let mut spans = Vec::new();
        for (_, request) in self.requests() {
            for resource in request.resource_spans {
                let service = resource
                    .resource
                    .as_ref()
                    .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
                    .and_then(|kv| kv.value.as_ref()?.value.clone());
                assert_eq!(service, Some(Any::StringValue("research-tui".into())));
                for scope in resource.scope_spans {
                    spans.extend(scope.spans);
                }
            }
        }
        spans
    }

    pub fn roots(&self) -> Vec<Span> {
        let mut roots: Vec<Span> = self
            .spans()
            .into_iter()
            .filter(|s| s.parent_span_id.is_empty())
            .collect();
        roots.sort_by_key(|s| s.start_time_unix_nano);
        roots
    }

    pub fn raw(&self) -> Vec<u8> {
        let got = self.0.lock().unwrap();
        got.iter().flat_map(|(_, body)| body.to_vec()).collect()
    }
}

/// An OTLP/HTTP receiver on 127.0.0.1: `hang` accepts each request and never answers.
pub async fn receiver(hang: bool) -> (String, Got) {
    let got = Got::default();
    let sink = got.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let sink = sink.clone();
            async move {
                if hang {
                    std::future::pending::<()>().await;
                }
                sink.0.lock().unwrap().push((headers, body));
                (
                    [("content-type", "application/x-protobuf")],
                    Vec::<u8>::new(),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), got)
}

/// A port on 127.0.0.1 nothing listens on: connections are refused.
pub fn refused() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

pub fn attr(span: &Span, key: &str) -> Option<Any> {
    attr_in(&span.attributes, key)
}

pub fn attr_in(
    attributes: &[opentelemetry_proto::tonic::common::v1::KeyValue],
    key: &str,
) -> Option<Any> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.clone())
}

pub fn text(span: &Span, key: &str) -> String {
    match attr(span, key) {
        Some(Any::StringValue(s)) => s,
        other => panic!("{key} of {:?} is {other:?}", span.name),
    }
}

pub fn int(span: &Span, key: &str) -> i64 {
    match attr(span, key) {
        Some(Any::IntValue(n)) => n,
        other => panic!("{key} of {:?} is {other:?}", span.name),
    }
}

/// Whether `needle` is anywhere in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Each span of the turn whose root is `root`.
pub fn children<'a>(spans: &'a [Span], root: &Span) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|s| s.trace_id == root.trace_id && s.parent_span_id == root.span_id)
        .collect()
}
