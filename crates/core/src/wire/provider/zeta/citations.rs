//! Zeta Alpha evidences: each `anchor_text` found in a message's content is a marker citation, and
//! each evidence's document (its `document_hit_url`, its extract with the `<b>` key sentence) a source.

use serde_json::Value;

use super::string;
use crate::model::event::{Reference, SourceDoc, TextRun};

/// Citations of one message: each occurrence of an evidence's `anchor_text` in `content` (longer
/// anchors first, never overlapping), ordered by position, with code point offsets relative to the
/// content, is exactly one citation. Zeta Alpha's server writes one evidence per occurrence, in
/// order, so the k-th occurrence of an anchor cites the k-th evidence carrying it (an anchor with
/// fewer evidences than occurrences cites its last one again). Evidences whose anchor is nowhere in
/// the content come back as sources without a place.
pub(super) fn cite(content: &str, evidences: &[Value]) -> (Vec<Reference>, Vec<SourceDoc>) {
    // anchor → its evidences' documents, in evidence order.
    let mut anchors: Vec<(&str, Vec<SourceDoc>)> = Vec::new();
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
        match anchors.iter_mut().find(|(a, _)| *a == anchor) {
            Some((_, docs)) => docs.push(doc),
            None => anchors.push((anchor, vec![doc])),
        }
    }
    let mut order: Vec<usize> = (0..anchors.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(anchors[i].0.len()));
    // (byte range, anchor index)
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for i in order {
        let anchor = anchors[i].0;
        for (at, _) in content.match_indices(anchor) {
            let end = at + anchor.len();
            if found.iter().any(|&(s, e, _)| at < e && s < end) {
                continue;
            }
            found.push((at, end, i));
        }
    }
    found.sort_unstable();
    let mut seen = vec![0usize; anchors.len()];
    let mut references = Vec::with_capacity(found.len());
    let (mut byte, mut cp) = (0usize, 0usize);
    for (start, end, i) in found {
        cp += content[byte..start].chars().count();
        let start_cp = cp;
        cp += content[start..end].chars().count();
        byte = end;
        let docs = &anchors[i].1;
        let doc = &docs[seen[i].min(docs.len() - 1)];
        seen[i] += 1;
        references.push(Reference {
            start: Some(start_cp as u64),
            end: Some(cp as u64),
            source: Some(doc.clone()),
            marker: true,
            ..Reference::default()
        });
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
        text_runs: extract.as_deref().map(bold_ranges).unwrap_or_default(),
        text: extract,
        ..SourceDoc::default()
    })
}

/// `text` without `<b>` and `</b>`.
pub fn strip_bold(text: &str) -> String {
    text.replace("<b>", "").replace("</b>", "")
}

/// An extract split into runs, `true` for the key sentence(s) between `<b>` and `</b>` (tags
/// dropped; an unclosed `<b>` runs to the end).
pub fn bold_runs(text: &str) -> Vec<(&str, bool)> {
    bold_ranges(text)
        .into_iter()
        .map(|run| (&text[run.bytes], run.emphasis))
        .collect()
}

/// [`bold_runs`] as byte ranges of `text`: how the source detail shows the extract, its key
/// sentence emphasised ([`SourceDoc::text_runs`]).
pub fn bold_ranges(text: &str) -> Vec<TextRun> {
    let mut runs = Vec::new();
    let mut at = 0;
    let mut bold = false;
    loop {
        let tag = if bold { "</b>" } else { "<b>" };
        let end = text[at..].find(tag).map_or(text.len(), |found| at + found);
        if end > at {
            runs.push(TextRun {
                bytes: at..end,
                emphasis: bold,
            });
        }
        if end == text.len() {
            return runs;
        }
        at = end + tag.len();
        bold = !bold;
    }
}
