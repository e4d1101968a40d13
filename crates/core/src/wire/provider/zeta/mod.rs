//! Zeta Alpha chat streams (`POST /v0/service/chat/stream?tenant=T`): `event: new_message` whose data
//! is the **whole bot message so far**, plus `stream_status` and `error` control events.
//!
//! - Every `new_message` replaces the answer ([`AgentEvent::AnswerReplace`]) and all references
//!   ([`AgentEvent::GroundingReplace`]): early versions may carry raw text that the final one rewrites.
//! - On a message with `evidences`, every occurrence of each `anchor_text` in its `content` is a
//!   citation whose span is the anchor itself ([`Reference::marker`]); the anchor format is never
//!   assumed (`<sup>1</sup>`, `[[1]]`, `[a1b2c3d4]`, …). Sources are keyed by `document_hit_url`,
//!   kept as sent (relative to the API host, or `custom://ID`); `text_extract` keeps its `<b>…</b>`.
//! - Evidences belong to their message: a stream with several `message_id`s keeps one content and
//!   one set of evidences per message; the answer is the messages' contents in order, separated by
//!   a blank line, and each message's anchors are looked for in its own content only.
//! - `content_parts` of type `tool` show as tool calls, and as traces when their status changes.
//! - `error` ends with an error; `stream_status` is informational unless it says the stream is done
//!   (or failed). A stream that ends cleanly after a message is complete; one cut mid-way is not.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::model::event::{AgentEvent, AuditTrace, ConversationIds, Reference, SourceDoc};
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;

/// The production API host; relative `document_hit_url`s open against it.
pub const DEFAULT_BASE_URL: &str = "https://api.zeta-alpha.com";
/// The agent asked for when none is configured.
pub const DEFAULT_AGENT: &str = "chat_with_dynamic_retrieval";

#[derive(Debug, Default)]
struct Message {
    id: Option<String>,
    content: String,
    /// Offsets relative to this message's content.
    references: Vec<Reference>,
    tools: Vec<ToolState>,
    /// Evidence URLs already reported as consulted (anchor not in the content).
    consulted: HashSet<String>,
}

#[derive(Debug, Default)]
struct ToolState {
    status: Option<String>,
    display: Option<String>,
}

#[derive(Debug, Default)]
pub struct ZetaDialect {
    session_id: Option<String>,
    messages: Vec<Message>,
    answer: String,
    references: Vec<Reference>,
    saw_message: bool,
    /// Complete or Error was emitted.
    ended: bool,
}

impl Dialect for ZetaDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let before = out.len();
        let kind = if event.event.is_empty() {
            "message".to_owned()
        } else {
            event.event.clone()
        };
        self.decode_event(event, out);
        if out.len() == before {
            // A status, or a message identical to the last one: still one payload received.
            out.push(AgentEvent::Progress { kind });
        }
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        if clean && self.saw_message && !self.ended {
            self.complete(out);
        }
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::Zeta)
    }
}

impl ZetaDialect {
    fn decode_event(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let data = event.data.trim();
        match event.event.as_str() {
            "error" => {
                self.ended = true;
                out.push(AgentEvent::Error {
                    message: error_text(data),
                });
            }
            "stream_status" => self.stream_status(data, out),
            name => {
                if data.is_empty() || data == "[DONE]" {
                    return;
                }
                let object = match serde_json::from_str::<Value>(data) {
                    Ok(Value::Object(object)) => object,
                    Ok(_) => {
                        out.push(AgentEvent::Malformed {
                            reason: "payload is not a JSON object".into(),
                        });
                        return;
                    }
                    Err(e) => {
                        out.push(AgentEvent::Malformed {
                            reason: format!("not valid JSON: {e}"),
                        });
                        return;
                    }
                };
                let looks_like_message = ["sender", "content", "content_parts", "evidences"]
                    .iter()
                    .any(|key| object.contains_key(*key));
                if name == "new_message" || (name.is_empty() && looks_like_message) {
                    self.message(object, &event.id, out);
                } else {
                    out.push(AgentEvent::Unknown {
                        kind: if name.is_empty() { "message" } else { name }.to_owned(),
                    });
                }
            }
        }
    }

