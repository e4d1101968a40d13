//! Responses API citations: `url_citation` annotations, held back until their text has arrived.
//!
//! - A span inside its text cites exactly that span, whatever the text (OpenAI's Markdown links
//!   `([site](url))`, Azure's `[Title](url)`). xAI's inline citations are the one case with a
//!   known shape: the title is the citation number and the span is the link `[[N]](url)`, the
//!   provider's own marker ([`Reference::marker`]). So where the answer holds the literal
//!   `[[N]](url)` for the annotation's URL and the span is not on it (its offsets are off), the span
//!   moves to the nearest such link, and a numbered annotation whose link is nowhere is invalid.
//! - No offsets, or 0/0 with the URL as title (xAI): the source is cited without a position
//!   ([`Reference::unplaced`]). Any other empty span, and search results never cited, are
//!   consulted sources.
//! - A `file_citation` or `container_file_citation` cites a file, named by its `filename`: placed
//!   at its `start_index`..`end_index` (a container file's span), or at its `index` as a point in
//!   the text once the text is long enough to hold it; a file whose position is no text position
//!   is cited without one.
//!
//! [`Reference::marker`]: crate::model::event::Reference::marker
//! [`Reference::unplaced`]: crate::model::event::Reference::unplaced

use serde_json::Value;

use super::{PartKey, XaiDialect};
use crate::model::event::{AgentEvent, Reference, SourceDoc};
use crate::wire::provider::url_host;

/// A positioned `url_citation` waiting for the text its span points into.
#[derive(Debug, Clone)]
pub(super) struct PendingCitation {
    part: PartKey,
    start: usize,
    end: usize,
    url: String,
    title: Option<String>,
    /// A cited file (its source, in place of the web page `url` would be).
    file: Option<SourceDoc>,
}

/// A reference already sent; positioned ones keep offsets relative to their part, so that they can
/// be sent again when an earlier text is rewritten.
#[derive(Debug, Clone)]
pub(super) struct Cited {
    part: Option<usize>,
    reference: Reference,
}

impl XaiDialect {
    pub(super) fn consult(
        &mut self,
        docs: impl IntoIterator<Item = SourceDoc>,
        out: &mut Vec<AgentEvent>,
    ) {
        // A web page by its URL, a source without one (a search API) by its name.
        let fresh: Vec<SourceDoc> = docs
            .into_iter()
            .filter(|doc| {
                doc.url
                    .as_ref()
                    .or(doc.id.as_ref())
                    .is_some_and(|key| self.consulted.insert(key.clone()))
            })
            .collect();
        if !fresh.is_empty() {
            out.push(AgentEvent::Consulted(fresh));
        }
    }

