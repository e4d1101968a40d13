//! xAI citations: `url_citation` annotations whose span is the inline link `[[N]](url)` the model
//! wrote into the answer (corrected to the literal link when the span misses it), held back until
//! their text has arrived; empty spans and search results never cited are consulted sources.

use serde_json::{Map, Value};

use super::{PendingCitation, XaiDialect};
use crate::model::event::{AgentEvent, Reference, SourceDoc};

impl XaiDialect {
    /// Text and annotations of a finished `message` output item.
    pub(super) fn message_annotations(
        &mut self,
        output_index: u64,
        item: &Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(content) = item.get("content").and_then(Value::as_array) else {
            return;
        };
        for (content_index, part) in content.iter().enumerate() {
            let key = (output_index, content_index as u64);
            if !self.part_of.contains_key(&key)
                && let Some(text) = part.get("text").and_then(Value::as_str)
            {
                // The text never arrived as deltas: take it whole.
                let id = item.get("id").and_then(Value::as_str).map(str::to_owned);
                self.push_text(key, id, text, out);
            }
            if let Some(&i) = self.part_of.get(&key) {
                self.parts[i].done = true;
            }
            if let Some(annotations) = part.get("annotations").and_then(Value::as_array) {
                for annotation in annotations {
                    self.annotation(key, annotation, out);
                }
            }
            self.flush_pending(Some(key), false, out);
        }
    }

    pub(super) fn consult(
        &mut self,
        docs: impl IntoIterator<Item = SourceDoc>,
        out: &mut Vec<AgentEvent>,
    ) {
        let fresh: Vec<SourceDoc> = docs
            .into_iter()
            .filter(|doc| {
                doc.url
                    .as_ref()
                    .is_some_and(|url| self.consulted.insert(url.clone()))
            })
            .collect();
        if !fresh.is_empty() {
            out.push(AgentEvent::Consulted(fresh));
        }
    }

    pub(super) fn annotation(
        &mut self,
        part: (u64, u64),
        annotation: &Value,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(object) = annotation.as_object() else {
            return;
        };
        if object
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t != "url_citation")
        {
            return;
        }
        let Some(url) = object
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| !u.is_empty())
        else {
            return;
        };
        let title = match object.get("title") {
            Some(Value::String(t)) if !t.is_empty() => Some(t.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let offset = |key: &str| object.get(key).and_then(Value::as_u64);
        let (start, end) = (offset("start_index"), offset("end_index"));
        let identity = format!(
            "{}\u{1f}{}\u{1f}{start:?}\u{1f}{end:?}\u{1f}{url}\u{1f}{title:?}",
            part.0, part.1
        );
        if !self.seen_annotations.insert(identity) {
            return;
        }
        match (start, end) {
            (Some(start), Some(end)) if start == end => {
                self.consult([source_doc(url, title.as_deref())], out);
            }
            (Some(start), Some(end)) if start < end => {
                let citation = PendingCitation {
                    part,
                    start: start as usize,
                    end: end as usize,
                    url: url.to_owned(),
                    title,
                };
                let ready = self
                    .part_of
                    .get(&part)
                    .is_some_and(|&i| self.parts[i].done || self.parts[i].len >= citation.end);
                if ready {
                    self.cite(&citation, out);
                } else {
                    self.pending.push(citation);
                }
            }
            _ => self.uncitable(url, title.as_deref(), out),
        }
    }

    /// Resolve held-back citations of `part` (all parts when `None`); `force` resolves those whose
    /// text is still short (the stream is over).
    pub(super) fn flush_pending(
        &mut self,
        part: Option<(u64, u64)>,
        force: bool,
        out: &mut Vec<AgentEvent>,
    ) {
        if self.pending.is_empty() {
            return;
        }
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|c| {
                part.is_none_or(|p| p == c.part)
                    && (force
                        || self
                            .part_of
                            .get(&c.part)
                            .is_some_and(|&i| self.parts[i].done || self.parts[i].len >= c.end))
            });
        self.pending = waiting;
        for citation in ready {
            self.cite(&citation, out);
        }
    }

    /// Check the span and emit the marker reference (or its replacement, or an invalid one).
    pub(super) fn cite(&mut self, c: &PendingCitation, out: &mut Vec<AgentEvent>) {
        let span = self.part_of.get(&c.part).and_then(|&i| {
            let part = &self.parts[i];
            let local = if is_link_span(&part.text, c.start, c.end, &c.url) {
                Some((c.start, c.end))
            } else {
                let claimed: Vec<(usize, usize)> = self
                    .claimed
                    .iter()
                    .filter(|(s, e)| *s >= part.start && *e <= part.start + part.len)
                    .map(|(s, e)| (s - part.start, e - part.start))
                    .collect();
                find_link(&part.text, &c.url, c.title.as_deref(), c.start, &claimed)
            };
            local.map(|(s, e)| (part.start + s, part.start + e))
        });
        let doc = source_doc(&c.url, c.title.as_deref());
        match span {
            Some(span) if self.claimed.contains(&span) => {}
            Some((start, end)) => {
                self.claimed.insert((start, end));
                out.push(AgentEvent::Grounding(vec![Reference {
                    start: Some(start as u64),
                    end: Some(end as u64),
                    tool_name: None,
                    audit_id: None,
                    source: Some(doc),
                    marker: true,
                }]));
            }
            None => self.uncitable(&c.url, c.title.as_deref(), out),
        }
    }

    /// An annotation whose link is nowhere in the text: an invalid reference (counted) whose source
    /// still shows as consulted.
    pub(super) fn uncitable(&mut self, url: &str, title: Option<&str>, out: &mut Vec<AgentEvent>) {
        out.push(AgentEvent::Grounding(vec![Reference {
            source: Some(source_doc(url, title)),
            marker: true,
            ..Reference::default()
        }]));
        self.consult([source_doc(url, title)], out);
    }
}