    fn complete(&mut self, out: &mut Vec<AgentEvent>) {
        self.ended = true;
        out.push(AgentEvent::Complete {
            checkpoint_id: None,
            consumption: Vec::new(),
        });
    }

    fn stream_status(&mut self, data: &str, out: &mut Vec<AgentEvent>) {
        let status = match serde_json::from_str::<Value>(data) {
            Ok(Value::Object(object)) => ["status", "state", "stream_status"]
                .iter()
                .find_map(|key| object.get(*key).and_then(Value::as_str))
                .unwrap_or_default()
                .to_owned(),
            Ok(Value::String(s)) => s,
            _ => data.to_owned(),
        };
        let status = status.trim().to_ascii_lowercase();
        if self.ended {
            return;
        }
        const DONE: [&str; 10] = [
            "done",
            "complete",
            "completed",
            "finished",
            "end",
            "ended",
            "closed",
            "stopped",
            "success",
            "succeeded",
        ];
        const FAILED: [&str; 7] = [
            "error",
            "failed",
            "failure",
            "cancelled",
            "canceled",
            "aborted",
            "timeout",
        ];
        if DONE.contains(&status.as_str()) {
            self.complete(out);
        } else if FAILED.contains(&status.as_str()) {
            self.ended = true;
            out.push(AgentEvent::Error {
                message: format!("the stream ended with status `{status}`"),
            });
        }
    }

    fn message(&mut self, mut object: Map<String, Value>, sse_id: &str, out: &mut Vec<AgentEvent>) {
        if object
            .get("sender")
            .and_then(Value::as_str)
            .is_some_and(|sender| sender == "user")
        {
            return;
        }
        self.saw_message = true;
        if let Some(session) = string(&object, "session_id")
            && self.session_id.as_deref() != Some(session.as_str())
        {
            self.session_id = Some(session.clone());
            out.push(AgentEvent::Conversation(ConversationIds {
                chat_id: Some(session),
                ..ConversationIds::default()
            }));
        }
        let id = string(&object, "message_id").or_else(|| message_id_of(sse_id));
        let index = match &id {
            Some(id) => match self
                .messages
                .iter()
                .position(|m| m.id.as_deref() == Some(id.as_str()))
            {
                Some(index) => index,
                None => self.new_message(Some(id.clone())),
            },
            None if self.messages.is_empty() => self.new_message(None),
            None => self.messages.len() - 1,
        };
        let parts = match object.remove("content_parts") {
            Some(Value::Array(parts)) => parts,
            _ => Vec::new(),
        };
        let content = match object.remove("content") {
            Some(Value::String(content)) => content,
            _ => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| {
                    p.get("text")
                        .or_else(|| p.get("content"))
                        .and_then(Value::as_str)
                })
                .collect(),
        };
        self.tools(index, &parts, out);
        let evidences = match object.remove("evidences") {
            Some(Value::Array(evidences)) => evidences,
            _ => Vec::new(),
        };
        let (references, unplaced) = cite(&content, &evidences);
        let message = &mut self.messages[index];
        message.content = content;
        message.references = references;
        let fresh: Vec<SourceDoc> = unplaced
            .into_iter()
            .filter(|doc| {
                message
                    .consulted
                    .insert(doc.url.clone().unwrap_or_default())
            })
            .collect();
        if !fresh.is_empty() {
            out.push(AgentEvent::Consulted(fresh));
        }
        self.publish(out);
    }

    fn new_message(&mut self, id: Option<String>) -> usize {
        self.messages.push(Message {
            id,
            ..Message::default()
        });
        self.messages.len() - 1
    }

    /// Tool parts: a tool call when one first appears, a trace when its status changes.
    fn tools(&mut self, index: usize, parts: &[Value], out: &mut Vec<AgentEvent>) {
        let message_id = self.messages[index].id.clone().unwrap_or_default();
        let tools = parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool"));
        for (k, part) in tools.enumerate() {
            let tool = part.get("tool").filter(|t| t.is_object()).unwrap_or(part);
            let field = |key: &str| {
                tool.get(key)
                    .or_else(|| part.get(key))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            };
            let name = field("name").unwrap_or_else(|| "tool".into());
            let status = field("status");
            let display = field("display_text");
            let states = &mut self.messages[index].tools;
            let is_new = k >= states.len();
            if is_new {
                states.push(ToolState::default());
                let arguments = ["arguments", "input", "parameters"]
                    .iter()
                    .find_map(|key| tool.get(*key).filter(|v| !v.is_null()).cloned())
                    .unwrap_or_else(|| match &display {
                        Some(text) => json!({ "text": text }),
                        None => json!({}),
                    });
                out.push(AgentEvent::ToolCall {
                    role: None,
                    tool_name: name.clone(),
                    arguments,
                });
            }
            let state = &mut states[k];
            let changed = state.status != status;
            let trace = if is_new {
                status.as_deref().is_some_and(is_settled)
            } else {
                changed
            };
            state.status = status.clone();
            state.display = display.clone();
            if trace {
                let what = display.unwrap_or_else(|| name.clone());
                let title = match &status {
                    Some(status) => format!("{what} ({status})"),
                    None => what,
                };
                out.push(AgentEvent::Audit {
                    role: None,
                    traces: vec![AuditTrace {
                        audit_type: name,
                        tool_id: Some(format!("{message_id}:tool:{k}")),
                        query: None,
                        title: Some(title),
                        result_count: None,
                        raw: part.clone(),
                    }],
                });
            }
        }
    }

    /// Emit the whole answer and every reference, when they changed.
    fn publish(&mut self, out: &mut Vec<AgentEvent>) {
        let mut answer = String::new();
        let mut references = Vec::new();
        let mut offset = 0u64;
        for message in &self.messages {
            if message.content.is_empty() {
                continue;
            }
            if !answer.is_empty() {
                answer.push_str("\n\n");
                offset += 2;
            }
            answer.push_str(&message.content);
            references.extend(message.references.iter().map(|r| Reference {
                start: r.start.map(|s| s + offset),
                end: r.end.map(|e| e + offset),
                ..r.clone()
            }));
            offset += message.content.chars().count() as u64;
        }
        if answer != self.answer {
            out.push(AgentEvent::AnswerReplace {
                text: answer.clone(),
            });
            self.answer = answer;
        }
        if references != self.references {
            out.push(AgentEvent::GroundingReplace(references.clone()));
            self.references = references;
        }
    }
}

