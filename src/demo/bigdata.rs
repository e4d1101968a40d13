//! The demo agent's Bigdata.com routes: the Research Agent (`POST /v1/research-agent`: which
//! recording a question gets, its chat and checkpoint, a follow-up refused while its chat still
//! streams) and Workflows (`POST /v1/workflow/execute`).

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::book::{Book, Chat};
use super::playback::{self, Rewrite, stream_response};
use super::{AppState, admit, error, note, recordings};
use crate::agent::rng;
use crate::wire::provider::bigdata::request::{ResearchRequest, WorkflowRequest};

pub(super) fn research_response(
    state: &Arc<AppState>,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let (fault, request) = match admit(state, headers, body, ResearchRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let mode = request
        .persistence_mode
        .clone()
        .unwrap_or_else(|| "disabled".into());
    let (chat_id, recording) = {
        let mut book = state.book();
        let (chat_id, recording) = match (&request.from_checkpoint_id, &request.chat_id) {
            (Some(checkpoint), chat) => match book.checkpoints.get(checkpoint) {
                Some(owner) => (
                    chat.clone().unwrap_or_else(|| owner.clone()),
                    recordings::FOLLOW_UP,
                ),
                None if state.accept_foreign_checkpoints && checkpoint.starts_with("ckpt-") => (
                    chat.clone().unwrap_or_else(|| rng::id("chat")),
                    recordings::FOLLOW_UP,
                ),
                None => return error(StatusCode::NOT_FOUND, "Checkpoint not found"),
            },
            (None, Some(chat)) => match chat_turn(&book, chat, &request.message) {
                Some(recording) => (chat.clone(), recording),
                None => return error(StatusCode::BAD_REQUEST, CHAT_BUSY),
            },
            (None, None) => (rng::id("chat"), pick_new(&request.message)),
        };
        // Fixed for a conversation's life; a chat first seen in a follow-up (one an earlier run
        // started) takes the mode it asks for.
        match book.chats.get(&chat_id) {
            Some(chat) if chat.mode != mode => {
                return error(StatusCode::BAD_REQUEST, "persistence_mode mismatch");
            }
            Some(_) => {}
            None => book.chats.insert(
                chat_id.clone(),
                Chat {
                    mode,
                    first_question: request.chat_id.is_none().then(|| request.message.clone()),
                    streaming: Vec::new(),
                },
            ),
        }
        book.begin_turn(&chat_id, &request.message);
        (chat_id, recording)
    };
    let note = note::for_question(recording, &request.message);
    let live = playback::LiveTurn {
        chat_id: chat_id.clone(),
        question: request.message,
    };
    let rewrite = Rewrite::Research {
        chat_id,
        checkpoint_id: rng::id("ckpt"),
    };
    let frames = state.recordings.get(recording);
    playback::stream_turn(state, frames, rewrite, fault, note, live)
}

/// What a question naming only a known chat gets, or `None` (a 400) while the chat still
/// streams another turn. A chat this server has not seen may come from an earlier run: a follow-up all the
/// same. The same question as a turn it never answered is that turn's retry (the stream cancelled
/// or cut, perhaps not yet noticed here): a first turn's retry is asked its first question again.
/// Any other question while a turn streams is refused, as OpenAI's Conversations API refuses a
/// request on a conversation another one is still working on (400 "Another process is currently
/// operating on this conversation"): a follow-up answered before the answer it follows would be
/// answered without it.
fn chat_turn(book: &Book, chat_id: &str, message: &str) -> Option<&'static str> {
    let Some(chat) = book.chats.get(chat_id) else {
        return Some(recordings::FOLLOW_UP);
    };
    if chat.first_question.as_deref() == Some(message) && !book.answered(chat_id) {
        return Some(pick_new(message));
    }
    if !chat.streaming.is_empty() && !chat.streaming.iter().any(|q| q == message) {
        return None;
    }
    Some(recordings::FOLLOW_UP)
}

/// The detail of the 400 a follow-up gets while its chat still streams an answer.
pub const CHAT_BUSY: &str = "this chat is still answering its last question: send the follow-up \
                             once that answer is complete";

pub(super) fn workflow_response(
    state: &Arc<AppState>,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let (fault, request) = match admit(state, headers, body, WorkflowRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let execution_id = request.execution_id.unwrap_or_else(|| rng::id("exec"));
    let rewrite = Rewrite::Workflow {
        execution_id,
        request_id: rng::id("req"),
    };
    stream_response(
        state,
        state.recordings.get(recordings::WORKFLOW),
        rewrite,
        fault,
        None,
    )
}

/// A new conversation: the comparison question's topic gets its recording, a comparison question
/// the sector comparison, anything else the deep dive.
fn pick_new(message: &str) -> &'static str {
    if recordings::about_comparison(message) {
        return recordings::BIGDATA_COMPARISON;
    }
    let lower = message.to_lowercase();
    let words = lower.split(|c: char| !c.is_alphanumeric());
    let comparison = ["compar", "sector", "peer", "versus"]
        .iter()
        .any(|stem| lower.contains(stem))
        || words.into_iter().any(|w| w == "vs");
    if comparison {
        recordings::SECTOR
    } else {
        recordings::EARNINGS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::COMPARISON_QUESTION;

    #[test]
    fn comparison_questions_get_the_sector_recording() {
        assert_eq!(pick_new("Compare ASML and Lam"), recordings::SECTOR);
        assert_eq!(pick_new("NVDA vs AMD?"), recordings::SECTOR);
        assert_eq!(pick_new("How do its peers trade"), recordings::SECTOR);
        assert_eq!(pick_new("NVIDIA earnings on canvas"), recordings::EARNINGS);
    }

    #[test]
    fn the_several_agents_question_gets_its_own_recording_even_when_it_compares() {
        assert_eq!(
            pick_new(COMPARISON_QUESTION),
            recordings::BIGDATA_COMPARISON
        );
        assert_eq!(
            pick_new("Compare sodium-ion with LFP"),
            recordings::BIGDATA_COMPARISON
        );
    }
}
