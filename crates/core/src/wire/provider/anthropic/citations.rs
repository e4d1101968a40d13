//! Citations without offsets: each `web_search_result_location` a text block carries cites that
//! whole block, so its span is the block's code points in the answer, known once the block stops.
//! The same location twice in one block is one citation. A page's `cited_text`s (the quotes the
//! model relied on) are its source's extracts; when a page already cited gets a new quote, every
//! reference is sent again with it ([`AgentEvent::GroundingReplace`]), so the source shows all of
//! them whichever reference numbered it.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;

use crate::model::event::{AgentEvent, Reference, SourceChunk, SourceDoc};
use crate::wire::provider::url_host;

/// Quotes kept per page, and in all (beyond them, new quotes are not added: each one sends every
/// reference again).
const MAX_QUOTES_PER_PAGE: usize = 16;
const MAX_QUOTES: usize = 512;

#[derive(Debug, Default)]
pub(super) struct Citations {
    references: Vec<Reference>,
    /// URL → its quotes, in order of arrival.
    quotes: HashMap<String, Vec<String>>,
    quote_count: usize,
    /// URL → how old the search said the page was (`page_age`).
    ages: HashMap<String, String>,
}

impl Citations {
    /// A text block spanning `span` stopped with `cites`.
    pub fn cite(&mut self, span: Range<u64>, cites: &[Value], out: &mut Vec<AgentEvent>) {
        let mut added = Vec::new();
        let mut requoted = false;
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for cite in cites {
            let field = |key: &str| cite.get(key).and_then(Value::as_str).unwrap_or("");
            if field("type") != "web_search_result_location" {
                out.push(AgentEvent::Unknown {
                    kind: format!("citation {}", field("type")),
                });
                continue;
            }
            let (url, quote) = (field("url"), field("cited_text"));
            if url.is_empty() || seen.contains(&(url, quote)) {
                continue;
            }
            seen.push((url, quote));
            let known = self.quotes.contains_key(url);
            requoted |= self.quote(url, quote) && known;
            let title = Some(field("title")).filter(|t| !t.trim().is_empty());
            added.push(Reference {
                start: Some(span.start),
                end: Some(span.end),
                tool_name: Some("web_search".into()),
                source: Some(SourceDoc {
                    kind: Some("WEB".into()),
                    headline: title.map(str::to_owned),
                    src_name: url_host(url),
                    url: Some(url.to_owned()),
                    updated: self.ages.get(url).cloned(),
                    ..SourceDoc::default()
                }),
                ..Reference::default()
            });
        }
        if added.is_empty() {
            return;
        }
        let mut references = std::mem::take(&mut self.references);
        let start = if requoted { 0 } else { references.len() };
        references.extend(added);
        for reference in &mut references[start..] {
            self.attach_quotes(reference);
        }
        out.push(if requoted {
            AgentEvent::GroundingReplace(references.clone())
        } else {
            AgentEvent::Grounding(references[start..].to_vec())
        });
        self.references = references;
    }

    /// A search result said how old the page at `url` is (kept for as many pages as a search lists:
    /// the turn's consulted sources hold as many).
    pub fn page_age(&mut self, url: String, age: String) {
        self.ages.insert(url, age);
    }

    /// Keep `quote` for `url`; whether it is new.
    fn quote(&mut self, url: &str, quote: &str) -> bool {
        let quotes = self.quotes.entry(url.to_owned()).or_default();
        let new = !quote.trim().is_empty()
            && !quotes.iter().any(|q| q == quote)
            && quotes.len() < MAX_QUOTES_PER_PAGE
            && self.quote_count < MAX_QUOTES;
        if new {
            quotes.push(quote.to_owned());
            self.quote_count += 1;
        }
        new
    }

    fn attach_quotes(&self, reference: &mut Reference) {
        let Some(doc) = &mut reference.source else {
            return;
        };
        let quotes = doc.url.as_deref().and_then(|url| self.quotes.get(url));
        doc.chunks = quotes
            .into_iter()
            .flatten()
            .map(|text| SourceChunk {
                cnum: None,
                text: text.clone(),
                relevance: None,
            })
            .collect();
    }
}
