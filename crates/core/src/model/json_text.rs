//! JSON kept as the text it was sent in: a chart's spec and data points can be megabytes, and a
//! `serde_json::Value` tree of them costs twenty to forty times their size. The text is checked
//! once when it is made, shared on clone, and read lazily (borrowing) by whoever needs a part.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// Valid JSON text: a part of a shared buffer (the event it came in, kept once however many
/// parts of it are kept).
#[derive(Clone)]
pub struct JsonText {
    buffer: Arc<String>,
    start: usize,
    end: usize,
}

impl JsonText {
    /// `text` when it is one valid JSON value.
    pub fn parse(text: &str) -> Option<JsonText> {
        let raw: &RawValue = serde_json::from_str(text).ok()?;
        Some(JsonText::whole(Arc::new(raw.get().to_owned())))
    }

    fn whole(buffer: Arc<String>) -> JsonText {
        let end = buffer.len();
        JsonText {
            buffer,
            start: 0,
            end,
        }
    }

    /// `part` of `buffer` (a slice of it, e.g. a raw value parsed from it), sharing the buffer;
    /// `None` when `part` is not inside `buffer`.
    pub fn part_of(buffer: &Arc<String>, part: &RawValue) -> Option<JsonText> {
        let base = buffer.as_ptr() as usize;
        let at = (part.get().as_ptr() as usize).checked_sub(base)?;
        let end = at + part.get().len();
        buffer.get(at..end)?;
        Some(JsonText {
            buffer: Arc::clone(buffer),
            start: at,
            end,
        })
    }

    /// The text as sent (without surrounding whitespace).
    pub fn as_str(&self) -> &str {
        &self.buffer[self.start..self.end]
    }

    /// The text as a borrowed raw value (it was checked when made).
    pub fn raw(&self) -> &RawValue {
        serde_json::from_str(self.as_str()).unwrap_or_else(|_| null())
    }

    /// The text is a JSON `null`.
    pub fn is_null(&self) -> bool {
        self.as_str() == "null"
    }

    /// A parsed copy: only for small values (tests, short specs).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.as_str()).unwrap_or(Value::Null)
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for JsonText {}

/// Longest text [`JsonText::pretty`] indents: past it the text is written as sent (indenting
/// multiplies the size of long lists of small rows, and nobody reads such a spec line by line).
const MAX_PRETTY_BYTES: usize = 64 * 1024;

impl JsonText {
    /// The text indented as `serde_json::to_string_pretty` would, without parsing it into a
    /// tree; a text past [`MAX_PRETTY_BYTES`] as sent.
    pub fn pretty(&self) -> Cow<'_, str> {
        let text = self.as_str();
        if text.len() > MAX_PRETTY_BYTES {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() * 2);
        let mut depth = 0usize;
        let mut chars = text.chars().peekable();
        let newline = |out: &mut String, depth: usize| {
            out.push('\n');
            (0..depth).for_each(|_| out.push_str("  "));
        };
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    out.push('"');
                    while let Some(c) = chars.next() {
                        out.push(c);
                        match c {
                            '\\' => out.extend(chars.next()),
                            '"' => break,
                            _ => {}
                        }
                    }
                }
                '{' | '[' => {
                    out.push(c);
                    while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
                    if let Some(close) = chars.next_if(|n| matches!(n, '}' | ']')) {
                        out.push(close);
                    } else {
                        depth += 1;
                        newline(&mut out, depth);
                    }
                }
                '}' | ']' => {
                    depth = depth.saturating_sub(1);
                    newline(&mut out, depth);
                    out.push(c);
                }
                ',' => {
                    out.push(',');
                    newline(&mut out, depth);
                }
                ':' => out.push_str(": "),
                c if c.is_ascii_whitespace() => {}
                c => out.push(c),
            }
        }
        Cow::Owned(out)
    }
}

fn null() -> &'static RawValue {
    serde_json::from_str("null").expect("null is JSON")
}

impl From<&Value> for JsonText {
    fn from(value: &Value) -> JsonText {
        JsonText::whole(Arc::new(value.to_string()))
    }
}

impl From<Value> for JsonText {
    fn from(value: Value) -> JsonText {
        JsonText::from(&value)
    }
}

impl std::fmt::Debug for JsonText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 200;
        let text = self.as_str();
        match text.char_indices().nth(SHOWN) {
            Some((at, _)) => write!(f, "JsonText({}… {} bytes)", &text[..at], text.len()),
            None => write!(f, "JsonText({text})"),
        }
    }
}

impl Serialize for JsonText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_keeps_the_text_and_refuses_what_is_not_json() {
        let text = JsonText::parse(" {\"a\": [1, 2.50]} ").unwrap();
        assert_eq!(text.as_str(), "{\"a\": [1, 2.50]}");
        assert_eq!(serde_json::to_string(&text).unwrap(), "{\"a\": [1, 2.50]}");
        assert!(JsonText::parse("{\"a\":").is_none());
        assert!(JsonText::parse("1 2").is_none());
    }

    #[test]
    fn pretty_text_is_what_serde_json_would_print() {
        let text = r#" {"a": [1, {"b" : "x\"]{,:"}, [], {}], "c":null,"d":{"e":[ ]}} "#;
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            JsonText::parse(text).unwrap().pretty(),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }
}
