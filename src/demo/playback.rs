//! Playing a recording as one response: frames at their recorded pace (scaled by the server's
//! speed), each JSON payload given this response's identifiers ([`Rewrite`]), and the cut or stall
//! fault striking halfway through the answer.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use super::note::Note;
use super::recordings::{Part, PreparedFrame, Recording};
use super::{AppState, Fault, error};

/// The identifiers one response carries.
#[derive(Debug, Clone)]
pub enum Rewrite {
    Research {
        chat_id: String,
        checkpoint_id: String,
    },
    Workflow {
        execution_id: String,
        request_id: String,
    },
    /// xAI and OpenAI: the `response` object of `response.created` … `response.completed`.
    Responses {
        response_id: String,
        previous_response_id: Option<String>,
    },
    /// Zeta Alpha: every message's `session_id`.
    Zeta { session_id: String },
    /// Perplexity: every chunk's completion `id`.
    Perplexity { completion_id: String },
    /// Gemini Interactions: the interaction's id (and the one it continues) wherever it is named.
    Interaction {
        interaction_id: String,
        previous_interaction_id: Option<String>,
    },
    /// Gemini `streamGenerateContent`: every chunk's `responseId`.
    Generate { response_id: String },
    /// Anthropic: the message `id` of `message_start`.
    Anthropic { message_id: String },
}

impl Rewrite {
    fn apply(&self, envelope: &mut Value) -> Option<&str> {
        let Value::Object(envelope) = envelope else {
            return None;
        };
        match self {
            Rewrite::Research {
                chat_id,
                checkpoint_id,
            } => {
                envelope.insert("chat_id".into(), Value::from(chat_id.as_str()));
                if let Some(Value::Object(message)) = envelope.get_mut("message")
                    && message.get("type").and_then(Value::as_str) == Some("COMPLETE")
                {
                    message.insert("checkpoint_id".into(), Value::from(checkpoint_id.as_str()));
                    return Some(checkpoint_id);
                }
            }
            Rewrite::Workflow {
                execution_id,
                request_id,
            } => {
                envelope.insert("request_id".into(), Value::from(request_id.as_str()));
                envelope.insert("execution_id".into(), Value::from(execution_id.as_str()));
            }
            Rewrite::Responses {
                response_id,
                previous_response_id,
            } => {
                if let Some(Value::Object(response)) = envelope.get_mut("response") {
                    response.insert("id".into(), Value::from(response_id.as_str()));
                    response.insert(
                        "previous_response_id".into(),
                        previous_response_id
                            .as_deref()
                            .map_or(Value::Null, Value::from),
                    );
                }
            }
            Rewrite::Perplexity { completion_id } => {
                if envelope.contains_key("choices") {
                    envelope.insert("id".into(), Value::from(completion_id.as_str()));
                }
            }
            Rewrite::Interaction {
                interaction_id,
                previous_interaction_id,
            } => {
                if envelope.contains_key("interaction_id") {
                    envelope.insert(
                        "interaction_id".into(),
                        Value::from(interaction_id.as_str()),
                    );
                }
                if let Some(Value::Object(interaction)) = envelope.get_mut("interaction") {
                    interaction.insert("id".into(), Value::from(interaction_id.as_str()));
                    match previous_interaction_id {
                        Some(previous) => interaction.insert(
                            "previous_interaction_id".into(),
                            Value::from(previous.as_str()),
                        ),
                        None => interaction.remove("previous_interaction_id"),
                    };
                }
            }
            Rewrite::Generate { response_id } => {
                if envelope.contains_key("responseId") {
                    envelope.insert("responseId".into(), Value::from(response_id.as_str()));
                }
            }
            Rewrite::Anthropic { message_id } => {
                if let Some(Value::Object(message)) = envelope.get_mut("message") {
                    message.insert("id".into(), Value::from(message_id.as_str()));
                }
            }
            Rewrite::Zeta { session_id } => {
                if envelope.contains_key("session_id") || envelope.contains_key("sender") {
                    envelope.insert("session_id".into(), Value::from(session_id.as_str()));
                }
            }
        }
        None
    }

    fn chat_id(&self) -> Option<&str> {
        match self {
            Rewrite::Research { chat_id, .. } => Some(chat_id),
            Rewrite::Workflow { .. }
            | Rewrite::Responses { .. }
            | Rewrite::Zeta { .. }
            | Rewrite::Perplexity { .. }
            | Rewrite::Interaction { .. }
            | Rewrite::Generate { .. }
            | Rewrite::Anthropic { .. } => None,
        }
    }
}

/// Where playback stands.
enum Phase {
    Playing,
    /// Fault reached: end the body with an error after this pause.
    Cut(Duration),
    Stalled,
    Done,
}