fn is_settled(status: &str) -> bool {
    matches!(
        status.to_ascii_lowercase().as_str(),
        "done"
            | "complete"
            | "completed"
            | "finished"
            | "success"
            | "succeeded"
            | "failed"
            | "error"
    )
}

/// `{message_id}:{event_index}` → `message_id`.
fn message_id_of(sse_id: &str) -> Option<String> {
    let (id, index) = sse_id.rsplit_once(':')?;
    (!id.is_empty() && !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        .then(|| id.to_owned())
}

/// Citations of one message: every occurrence of each evidence's `anchor_text` in `content` (longer
/// anchors first, never overlapping), ordered by position, with code point offsets relative to the
/// content. Evidences whose anchor is nowhere in the content come back as sources without a place.
fn cite(content: &str, evidences: &[Value]) -> (Vec<Reference>, Vec<SourceDoc>) {
    // anchor → the documents it stands for, in evidence order.
    let mut anchors: Vec<(String, Vec<SourceDoc>)> = Vec::new();
    let mut unplaced = Vec::new();
    for evidence in evidences {
        let Some(doc) = evidence_doc(evidence) else {
            continue;
        };
        let anchor = evidence
            .get("anchor_text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if anchor.is_empty() || !content.contains(anchor) {
            unplaced.push(doc);
            continue;
        }
        match anchors.iter_mut().find(|(a, _)| a == anchor) {
            Some((_, docs)) => {
                if !docs.contains(&doc) {
                    docs.push(doc);
                }
            }
            None => anchors.push((anchor.to_owned(), vec![doc])),
        }
    }
    let mut order: Vec<usize> = (0..anchors.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(anchors[i].0.len()));
    // (byte range, anchor index)
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for i in order {
        let anchor = &anchors[i].0;
        for (at, _) in content.match_indices(anchor.as_str()) {
            let end = at + anchor.len();
            if found.iter().any(|&(s, e, _)| at < e && s < end) {
                continue;
            }
            found.push((at, end, i));
        }
    }
    found.sort_unstable();
    let mut references = Vec::new();
    let (mut byte, mut cp) = (0usize, 0usize);
    for (start, end, i) in found {
        cp += content[byte..start].chars().count();
        let start_cp = cp;
        cp += content[start..end].chars().count();
        byte = end;
        for doc in &anchors[i].1 {
            references.push(Reference {
                start: Some(start_cp as u64),
                end: Some(cp as u64),
                tool_name: None,
                audit_id: None,
                source: Some(doc.clone()),
                marker: true,
            });
        }
    }
    (references, unplaced)
}

/// An evidence's document: keyed by `document_hit_url` (kept exactly as sent), `CUSTOM` for a
/// `custom://ID` document, the extract (with its `<b>` key sentence) as text, and the extract's
/// first line as the headline when it is a title line. The label (`src_name`) is the title, or
/// `Custom document ID`.
pub fn evidence_doc(evidence: &Value) -> Option<SourceDoc> {
    let evidence = evidence.as_object()?;
    let url = string(evidence, "document_hit_url");
    let extract = string(evidence, "text_extract");
    if url.is_none() && extract.is_none() {
        return None;
    }
    let custom_id = url
        .as_deref()
        .and_then(|u| u.strip_prefix("custom://"))
        .map(str::to_owned);
    let headline = extract
        .as_deref()
        .and_then(|text| text.split_once('\n'))
        .map(|(first, _)| first.trim())
        .filter(|first| !first.is_empty() && !first.contains("<b>"))
        .map(|first| strip_bold(first).trim().to_owned())
        .or_else(|| custom_id.clone());
    // The label: documents have no publisher, so their title; custom documents say so.
    let label = match (&custom_id, &headline) {
        (Some(id), _) => format!("Custom document {id}"),
        (None, Some(title)) => title.clone(),
        (None, None) => "Zeta Alpha document".to_owned(),
    };
    Some(SourceDoc {
        kind: Some(
            if custom_id.is_some() {
                "CUSTOM"
            } else {
                "DOCUMENT"
            }
            .to_owned(),
        ),
        headline,
        src_name: Some(label),
        url,
        text: extract,
        ..SourceDoc::default()
    })
}

/// `text` without `<b>` and `</b>`.
pub fn strip_bold(text: &str) -> String {
    text.replace("<b>", "").replace("</b>", "")
}

/// An extract split into runs, `true` for the key sentence(s) between `<b>` and `</b>` (tags
/// dropped; an unclosed `<b>` runs to the end). For showing Zeta Alpha's `text_extract` with its key
/// sentence in bold.
pub fn bold_runs(text: &str) -> Vec<(&str, bool)> {
    let mut runs = Vec::new();
    let mut rest = text;
    let mut bold = false;
    loop {
        let tag = if bold { "</b>" } else { "<b>" };
        match rest.find(tag) {
            Some(at) => {
                if at > 0 {
                    runs.push((&rest[..at], bold));
                }
                rest = &rest[at + tag.len()..];
                bold = !bold;
            }
            None => {
                if !rest.is_empty() {
                    runs.push((rest, bold));
                }
                return runs;
            }
        }
    }
}

fn string(object: &Map<String, Value>, key: &str) -> Option<String> {
    object
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The text of an `error` event: a JSON `detail`/`message`/`error`, else the data itself.
fn error_text(data: &str) -> String {
    if let Ok(value) = serde_json::from_str::<Value>(data) {
        let found = match &value {
            Value::String(s) => Some(s.clone()),
            Value::Object(object) => {
                ["detail", "message", "error"]
                    .iter()
                    .find_map(|key| match object.get(*key) {
                        Some(Value::String(s)) => Some(s.clone()),
                        Some(Value::Object(inner)) => inner
                            .get("message")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        _ => None,
                    })
            }
            _ => None,
        };
        if let Some(text) = found.filter(|t| !t.is_empty()) {
            return text;
        }
    }
    if data.is_empty() {
        "the agent reported an error".into()
    } else {
        data.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::citations::Attribution;
    use crate::model::session::{Activity, Session, Status};

    fn message(id: &str, content: &str, evidences: Value) -> SseEvent {
        let mut data = json!({"sender": "bot", "content": content, "session_id": "sess-1",
                              "message_id": id});
        if !evidences.is_null() {
            data["evidences"] = evidences;
        }
        SseEvent {
            event: "new_message".into(),
            data: data.to_string(),
            id: format!("{id}:0"),
        }
    }

    fn evidence(url: &str, anchor: &str) -> Value {
        json!({"document_hit_url": url, "anchor_text": anchor,
               "text_extract": format!("Title of {url}\nBefore. <b>Key sentence.</b> After.")})
    }

    use crate::wire::provider::testing::cited;

    fn run(events: Vec<SseEvent>, clean: bool) -> Session {
        crate::wire::provider::testing::run(&mut ZetaDialect::default(), events, clean)
    }

    #[test]
    fn each_message_version_replaces_the_answer_instead_of_appending() {
        let session = run(
            vec![
                message("m1", "BERT is", Value::Null),
                message(
                    "m1",
                    "BERT is a model [[1]](/d/1 \"BERT 101\")",
                    Value::Null,
                ),
                message(
                    "m1",
                    "BERT is a model<sup>1</sup>.",
                    json!([evidence("/d/1", "<sup>1</sup>")]),
                ),
            ],
            true,
        );
        assert_eq!(session.answer.as_str(), "BERT is a model<sup>1</sup>.");
        assert_eq!(cited(&session), [("<sup>1</sup>".into(), Some(1))]);
        assert_eq!(session.ids.chat_id.as_deref(), Some("sess-1"));
        assert_eq!(session.status(), Status::Complete);
    }

    #[test]
    fn every_occurrence_of_an_anchor_is_a_citation_in_code_points() {
        let content = "Ünïcödé 😀 first<sup>1</sup>, second<sup>2</sup>, again<sup>1</sup>.";
        let session = run(
            vec![message(
                "m1",
                content,
                json!([
                    evidence("/d/a", "<sup>1</sup>"),
                    evidence("/d/b", "<sup>2</sup>")
                ]),
            )],
            true,
        );
        assert_eq!(
            cited(&session),
            [
                ("<sup>1</sup>".into(), Some(1)),
                ("<sup>2</sup>".into(), Some(2)),
                ("<sup>1</sup>".into(), Some(1))
            ]
        );
        let first = &session.references[0];
        assert_eq!(first.start, Some(15));
        assert_eq!(first.end, Some(27));
        assert!(first.marker);
    }

    #[test]
    fn anchors_in_any_format_are_matched_literally_longest_first() {
        let content = "A[[1]] B[a1b2c3d4] C<sup>doc0_chunk1</sup> D[1] E[[1]]";
        let session = run(
            vec![message(
                "m1",
                content,
                json!([
                    evidence("/d/one", "[1]"),
                    evidence("/d/double", "[[1]]"),
                    evidence("/d/hash", "[a1b2c3d4]"),
                    evidence("custom://my-doc", "<sup>doc0_chunk1</sup>"),
                ]),
            )],
            true,
        );
        let texts: Vec<_> = cited(&session).into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            texts,
            [
                "[[1]]",
                "[a1b2c3d4]",
                "<sup>doc0_chunk1</sup>",
                "[1]",
                "[[1]]"
            ]
        );
        let attribution = Attribution::resolve(&session, true);
        let custom = attribution
            .sources
            .iter()
            .find(|s| s.key == "custom://my-doc")
            .unwrap();
        assert_eq!(custom.kind.as_deref(), Some("CUSTOM"));
        assert_eq!(custom.label, "Custom document my-doc");
        assert_eq!(custom.url.as_deref(), Some("custom://my-doc"));
    }

    #[test]
    fn evidences_apply_only_to_their_own_message() {
        let session = run(
            vec![
                message(
                    "m1",
                    "First turn<sup>1</sup>.",
                    json!([evidence("/d/first", "<sup>1</sup>")]),
                ),
                message(
                    "m2",
                    "Second turn<sup>1</sup>.",
                    json!([evidence("/d/second", "<sup>1</sup>")]),
                ),
                // A later version of the first message without evidences drops its citations only.
                message("m1", "First turn, revised<sup>1</sup>.", Value::Null),
            ],
            true,
        );
        assert_eq!(
            session.answer.as_str(),
            "First turn, revised<sup>1</sup>.\n\nSecond turn<sup>1</sup>."
        );
        let attribution = Attribution::resolve(&session, true);
        assert_eq!(attribution.citations.len(), 1);
        assert_eq!(attribution.citations[0].start, 45);
        assert_eq!(attribution.sources[0].key, "/d/second");
    }

    #[test]
    fn an_evidence_whose_anchor_is_missing_is_consulted() {
        let session = run(
            vec![message(
                "m1",
                "No anchors.",
                json!([evidence("/d/x", "<sup>9</sup>")]),
            )],
            true,
        );
        let attribution = Attribution::resolve(&session, true);
        assert!(attribution.citations.is_empty());
        assert!(attribution.sources[0].consulted_only);
    }

    #[test]
    fn tool_parts_become_tool_calls_and_status_traces() {
        let tool = |status: &str, text: &str| {
            json!({"sender": "bot", "content": "", "message_id": "m1", "content_parts": [
                {"type": "tool", "tool": {"name": "search_documents", "status": status, "display_text": text}}]})
        };
        let event = |data: Value| SseEvent {
            event: "new_message".into(),
            data: data.to_string(),
            id: String::new(),
        };
        let session = run(
            vec![
                event(tool("running", "Searching “BERT”")),
                event(tool("running", "Searching “BERT”")),
                event(tool("completed", "Found 12 documents")),
            ],
            true,
        );
        assert_eq!(session.activity.len(), 2);
        assert!(
            matches!(&session.activity[0], Activity::ToolCall { tool_name, .. } if tool_name == "search_documents")
        );
        assert_eq!(
            session.audits[0].title.as_deref(),
            Some("Found 12 documents (completed)")
        );
    }

    #[test]
    fn error_events_fail_the_session_and_a_cut_stream_is_not_complete() {
        let error = SseEvent {
            event: "error".into(),
            data: "quota exceeded".into(),
            id: String::new(),
        };
        let session = run(vec![message("m1", "Partial", Value::Null), error], true);
        assert_eq!(session.error.as_deref(), Some("quota exceeded"));
        let cut = run(vec![message("m1", "Partial", Value::Null)], false);
        assert_eq!(cut.status(), Status::Incomplete);
        let status = |data: &str| SseEvent {
            event: "stream_status".into(),
            data: data.into(),
            id: String::new(),
        };
        let done = run(
            vec![
                status("started"),
                message("m1", "All", Value::Null),
                status("{\"status\":\"done\"}"),
            ],
            false,
        );
        assert_eq!(done.status(), Status::Complete);
    }

    #[test]
    fn the_message_id_comes_from_the_event_id_when_the_body_lacks_it() {
        assert_eq!(message_id_of("abc:def:12").as_deref(), Some("abc:def"));
        assert_eq!(message_id_of("abc"), None);
        assert_eq!(message_id_of("abc:x"), None);
    }

    #[test]
    fn the_key_sentence_of_an_extract_is_a_bold_run() {
        assert_eq!(
            bold_runs("Title\nBefore <b>Key.</b> after"),
            [("Title\nBefore ", false), ("Key.", true), (" after", false)]
        );
        assert_eq!(bold_runs("<b>open"), [("open", true)]);
        let doc = evidence_doc(&evidence("/d/1", "x")).unwrap();
        assert_eq!(doc.headline.as_deref(), Some("Title of /d/1"));
        assert!(doc.text.unwrap().contains("<b>Key sentence.</b>"));
    }
}
