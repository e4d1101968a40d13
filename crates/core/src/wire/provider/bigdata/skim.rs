//! The skim path for Bigdata.com answer chunks: most of a stream's bytes are `ANSWER` payloads of
//! one fixed shape, `{"chat_id":…,"message":{"type":"ANSWER","message_id":…,"role":…,"content":…}}`
//! (or Workflows' `request_id`/`execution_id` and `delta`). This reads exactly that shape with a
//! hand-written scanner — no `Value`, no serde — and gives the one event the full decode would make
//! of it. Anything else (another type, another field, a number where a string was, an escape it
//! does not copy exactly as serde_json would, an id that changes, a duplicate key) is `None`, and the
//! caller decodes the payload the full way: the skim only ever answers where it is sure to agree.
//! Held equal to the full decode by the tests in `tests.rs` (every Bigdata.com recording, and
//! generated payloads).

use std::borrow::Cow;

use crate::model::event::ConversationIds;
use crate::wire::provider::SkimmedAnswer;

/// The event a whole `data` payload of the fixed `ANSWER` shape makes, given the ids the dialect
/// holds (a payload that would change one is left to the full decode, which reports the change).
#[cfg(test)]
pub(super) fn answer(
    data: &[u8],
    ids: &ConversationIds,
) -> Option<crate::model::event::AgentEvent> {
    answer_borrowed(data, ids).map(SkimmedAnswer::into_event)
}

/// [`answer`], its text and id borrowed from `data` where they hold no escape.
pub(super) fn answer_borrowed<'a>(
    data: &'a [u8],
    ids: &ConversationIds,
) -> Option<SkimmedAnswer<'a>> {
    let mut s = Scanner::new(data);
    let body = payload(&mut s, ids)?;
    (s.pos == s.bytes.len()).then_some(body)
}

/// [`answer_borrowed`] of the line `rest` begins with, its end not looked for first: the answer
/// and the payload's length, when a line feed follows the payload. Nothing the scanner reads here
/// is a line feed or carriage return (strings hold no control character, white space stops
/// before them), so that line feed is the line's first end and the line is the payload:
/// [`answer_borrowed`] of it reads the same bytes the same way.
pub(super) fn answer_in_line<'a>(
    rest: &'a [u8],
    ids: &ConversationIds,
) -> Option<(SkimmedAnswer<'a>, usize)> {
    let mut s = Scanner::new(rest);
    s.in_line = true;
    let body = payload(&mut s, ids)?;
    (s.peek() == Some(b'\n')).then_some((body, s.pos))
}

/// The payload's object and the white space around it, read from the scanner's place.
fn payload<'a>(s: &mut Scanner<'a>, ids: &ConversationIds) -> Option<SkimmedAnswer<'a>> {
    s.ws();
    let mut seen = Seen::default();
    let mut body = None;
    // An empty object has no body: `None` either way.
    s.members(|key, s| {
        match key {
            b"chat_id" => seen.id(0, s.loose_id()?, &ids.chat_id)?,
            b"execution_id" => seen.id(1, s.loose_id()?, &ids.execution_id)?,
            b"request_id" => seen.id(2, s.loose_id()?, &ids.request_id)?,
            b"message" | b"delta" if body.is_none() => body = Some(message(s)?),
            _ => return None,
        }
        Some(())
    })?;
    s.ws();
    body
}

/// Which ids a payload named (a key twice is left to the full decode).
#[derive(Default)]
struct Seen([bool; 3]);

impl Seen {
    /// Id `slot` reads `value`: it must be new in the payload, and absent, empty or the same as the
    /// one held (otherwise the full decode reports the change).
    fn id(&mut self, slot: usize, value: Option<&[u8]>, held: &Option<String>) -> Option<()> {
        if std::mem::replace(&mut self.0[slot], true) {
            return None;
        }
        match value {
            None | Some(b"") => Some(()),
            Some(value) => (held.as_deref().map(str::as_bytes) == Some(value)).then_some(()),
        }
    }
}

/// The `message` (or `delta`) object of an `ANSWER`: its event.
fn message<'a>(s: &mut Scanner<'a>) -> Option<SkimmedAnswer<'a>> {
    let mut kind_seen = false;
    let mut message_id: Option<Option<&[u8]>> = None;
    let mut message_id_camel: Option<Option<&[u8]>> = None;
    let mut role_seen = false;
    let mut content: Option<SkimmedText<'a>> = None;
    s.members(|key, s| {
        match key {
            b"type" if !kind_seen => {
                (s.plain_string()? == b"ANSWER").then_some(())?;
                kind_seen = true;
            }
            b"message_id" if message_id.is_none() => message_id = Some(s.loose_id()?),
            b"messageId" if message_id_camel.is_none() => message_id_camel = Some(s.loose_id()?),
            b"role" if !role_seen => {
                s.string_counted()?;
                role_seen = true;
            }
            b"content" if content.is_none() => content = Some(s.text_or_null()?),
            _ => return None,
        }
        Some(())
    })?;
    if !kind_seen {
        return None;
    }
    let id = |id: Option<Option<&'a [u8]>>| match id.flatten().filter(|id| !id.is_empty()) {
        Some(id) => std::str::from_utf8(id).ok().map(Some),
        None => Some(None),
    };
    let message_id = match id(message_id)? {
        Some(id) => Some(id),
        None => id(message_id_camel)?,
    };
    Some(SkimmedAnswer {
        message_id,
        text: content.unwrap_or_default(),
    })
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The bytes go on past the line being read: white space stops at a line end.
    in_line: bool,
}

