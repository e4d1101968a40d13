//! Keeping the API key out of everything a person or a script reads: a server may echo the key in an
//! error body, an ERROR event or the answer itself. [`Secret::redact`] masks it in a string;
//! [`StreamRedactor`] masks it in a byte stream before the SSE decoder sees it, so every string the
//! dialects produce is clean (the raw turn files, written before this, keep the bytes as received).
//!
//! A masked key keeps its length (`*` for each byte: keys are ASCII), so code-point offsets into an
//! answer that quoted the key still point at the right text. A run of 8 or more characters that is
//! the start of the key is masked too: a server or a cut may have truncated it.

use std::borrow::Cow;
use std::ops::Range;

/// The shortest start of the key that counts as the key.
pub const MIN_PREFIX: usize = 8;

/// The key to keep out of output. Redacts nothing when empty.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(Vec<Vec<u8>>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl Secret {
    pub fn new(key: &str) -> Secret {
        Secret(Vec::new()).and(key)
    }

    /// These keys and `key` too (every credential a request carried).
    pub fn and(mut self, key: &str) -> Secret {
        let key = key.trim().as_bytes();
        if !key.is_empty() && !self.0.iter().any(|k| k == key) {
            self.0.push(key.to_vec());
        }
        self
    }

    /// These keys and `other`'s too.
    pub fn union(mut self, other: &Secret) -> Secret {
        for key in &other.0 {
            if !self.0.contains(key) {
                self.0.push(key.clone());
            }
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with the key, and every run of [`MIN_PREFIX`]+ characters that starts it, masked
    /// character for character (offsets into `text` stay valid).
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut bytes = Cow::Borrowed(text.as_bytes());
        if self.mask_all(&mut bytes, true) == 0 {
            return Cow::Borrowed(text);
        }
        // Masking replaces ASCII key bytes by ASCII `*` only where they matched: still UTF-8.
        Cow::Owned(String::from_utf8(bytes.into_owned()).unwrap_or_default())
    }

    /// For a message (an error line): each match becomes `***`, whatever its length.
    pub fn redact_message(&self, text: &str) -> String {
        let runs = self.runs(text.as_bytes(), true);
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for run in runs {
            out.push_str(&text[from..run.start]);
            out.push_str("***");
            from = run.end;
        }
        out.push_str(&text[from..]);
        out
    }

    /// Mask every match in `bytes`; with `at_end`, a start of the key cut off by the end counts.
    /// Returns how many runs were masked.
    fn mask_all(&self, bytes: &mut Cow<'_, [u8]>, at_end: bool) -> usize {
        let runs = self.runs(bytes, at_end);
        for run in &runs {
            bytes.to_mut()[run.clone()].fill(b'*');
        }
        runs.len()
    }

    /// Where the key, or a start of it of [`MIN_PREFIX`]+ bytes, stands in `bytes`. Without
    /// `at_end`, a start that runs into the end is left out (more of the key may follow). A key
    /// shorter than [`MIN_PREFIX`] counts only whole.
    fn runs(&self, bytes: &[u8], at_end: bool) -> Vec<Range<usize>> {
        let mut runs: Vec<Range<usize>> = Vec::new();
        for key in &self.0 {
            runs.extend(key_runs(key, bytes, at_end));
        }
        runs.sort_by_key(|run| run.start);
        // Keys that overlap in the text (one inside another): one run covering both.
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(runs.len());
        for run in runs {
            match merged.last_mut() {
                Some(last) if run.start <= last.end => last.end = last.end.max(run.end),
                _ => merged.push(run),
            }
        }
        merged
    }
}

