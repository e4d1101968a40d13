//! Perplexity citations: `[n]` markers in the answer, 1-based into the `citations` URLs and the
//! `search_results` (same order) that ride on the chunks. Markers are found as the answer grows; the
//! text of one split across chunks (`[` + `4]`) is held back until its `]` arrives, so a marker
//! reaches the session whole, together with its reference. A marker whose entry has not arrived yet
//! waits for it, and at the end one past the lists is an invalid reference.

use std::collections::HashSet;

use serde_json::Value;

use crate::model::event::{AgentEvent, Reference, SourceDoc};
use crate::wire::provider::url_host;

/// A `[n]` found in the answer: its entry number and its span in code points.
#[derive(Debug, Clone, Copy)]
struct Found {
    n: usize,
    start: usize,
    end: usize,
}

#[derive(Debug, Default)]
pub(super) struct Markers {
    answer: String,
    /// Bytes of `answer` searched for markers (a possible marker at the end is not yet).
    scanned: usize,
    /// Code points of `answer[..scanned]`.
    scanned_chars: usize,
    /// Bytes of `answer` handed out to be shown.
    shown: usize,
    waiting: Vec<Found>,
    urls: Vec<String>,
    results: Vec<Value>,
    /// URLs already listed as sources (cited or consulted).
    listed: HashSet<String>,
}

impl Markers {
    /// Answer text arrived: find the markers it completes. Returns the text to show now: all but
    /// a possible marker at the end.
    pub fn grow(&mut self, text: &str) -> String {
        self.answer.push_str(text);
        let rest = &self.answer[self.scanned..];
        let mut chars = self.scanned_chars;
        let mut at = 0;
        let bytes = rest.as_bytes();
        while at < bytes.len() {
            if bytes[at] != b'[' {
                let width = utf8_width(bytes[at]);
                at += width;
                chars += 1;
                continue;
            }
            let digits = bytes[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let close = at + 1 + digits;
            if close == bytes.len() {
                if digits <= 4 {
                    // `[`, `[1`: the rest of it may come with the next chunk.
                    break;
                }
                at += 1;
                chars += 1;
                continue;
            }
            if (1..=4).contains(&digits) && bytes[close] == b']' {
                let n = rest[at + 1..close].parse().unwrap_or(0);
                let len = digits + 2;
                self.waiting.push(Found {
                    n,
                    start: chars,
                    end: chars + len,
                });
                at += len;
                chars += len;
            } else {
                at += 1;
                chars += 1;
            }
        }
        self.scanned += at;
        self.scanned_chars = chars;
        self.release(self.scanned)
    }

    /// The answer ended: the text still held back (a `[12` it ended with is text, not a marker).
    pub fn release_rest(&mut self) -> String {
        self.scanned = self.answer.len();
        self.release(self.scanned)
    }

    fn release(&mut self, to: usize) -> String {
        let text = self.answer[self.shown..to].to_owned();
        self.shown = to;
        text
    }

    /// A chunk's source lists (each chunk repeats them whole): the latest win. Search results are
    /// listed as consulted at once; bare URLs wait for the end, in case their title follows.
    pub fn lists(
        &mut self,
        citations: Option<&Vec<Value>>,
        results: Option<&Vec<Value>>,
        out: &mut Vec<AgentEvent>,
    ) {
        if let Some(citations) = citations {
            self.urls = citations
                .iter()
                .map(|u| u.as_str().unwrap_or_default().to_owned())
                .collect();
        }
        if let Some(results) = results {
            self.results = results.clone();
            let fresh: Vec<SourceDoc> = (1..=self.results.len())
                .filter_map(|n| self.doc(n))
                .collect();
            self.consult(fresh, out);
        }
    }

    /// Cite every marker whose entry is known; at the `end`, the rest are invalid and every listed
    /// URL not cited is consulted.
    pub fn settle(&mut self, end: bool, out: &mut Vec<AgentEvent>) {
        let mut references = Vec::new();
        let mut still = Vec::new();
        for found in std::mem::take(&mut self.waiting) {
            match self.doc(found.n) {
                Some(doc) => {
                    if let Some(url) = &doc.url {
                        self.listed.insert(url.clone());
                    }
                    references.push(Reference {
                        start: Some(found.start as u64),
                        end: Some(found.end as u64),
                        source: Some(doc),
                        marker: true,
                        ..Reference::default()
                    });
                }
                // Points past every source: a broken reference, counted as invalid.
                None if end => references.push(Reference {
                    marker: true,
                    ..Reference::default()
                }),
                None => still.push(found),
            }
        }
        self.waiting = still;
        if !references.is_empty() {
            out.push(AgentEvent::Grounding(references));
        }
        if end {
            let rest: Vec<SourceDoc> = (1..=self.urls.len()).filter_map(|n| self.doc(n)).collect();
            self.consult(rest, out);
        }
    }

    fn consult(&mut self, docs: Vec<SourceDoc>, out: &mut Vec<AgentEvent>) {
        let fresh: Vec<SourceDoc> = docs
            .into_iter()
            .filter(|doc| {
                doc.url
                    .as_ref()
                    .is_some_and(|url| self.listed.insert(url.clone()))
            })
            .collect();
        if !fresh.is_empty() {
            out.push(AgentEvent::Consulted(fresh));
        }
    }

    /// Source `n` (1-based): the URL of `citations`, described by the search result for it.
    fn doc(&self, n: usize) -> Option<SourceDoc> {
        let index = n.checked_sub(1)?;
        let result_at = self.results.get(index);
        let url = self
            .urls
            .get(index)
            .filter(|u| !u.is_empty())
            .cloned()
            .or_else(|| text(result_at, "url"))?;
        let result = self
            .results
            .iter()
            .find(|r| r.get("url").and_then(Value::as_str) == Some(url.as_str()))
            .or(result_at.filter(|r| r.get("url").is_none()));
        Some(SourceDoc {
            kind: Some("WEB".into()),
            src_name: url_host(&url),
            headline: text(result, "title"),
            // `date` is when it was published; `last_updated` only when it last changed.
            ts: text(result, "date"),
            updated: text(result, "last_updated"),
            text: text(result, "snippet"),
            url: Some(url),
            ..SourceDoc::default()
        })
    }
}

fn text(result: Option<&Value>, key: &str) -> Option<String> {
    result?
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

/// Bytes in the UTF-8 sequence a leading byte starts.
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}
