//! How a saved turn ended: the status word in `meta.json`.

use serde::{Deserialize, Serialize};

use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;

/// How a saved turn ended: `status` in `meta.json`, saved as the word [`TurnStatus::as_str`] gives
/// (the same words earlier versions wrote, so their sessions still load).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum TurnStatus {
    /// Still streaming: its writer holds the turn lock (a turn whose writer died reads as `Cut`).
    Streaming,
    Complete,
    /// The agent reported an error.
    Error,
    /// The stream closed before completion.
    Incomplete,
    Cut,
    Stalled,
    HttpError,
    ConnectError,
    Cancelled,
    /// A word this version does not know (from another version), kept as it was.
    Other(String),
}

impl TurnStatus {
    /// How a stream that ended with `end` leaves its turn.
    pub fn of(session: &Session, end: &StreamEnd) -> TurnStatus {
        if session.error.is_some() {
            return TurnStatus::Error;
        }
        if session.cancelled.is_some() {
            return TurnStatus::Cancelled;
        }
        if session.completion.is_some() {
            return TurnStatus::Complete;
        }
        match end {
            StreamEnd::Closed => TurnStatus::Incomplete,
            StreamEnd::Cut { .. } => TurnStatus::Cut,
            StreamEnd::Stalled { .. } => TurnStatus::Stalled,
            StreamEnd::Http { .. } => TurnStatus::HttpError,
            StreamEnd::Connect { .. } => TurnStatus::ConnectError,
            StreamEnd::Cancelled => TurnStatus::Cancelled,
        }
    }

    /// The word saved in `meta.json` (and shown in session lists).
    pub fn as_str(&self) -> &str {
        match self {
            TurnStatus::Streaming => "streaming",
            TurnStatus::Complete => "complete",
            TurnStatus::Error => "error",
            TurnStatus::Incomplete => "incomplete",
            TurnStatus::Cut => "cut",
            TurnStatus::Stalled => "stalled",
            TurnStatus::HttpError => "http_error",
            TurnStatus::ConnectError => "connect_error",
            TurnStatus::Cancelled => "cancelled",
            TurnStatus::Other(word) => word,
        }
    }
}

impl From<&str> for TurnStatus {
    fn from(word: &str) -> Self {
        use TurnStatus::*;
        [
            Streaming,
            Complete,
            Error,
            Incomplete,
            Cut,
            Stalled,
            HttpError,
            ConnectError,
            Cancelled,
        ]
        .into_iter()
        .find(|known| known.as_str() == word)
        .unwrap_or_else(|| Other(word.to_owned()))
    }
}

/// A status equals the word it is saved as.
impl PartialEq<&str> for TurnStatus {
    fn eq(&self, word: &&str) -> bool {
        self.as_str() == *word
    }
}

impl From<String> for TurnStatus {
    fn from(word: String) -> Self {
        TurnStatus::from(word.as_str())
    }
}

impl From<TurnStatus> for String {
    fn from(status: TurnStatus) -> Self {
        match status {
            TurnStatus::Other(word) => word,
            known => known.as_str().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_statuses_are_saved_as_the_same_words_and_unknown_ones_are_kept() {
        let words = [
            "streaming",
            "complete",
            "error",
            "incomplete",
            "cut",
            "stalled",
            "http_error",
            "connect_error",
            "cancelled",
            "paused",
        ];
        for word in words {
            let status: TurnStatus = serde_json::from_str(&format!("\"{word}\"")).unwrap();
            assert_eq!(status.as_str(), word);
            assert_eq!(
                serde_json::to_string(&status).unwrap(),
                format!("\"{word}\"")
            );
        }
        let known = serde_json::from_str::<TurnStatus>("\"http_error\"").unwrap();
        assert_eq!(known, TurnStatus::HttpError);
        assert_eq!(TurnStatus::from("connect_error"), TurnStatus::ConnectError);
        assert_eq!(TurnStatus::Cancelled, "cancelled");
        assert!(serde_json::from_str::<TurnStatus>("3").is_err());
        let unknown = serde_json::from_str::<TurnStatus>("\"paused\"").unwrap();
        assert_eq!(unknown, TurnStatus::Other("paused".into()));
    }
}
