//! What the demo agent remembers between requests (conversations, checkpoints, OpenAI runs and
//! Gemini interactions, the last request bodies), each bounded: a `serve` left running for weeks
//! forgets the oldest instead of growing without end.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use serde_json::Value;

use super::gemini::Interaction;
use super::runs::DemoRun;

/// Entries each kind of memory keeps; a conversation older than that many newer ones is forgotten
/// (its follow-ups are then taken as a new chat from an earlier run, as after a restart).
pub(super) const REMEMBERED: usize = 10_000;

/// How many request bodies `GET /_demo/requests` keeps.
pub(super) const REQUEST_LOG_LEN: usize = 64;

/// A Bigdata.com conversation the server has seen.
pub(super) struct Chat {
    /// The `persistence_mode` it started with (fixed for its life).
    pub mode: String,
    /// What its first turn asked; `None` for a chat first seen in a follow-up (an earlier run's).
    pub first_question: Option<String>,
    /// The questions of its turns streaming now, one per stream: a stream counts from its request
    /// until it sends COMPLETE, its fault strikes or its client goes.
    pub streaming: Vec<String>,
}

/// What the server remembers between requests.
#[derive(Default)]
pub(super) struct Book {
    /// Chat id → the conversation.
    pub chats: Remembered<String, Chat>,
    /// Checkpoint id → the chat it belongs to.
    pub checkpoints: Remembered<String, String>,
    /// OpenAI responses created, by id.
    pub runs: Remembered<String, DemoRun>,
    /// Gemini interactions created, by id.
    pub interactions: Remembered<String, Interaction>,
    pub requests: VecDeque<Value>,
}

impl Book {
    /// Keep `entry` in the request log, forgetting the oldest beyond [`REQUEST_LOG_LEN`].
    pub fn log_request(&mut self, entry: Value) {
        if self.requests.len() == REQUEST_LOG_LEN {
            self.requests.pop_front();
        }
        self.requests.push_back(entry);
    }

    /// Whether a turn of `chat_id` has completed (it has a checkpoint).
    pub fn answered(&self, chat_id: &str) -> bool {
        self.checkpoints.values().any(|owner| owner == chat_id)
    }

    /// A turn of `chat_id` asking `question` starts streaming.
    pub fn begin_turn(&mut self, chat_id: &str, question: &str) {
        if let Some(chat) = self.chats.get_mut(chat_id) {
            chat.streaming.push(question.to_owned());
        }
    }

    /// A turn that [`Book::begin_turn`] counted stops streaming.
    pub fn end_turn(&mut self, chat_id: &str, question: &str) {
        if let Some(chat) = self.chats.get_mut(chat_id)
            && let Some(at) = chat.streaming.iter().position(|q| q == question)
        {
            chat.streaming.swap_remove(at);
        }
    }
}

/// A map that keeps its newest [`REMEMBERED`] entries (by first insertion).
pub(super) struct Remembered<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
    capacity: usize,
}

impl<K, V> Default for Remembered<K, V> {
    fn default() -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            capacity: REMEMBERED,
        }
    }
}

impl<K: Eq + Hash + Clone, V> Remembered<K, V> {
    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.map.get(key)
    }

    pub fn get_mut<Q: Hash + Eq + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.map.get_mut(key)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.map.values()
    }

    /// Remember `value` for `key` (replacing an earlier one), forgetting the oldest entry when full.
    pub fn insert(&mut self, key: K, value: V) {
        if self.map.insert(key.clone(), value).is_some() {
            return;
        }
        self.order.push_back(key);
        if self.order.len() > self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.map.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_running_demo_forgets_its_oldest_conversations_instead_of_growing() {
        let mut chats: Remembered<String, String> = Remembered {
            capacity: 3,
            ..Remembered::default()
        };
        for i in 0..5 {
            chats.insert(format!("chat-{i}"), "disabled".into());
        }
        chats.insert("chat-4".into(), "again".into());
        assert_eq!(chats.map.len(), 3);
        assert_eq!(chats.order.len(), 3);
        assert!(chats.get("chat-1").is_none());
        assert_eq!(chats.get("chat-2").map(String::as_str), Some("disabled"));
        assert_eq!(chats.get("chat-4").map(String::as_str), Some("again"));
    }
}