/// Where `key`, or a start of it of [`MIN_PREFIX`]+ bytes, stands in `bytes`.
fn key_runs(key: &[u8], bytes: &[u8], at_end: bool) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let head = &key[..MIN_PREFIX.min(key.len())];
    let mut from = 0;
    while let Some(found) = memchr::memmem::find(&bytes[from..], head) {
        let start = from + found;
        let len = matching_len(&bytes[start..], key);
        let whole = len == key.len();
        let cut_at_end = start + len == bytes.len();
        if whole || len >= MIN_PREFIX && (at_end || !cut_at_end) {
            runs.push(start..start + len);
        }
        from = start + len.max(1);
    }
    runs
}

/// How many leading bytes of `text` match the start of `key`.
fn matching_len(text: &[u8], key: &[u8]) -> usize {
    text.iter().zip(key).take_while(|(a, b)| a == b).count()
}

/// Masks the key in a byte stream that arrives in chunks, holding back only a tail that could be
/// the start of a key split across chunks.
#[derive(Debug, Default)]
pub struct StreamRedactor {
    secret: Secret,
    held: Vec<u8>,
    /// A searcher for the start every match of each key begins with, built once: a flood brings
    /// thousands of chunks a turn, nearly all of them clean, and building the search per chunk
    /// cost more than the search.
    heads: Vec<memchr::memmem::Finder<'static>>,
}

impl StreamRedactor {
    pub fn new(secret: Secret) -> StreamRedactor {
        let heads = (secret.0.iter())
            .map(|key| memchr::memmem::Finder::new(&key[..MIN_PREFIX.min(key.len())]).into_owned())
            .collect();
        StreamRedactor {
            secret,
            held: Vec::new(),
            heads,
        }
    }

    /// Whether a key, or a start of one, may stand in `bytes`: every match begins with a key's
    /// head ([`key_runs`]), so bytes holding none have nothing to mask.
    fn may_hold_key(&self, bytes: &[u8]) -> bool {
        self.heads.iter().any(|head| head.find(bytes).is_some())
    }