    pub(super) fn annotation(
        &mut self,
        part: PartKey,
        annotation: &Value,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(object) = annotation.as_object() else {
            return;
        };
        match object.get("type").and_then(Value::as_str) {
            None | Some("url_citation") => {}
            Some("file_citation" | "container_file_citation") => {
                return self.file_annotation(part, object, out);
            }
            Some(_) => return,
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
            (None, _) | (_, None) => self.cite_unplaced(url, title.as_deref(), out),
            (Some(0), Some(0)) if title.as_deref() == Some(url) => {
                self.cite_unplaced(url, title.as_deref(), out)
            }
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
                    file: None,
                };
                if self.is_ready(&citation) {
                    self.cite(&citation, out);
                } else {
                    self.pending.push(citation);
                }
            }
            _ => self.uncitable(url, title.as_deref(), out),
        }
    }

    /// A file cited at a span, at a point, or without a position.
    fn file_annotation(
        &mut self,
        part: PartKey,
        object: &serde_json::Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        let text = |key: &str| {
            object
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let Some(id) = text("file_id").or(text("filename")) else {
            return;
        };
        let name = text("filename").unwrap_or(id);
        let offset = |key: &str| object.get(key).and_then(Value::as_u64);
        let identity = format!(
            "{}\u{1f}{}\u{1f}file\u{1f}{id}\u{1f}{:?}\u{1f}{:?}\u{1f}{:?}",
            part.0,
            part.1,
            offset("start_index"),
            offset("end_index"),
            offset("index")
        );
        if !self.seen_annotations.insert(identity) {
            return;
        }
        let doc = SourceDoc {
            kind: Some("FILE".into()),
            id: Some(id.to_owned()),
            headline: Some(name.to_owned()),
            src_name: Some(name.to_owned()),
            ..SourceDoc::default()
        };
        let span = match (offset("start_index"), offset("end_index"), offset("index")) {
            (Some(start), Some(end), _) if start <= end => Some((start, end)),
            (None, None, Some(index)) => Some((index, index)),
            _ => None,
        };
        let Some((start, end)) = span else {
            return self.send_unpositioned(
                Reference {
                    source: Some(doc),
                    unplaced: true,
                    ..Reference::default()
                },
                out,
            );
        };
        let citation = PendingCitation {
            part,
            start: start as usize,
            end: end as usize,
            url: String::new(),
            title: Some(name.to_owned()),
            file: Some(doc),
        };
        if self.is_ready(&citation) {
            self.cite(&citation, out);
        } else {
            self.pending.push(citation);
        }
    }

    /// Its text has arrived (or will not grow any more).
    fn is_ready(&self, citation: &PendingCitation) -> bool {
        self.part_of
            .get(&citation.part)
            .is_some_and(|&i| self.parts[i].done || self.parts[i].len >= citation.end)
    }

    /// Resolve held-back citations of `part` (all parts when `None`); `force` resolves those whose
    /// text is still short (the stream is over).
    pub(super) fn flush_pending(
        &mut self,
        part: Option<&PartKey>,
        force: bool,
        out: &mut Vec<AgentEvent>,
    ) {
        if self.pending.is_empty() {
            return;
        }
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|c| part.is_none_or(|p| *p == c.part) && (force || self.is_ready(c)));
        self.pending = waiting;
        for citation in ready {
            self.cite(&citation, out);
        }
    }

    /// Place the span and send the reference (or an invalid one when it cannot be placed).
    fn cite(&mut self, c: &PendingCitation, out: &mut Vec<AgentEvent>) {
        let placed = self.part_of.get(&c.part).and_then(|&index| {
            let part = &self.parts[index];
            let claimed: Vec<(usize, usize)> = self
                .claimed
                .iter()
                .filter(|(p, _, _)| *p == index)
                .map(|&(_, s, e)| (s, e))
                .collect();
            let (start, end, marker) = place(&part.text, part.len, c, &claimed)?;
            Some((index, start, end, marker))
        });
        let Some((index, start, end, marker)) = placed else {
            match &c.file {
                // A file whose position is no place in the text: cited without one.
                Some(file) => self.send_unpositioned(
                    Reference {
                        source: Some(file.clone()),
                        unplaced: true,
                        ..Reference::default()
                    },
                    out,
                ),
                None => self.uncitable(&c.url, c.title.as_deref(), out),
            }
            return;
        };
        if !self.claimed.insert((index, start, end)) {
            return;
        }
        let local = Reference {
            start: Some(start as u64),
            end: Some(end as u64),
            source: Some(
                c.file
                    .clone()
                    .unwrap_or_else(|| source_doc(&c.url, c.title.as_deref())),
            ),
            marker,
            ..Reference::default()
        };
        let cited = Cited {
            part: Some(index),
            reference: local,
        };
        out.push(AgentEvent::Grounding(vec![self.absolute(&cited)]));
        self.cited.push(cited);
    }

    /// The source of an annotation without a position: numbered and listed, no span.
    fn cite_unplaced(&mut self, url: &str, title: Option<&str>, out: &mut Vec<AgentEvent>) {
        self.send_unpositioned(
            Reference {
                source: Some(source_doc(url, title)),
                unplaced: true,
                ..Reference::default()
            },
            out,
        );
    }

    /// An annotation whose span cannot be placed: an invalid reference (counted) whose source
    /// still shows as consulted.
    pub(super) fn uncitable(&mut self, url: &str, title: Option<&str>, out: &mut Vec<AgentEvent>) {
        self.send_unpositioned(
            Reference {
                source: Some(source_doc(url, title)),
                marker: true,
                ..Reference::default()
            },
            out,
        );
        self.consult([source_doc(url, title)], out);
    }

    fn send_unpositioned(&mut self, reference: Reference, out: &mut Vec<AgentEvent>) {
        out.push(AgentEvent::Grounding(vec![reference.clone()]));
        self.cited.push(Cited {
            part: None,
            reference,
        });
    }

    /// A reference with offsets in the whole answer.
    fn absolute(&self, cited: &Cited) -> Reference {
        let Some(part) = cited.part else {
            return cited.reference.clone();
        };
        let base = self.parts[part].start as u64;
        Reference {
            start: cited.reference.start.map(|s| s + base),
            end: cited.reference.end.map(|e| e + base),
            ..cited.reference.clone()
        }
    }

    /// Every reference again, after an answer text was rewritten.
    pub(super) fn resend_citations(&mut self, out: &mut Vec<AgentEvent>) {
        if self.cited.is_empty() {
            return;
        }
        let all = self.cited.iter().map(|c| self.absolute(c)).collect();
        out.push(AgentEvent::GroundingReplace(all));
    }
}