impl<'a> Scanner<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Scanner {
            bytes,
            pos: 0,
            in_line: false,
        }
    }

    /// A non-empty object's members, each key handed to `member` with the scanner at its value
    /// (which `member` reads); `None` for an empty object or anything else.
    fn members(
        &mut self,
        mut member: impl FnMut(&'a [u8], &mut Scanner<'a>) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            return None;
        }
        loop {
            self.ws();
            let key = self.plain_string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            member(key, self)?;
            self.ws();
            match self.bump()? {
                b',' => continue,
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        Some(b)
    }

    fn eat(&mut self, want: u8) -> Option<()> {
        (self.bump()? == want).then_some(())
    }

    /// JSON white space (in a line, not its end).
    fn ws(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => {}
                Some(b'\n' | b'\r') if !self.in_line => {}
                _ => return,
            }
            self.pos += 1;
        }
    }

    /// A string with no escape in it, as its raw bytes (keys, `type`, ids).
    fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let rest = &self.bytes[self.pos..];
        // The first quote, backslash or control character: a quote, or not a plain string.
        let end = scan::run(rest).0.filter(|&end| rest[end] == b'"')?;
        self.pos += end + 1;
        Some(&rest[..end])
    }

    /// An id read as `loose` reads it: a string without escapes (`Some`), or `null` (`None`).
    /// Anything else (a number, an escape) is left to the full decode.
    fn loose_id(&mut self) -> Option<Option<&'a [u8]>> {
        if self.bytes[self.pos..].starts_with(b"null") {
            self.pos += 4;
            return Some(None);
        }
        self.plain_string().map(Some)
    }

    /// `content` as `text_of` reads it: a string's text, or nothing for `null`.
    fn text_or_null(&mut self) -> Option<SkimmedText<'a>> {
        if self.bytes[self.pos..].starts_with(b"null") {
            self.pos += 4;
            return Some(SkimmedText::default());
        }
        self.string_counted()
    }

    /// A string, checked as serde_json reads it (its escapes, control characters, UTF-8), and
    /// measured: the text it holds is built only when asked for ([`SkimmedText::text`]). Bytes
    /// that are not UTF-8, and an escaped lone surrogate, are left to the full decode.
    fn string_counted(&mut self) -> Option<SkimmedText<'a>> {
        self.eat(b'"')?;
        let start = self.pos;
        let (mut len, mut chars, mut escaped) = (0, 0, false);
        loop {
            let rest = &self.bytes[self.pos..];
            // One pass: the run's end and its characters (a control character ends it unread).
            let (at, continuing) = scan::run(rest);
            let at = at.filter(|&at| rest[at] >= 0x20)?;
            len += at;
            chars += at - continuing;
            self.pos += at + 1;
            if rest[at] == b'"' {
                break;
            }
            escaped = true;
            let unescaped = self.escape()?;
            len += unescaped.len_utf8();
            chars += 1;
        }
        // Escapes are ASCII: the string is UTF-8 exactly when each run between them is.
        let raw = simdutf8::basic::from_utf8(&self.bytes[start..self.pos - 1]).ok()?;
        Some(SkimmedText {
            raw,
            escaped,
            len,
            chars,
        })
    }

    /// The character an escape (after its backslash) stands for, as serde_json reads it.
    fn escape(&mut self) -> Option<char> {
        Some(match self.bump()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.escaped_char()?,
            _ => return None,
        })
    }
}

impl Scanner<'_> {
    /// Four hex digits, after `\u`.
    fn hex4(&mut self) -> Option<u32> {
        let hex = self.bytes.get(self.pos..self.pos + 4)?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        self.pos += 4;
        u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    }

    /// The character a `\u` escape names: one code unit, or a surrogate pair (two escapes). A
    /// lone surrogate is left to the full decode.
    fn escaped_char(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if !(0xD800..0xDC00).contains(&first) {
            return char::from_u32(first);
        }
        if !self.bytes[self.pos..].starts_with(b"\\u") {
            return None;
        }
        self.pos += 2;
        let second = self.hex4()?;
        if !(0xDC00..0xE000).contains(&second) {
            return None;
        }
        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
    }
}

/// An answer chunk's text as the skim read it: the JSON string as sent (escapes and all), already
/// checked, and the length of the text it holds — enough for a reader that only counts the
/// answer; the text itself is built on demand ([`SkimmedText::text`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkimmedText<'a> {
    raw: &'a str,
    escaped: bool,
    len: usize,
    chars: usize,
}

impl<'a> SkimmedText<'a> {
    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text's length in code points.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// The text: borrowed when the string held no escape, else unescaped (as checked when it was
    /// read, so every escape is one serde_json reads).
    pub fn text(&self) -> Cow<'a, str> {
        if !self.escaped {
            return Cow::Borrowed(self.raw);
        }
        let mut text = String::with_capacity(self.len);
        let mut s = Scanner::new(self.raw.as_bytes());
        while let Some(at) = memchr::memchr(b'\\', &s.bytes[s.pos..]) {
            text.push_str(&self.raw[s.pos..s.pos + at]);
            s.pos += at + 1;
            match s.escape() {
                Some(c) => text.push(c),
                // Never: the string was read with these escapes.
                None => return Cow::Owned(text),
            }
        }
        text.push_str(&self.raw[s.pos..]);
        Cow::Owned(text)
    }
}

mod scan;

#[cfg(test)]
mod tests;