struct Playback {
    state: Arc<AppState>,
    frames: Recording,
    next: usize,
    rewrite: Rewrite,
    fault: Option<Fault>,
    /// Opens the answer: the question is not what the recording answers.
    note: Option<Note>,
    /// Frames sent that carry an ANSWER (or all frames, if the recording has no answer).
    counted: usize,
    /// The fault strikes once `counted` reaches this.
    strike_at: usize,
    answers_exist: bool,
    phase: Phase,
    /// The chat turn this stream plays, counted as streaming until it ends.
    live: Option<LiveTurn>,
}

/// A Bigdata.com turn being played, which [`Book::begin_turn`](super::book::Book::begin_turn)
/// counted: it stops streaming when COMPLETE is sent, when the fault strikes (a cut or stalled
/// turn is over on the server's side) or when the client goes (the response is dropped).
pub struct LiveTurn {
    pub chat_id: String,
    pub question: String,
}

pub fn stream_response(
    state: &Arc<AppState>,
    frames: Recording,
    rewrite: Rewrite,
    fault: Option<Fault>,
    note: Option<Note>,
) -> Response {
    play(state, frames, rewrite, fault, note, None)
}

/// [`stream_response`] for a chat's turn, which counts as streaming while it plays.
pub fn stream_turn(
    state: &Arc<AppState>,
    frames: Recording,
    rewrite: Rewrite,
    fault: Option<Fault>,
    note: Option<Note>,
    live: LiveTurn,
) -> Response {
    play(state, frames, rewrite, fault, note, Some(live))
}

fn play(
    state: &Arc<AppState>,
    frames: Recording,
    rewrite: Rewrite,
    fault: Option<Fault>,
    note: Option<Note>,
    live: Option<LiveTurn>,
) -> Response {
    let answers = frames.iter().filter(|f| f.is_answer).count();
    let basis = if answers > 0 { answers } else { frames.len() };
    let playback = Playback {
        state: state.clone(),
        frames,
        next: 0,
        rewrite,
        fault,
        note,
        counted: 0,
        strike_at: (basis / 2).max(1),
        answers_exist: answers > 0,
        phase: Phase::Playing,
        live,
    };
    let body = futures::stream::unfold(playback, |mut p| async move {
        let item = p.step().await?;
        Some((item, p))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error"))
}

impl Playback {
    async fn step(&mut self) -> Option<Result<Bytes, std::io::Error>> {
        match self.phase {
            Phase::Done => return None,
            Phase::Stalled => {
                // Keep the connection open and silent until the client gives up.
                futures::future::pending::<()>().await;
                return None;
            }
            Phase::Cut(pause) => {
                // Let the frames already written reach the client before the connection drops.
                tokio::time::sleep(pause).await;
                self.phase = Phase::Done;
                return Some(Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    "demo fault: connection cut mid-answer",
                )));
            }
            Phase::Playing => {}
        }
        let Some(frame) = self.frames.get(self.next).cloned() else {
            self.phase = Phase::Done;
            return None;
        };
        self.next += 1;
        tokio::time::sleep(self.state.scaled(frame.delay_ms)).await;
        let bytes = self.render(&frame);
        if frame.is_answer || !self.answers_exist {
            self.counted += 1;
        }
        if self.counted >= self.strike_at {
            match self.fault {
                Some(Fault::CutMidAnswer) => {
                    let next_delay = self.frames.get(self.next).map_or(0, |f| f.delay_ms);
                    let pause = self.state.scaled(next_delay).max(Duration::from_millis(20));
                    self.phase = Phase::Cut(pause.min(Duration::from_secs(1)));
                    self.end_turn();
                }
                Some(Fault::Stall) => {
                    self.phase = Phase::Stalled;
                    self.end_turn();
                }
                _ => {}
            }
        }
        Some(Ok(bytes))
    }

    /// The turn stops streaming (once).
    fn end_turn(&mut self) {
        if let Some(live) = self.live.take() {
            self.state.book().end_turn(&live.chat_id, &live.question);
        }
    }

    fn render(&mut self, frame: &PreparedFrame) -> Bytes {
        let mut out = Vec::new();
        for part in &frame.parts {
            match part {
                Part::Raw(bytes) => out.extend_from_slice(bytes),
                Part::Json(value) => {
                    let mut value = value.clone();
                    if let Some(note) = &mut self.note {
                        note.apply(&mut value);
                    }
                    if let Some(checkpoint) = self.rewrite.apply(&mut value) {
                        let chat = self.rewrite.chat_id().unwrap_or_default().to_owned();
                        self.state
                            .book()
                            .checkpoints
                            .insert(checkpoint.to_owned(), chat);
                        // Answered before the client reads COMPLETE: its follow-up is welcome.
                        self.end_turn();
                    }
                    out.extend_from_slice(b"data: ");
                    // Serializing a `Value` cannot fail.
                    out.extend_from_slice(&serde_json::to_vec(&value).unwrap_or_default());
                    out.push(b'\n');
                }
            }
        }
        Bytes::from(out)
    }
}

impl Drop for Playback {
    /// The client went (or the stream ended): the turn stops streaming.
    fn drop(&mut self) {
        self.end_turn();
    }
}