    /// The bytes of `chunk` that are safe to pass on now (masked); a possible start of the key at
    /// its end waits for the next chunk.
    pub fn feed<'a>(&mut self, chunk: &'a [u8]) -> Cow<'a, [u8]> {
        if self.secret.is_empty() {
            return Cow::Borrowed(chunk);
        }
        let mut bytes: Cow<'a, [u8]> = if self.held.is_empty() {
            Cow::Borrowed(chunk)
        } else {
            let mut joined = std::mem::take(&mut self.held);
            joined.extend_from_slice(chunk);
            Cow::Owned(joined)
        };
        // What may be a start of a key is found in the bytes as they came, before any masking:
        // a key masked over a start of another (a query key and its decoded form share their
        // first bytes) hid that start, and the rest of the second went out unmasked.
        let keep = self.pending_tail(&bytes);
        let held = bytes[bytes.len() - keep..].to_vec();
        if self.may_hold_key(&bytes) {
            self.secret.mask_all(&mut bytes, false);
        }
        if keep == 0 {
            return bytes;
        }
        let ready = bytes.len() - keep;
        // Held as it came, so the next chunk finds the key whole.
        self.held = held;
        match bytes {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..ready]),
            Cow::Owned(mut b) => {
                b.truncate(ready);
                Cow::Owned(b)
            }
        }
    }

    /// The end of the stream: what was held back, masked if it is a start of the key.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut bytes = Cow::Owned(std::mem::take(&mut self.held));
        self.secret.mask_all(&mut bytes, true);
        bytes.into_owned()
    }

    /// The length of the longest suffix of `bytes` that is a proper start of the key.
    fn pending_tail(&self, bytes: &[u8]) -> usize {
        let tail = |key: &Vec<u8>| {
            let longest = (key.len() - 1).min(bytes.len());
            (1..=longest)
                .rev()
                .find(|&n| bytes[bytes.len() - n..] == key[..n])
                .unwrap_or(0)
        };
        self.secret.0.iter().map(tail).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query key and its percent-decoded form (the proxy masks both) share their first 10
    /// bytes: the decoded one echoed back is masked whole wherever the stream is split (part of
    /// it went out in clear after the encoded one's start was masked over its start).
    #[test]
    fn two_keys_sharing_a_start_are_masked_in_every_split() {
        let encoded = "abcdEFGH12%2Fxyz9876543210qwerty";
        let decoded = "abcdEFGH12/xyz9876543210qwerty";
        let text = format!("data: {{\"content\":\"echo {decoded}!\"}}\n\n");
        let expected = text.replace(decoded, &"*".repeat(decoded.len()));
        masked_at_every_split(|| Secret::new(encoded).and(decoded), &text, &expected);
    }

    const KEY: &str = "sk-live-0123456789abcdef";

    /// `text` fed to a redactor of `secret` in two chunks, split at every byte, comes out as
    /// `expected`.
    fn masked_at_every_split(secret: impl Fn() -> Secret, text: &str, expected: &str) {
        for split in 0..text.len() {
            let mut redactor = StreamRedactor::new(secret());
            let mut out = redactor.feed(&text.as_bytes()[..split]).into_owned();
            out.extend_from_slice(&redactor.feed(&text.as_bytes()[split..]));
            out.extend(redactor.finish());
            assert_eq!(
                String::from_utf8(out).unwrap(),
                expected,
                "split at {split}"
            );
        }
    }

    #[test]
    fn the_whole_key_is_masked_with_its_length_kept() {
        let secret = Secret::new(KEY);
        let text = format!("key {KEY} rejected");
        let clean = secret.redact(&text);
        assert_eq!(clean, format!("key {} rejected", "*".repeat(KEY.len())));
        assert_eq!(clean.chars().count(), text.chars().count());
    }

    #[test]
    fn a_start_of_the_key_of_eight_or_more_characters_is_masked() {
        let secret = Secret::new(KEY);
        assert_eq!(
            secret.redact("was sk-live-01…"),
            format!("was {}…", "*".repeat(10))
        );
        assert_eq!(secret.redact("sk-live-"), "********");
        assert_eq!(secret.redact("sk-live is short"), "sk-live is short");
    }

    #[test]
    fn text_without_the_key_is_not_copied() {
        let secret = Secret::new(KEY);
        assert!(matches!(secret.redact("nothing here"), Cow::Borrowed(_)));
        assert!(matches!(Secret::default().redact(KEY), Cow::Borrowed(_)));
    }

    #[test]
    fn a_key_split_across_chunks_is_masked_in_every_split() {
        let text = format!("data: {{\"content\":\"echo {KEY}!\"}}\n\n");
        let expected = text.replace(KEY, &"*".repeat(KEY.len()));
        masked_at_every_split(|| Secret::new(KEY), &text, &expected);
    }

    #[test]
    fn every_key_a_request_carried_is_masked_in_a_stream_in_every_split() {
        let other = "tok-9876543210-zyxw";
        let text = format!("data: {{\"content\":\"{other} and {KEY}, {other}\"}}\n\n");
        let stars = |key: &str| "*".repeat(key.len());
        let expected = text.replace(KEY, &stars(KEY)).replace(other, &stars(other));
        masked_at_every_split(|| Secret::new(KEY).and(other), &text, &expected);
    }

    #[test]
    fn a_stream_cut_inside_the_key_masks_the_start_that_arrived() {
        let mut redactor = StreamRedactor::new(Secret::new(KEY));
        let mut out = redactor.feed(b"echo sk-live-0123").into_owned();
        out.extend(redactor.finish());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("echo {}", "*".repeat(12))
        );
    }

    #[test]
    fn a_message_shows_three_stars_for_each_match() {
        let secret = Secret::new(KEY);
        assert_eq!(
            secret.redact_message(&format!("bad {KEY}, was sk-live-01")),
            "bad ***, was ***"
        );
    }

    #[test]
    fn the_debug_form_never_shows_the_key() {
        assert_eq!(format!("{:?}", Secret::new(KEY)), "Secret(***)");
    }
}