/// Where a citation's span lies in its part's `text` (`len` code points): `(start, end, marker)`.
/// Inside the text, exactly its span, unless the text holds the literal `[[N]](url)` for its URL
/// and the span is not on one (then the nearest unclaimed such link). An xAI inline citation (its
/// title a number) is only ever such a link; none anywhere, or a span past the end, places nothing.
fn place(
    text: &str,
    len: usize,
    c: &PendingCitation,
    claimed: &[(usize, usize)],
) -> Option<(usize, usize, bool)> {
    if c.file.is_some() {
        return (c.end <= len).then_some((c.start, c.end, false));
    }
    if c.end <= len && is_link_span(text, c.start, c.end, &c.url) {
        return Some((c.start, c.end, true));
    }
    if let Some((start, end)) = find_link(text, &c.url, c.title.as_deref(), c.start, claimed) {
        return Some((start, end, true));
    }
    let inline_number = c
        .title
        .as_deref()
        .is_some_and(|t| !t.is_empty() && t.chars().all(|ch| ch.is_ascii_digit()));
    (c.end <= len && !inline_number).then_some((c.start, c.end, false))
}

/// A cited or consulted web page. `title` is its headline unless it is only the display number
/// xAI gives (`"1"`) or the URL itself. A post on X is published by its author: `@name on X · post
/// ID` (or `X post ID` when the link names none), so posts can be told apart where the host alone
/// would name them all `x.com`.
pub fn source_doc(url: &str, title: Option<&str>) -> SourceDoc {
    let host = url_host(url);
    let is_x = host
        .as_deref()
        .is_some_and(|h| matches!(h, "x.com" | "twitter.com" | "mobile.twitter.com"));
    let post = is_x.then(|| x_post(url)).flatten();
    SourceDoc {
        kind: Some(if is_x { "X" } else { "WEB" }.to_owned()),
        url: Some(url.to_owned()),
        headline: title
            .map(str::trim)
            .filter(|t| !t.is_empty() && *t != url && !t.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_owned),
        src_name: post.or(host),
        ..SourceDoc::default()
    }
}

/// Who posted the X post at `url` and which post it is (`https://x.com/NAME/status/ID`), or only
/// which (`/i/status/ID`).
fn x_post(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (_, path) = rest.split_once('/')?;
    let mut parts = path.split(['/', '?', '#']);
    let (user, status, id) = (parts.next()?, parts.next()?, parts.next()?);
    if status != "status" || id.is_empty() {
        return None;
    }
    Some(if user == "i" || user.is_empty() {
        format!("X post {id}")
    } else {
        format!("@{user} on X · post {id}")
    })
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