/// A cited or consulted web page. `title` is the display number xAI gives (`"1"`) unless it is text.
pub fn source_doc(url: &str, title: Option<&str>) -> SourceDoc {
    let host = host_of(url);
    let is_x = host
        .as_deref()
        .is_some_and(|h| matches!(h, "x.com" | "twitter.com" | "mobile.twitter.com"));
    SourceDoc {
        kind: Some(if is_x { "X" } else { "WEB" }.to_owned()),
        url: Some(url.to_owned()),
        headline: title
            .map(str::trim)
            .filter(|t| !t.is_empty() && !t.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_owned),
        src_name: host,
        ..SourceDoc::default()
    }
}

/// `https://www.reuters.com/x` → `reuters.com`.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.trim_start_matches("www.");
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Byte offset of code point `cp` in `text` (the end for `cp == len`).
fn byte_of(text: &str, cp: usize) -> Option<usize> {
    text.char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(text.len()))
        .nth(cp)
}

/// Does the code point span `start..end` of `text` hold an inline link — starting with `[[`, ending
/// with `)` — and, if its target can be read, one to `url`?
fn is_link_span(text: &str, start: usize, end: usize, url: &str) -> bool {
    let (Some(a), Some(b)) = (byte_of(text, start), byte_of(text, end)) else {
        return false;
    };
    let span = &text[a..b];
    if !(span.starts_with("[[") && span.ends_with(')')) {
        return false;
    }
    match span.find("](") {
        Some(open) if span[..open].ends_with(']') => &span[open + 2..span.len() - 1] == url,
        _ => true,
    }
}

/// Find the literal inline link `[[N]](url)` in `text` (N = `title` when it is a number, else any
/// number): the occurrence nearest to `near` whose span is not in `claimed`. Code point offsets.
fn find_link(
    text: &str,
    url: &str,
    title: Option<&str>,
    near: usize,
    claimed: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let number = title.filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
    let tail = format!("]]({url})");
    let mut best: Option<(usize, usize)> = None;
    for (at, _) in text.match_indices(&tail) {
        let head = &text[..at];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || !head[..head.len() - digits].ends_with("[[") {
            continue;
        }
        if let Some(n) = number
            && &head[head.len() - digits..] != n
        {
            continue;
        }
        let start_byte = at - digits - 2;
        let start = text[..start_byte].chars().count();
        let end = start + text[start_byte..at + tail.len()].chars().count();
        if claimed.contains(&(start, end)) {
            continue;
        }
        if best.is_none_or(|(s, _)| start.abs_diff(near) < s.abs_diff(near)) {
            best = Some((start, end));
        }
    }
    best
}
