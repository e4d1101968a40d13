//! The exact height of a block that is one line of plain prose, without parsing it as Markdown.
//!
//! During a flood nearly every completed block is out of view and only its height is wanted
//! ([`super::markdown::block_height`]). A block that is a single line of words and common
//! punctuation — nothing Markdown could read as markup, no citation marker, no hidden provider
//! marker in it — is one paragraph holding one text of exactly that line, so its rows are those
//! [`super::wrap::wrap`] makes of it: [`super::wrap::wrap_text_height`] counts them directly. Any
//! other block takes the full walk; a property test holds the two equal.

use std::ops::Range;

use crate::render::sanitize::is_unsafe;

/// ASCII punctuation that is never Markdown inside a single line of text (no emphasis, code, link,
/// image, HTML, entity, escape, strikethrough or table cell starts with any of these).
const PLAIN_PUNCTUATION: &[u8] = b",.;:'\"?%$/()-+=@#^{}";

/// What a byte of a plain line may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Never in a plain line (markup, a control character, a tab).
    No,
    /// A letter, a digit, a space, plain punctuation, or a byte of a character beyond ASCII that
    /// cannot be one cleaned for the terminal.
    Plain,
    /// The first byte of a character beyond ASCII that may be cleaned (U+0080–U+009F, U+061C,
    /// U+200B–U+206F, U+FEFF, tag characters): decoded and checked.
    Check,
}

const CLASSES: [Class; 256] = {
    let mut classes = [Class::No; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        classes[b] = if byte >= 0x80 {
            match byte {
                0xC2 | 0xD8 | 0xE2 | 0xEF | 0xF3 => Class::Check,
                _ => Class::Plain,
            }
        } else if byte.is_ascii_alphanumeric() || byte == b' ' {
            Class::Plain
        } else {
            Class::No
        };
        b += 1;
    }
    let mut i = 0;
    while i < PLAIN_PUNCTUATION.len() {
        classes[PLAIN_PUNCTUATION[i] as usize] = Class::Plain;
        i += 1;
    }
    classes
};

/// The line of `src` when `src` is one line of plain prose, optionally followed by newlines.
pub(super) fn plain_line(src: &str) -> Option<&str> {
    let end = memchr::memchr(b'\n', src.as_bytes()).unwrap_or(src.len());
    let (line, rest) = src.split_at(end);
    if !rest.bytes().all(|b| b == b'\n') {
        return None;
    }
    // The first character can open no block (heading, list, quote, fence, indented code, table,
    // HTML, thematic break, reference definition): a letter, or any character beyond ASCII that
    // is not a space.
    let first = line.chars().next()?;
    let opens_plain = first.is_ascii_alphabetic()
        || (!first.is_ascii() && !first.is_whitespace() && !is_unsafe(first));
    // Trailing spaces are cut by the parser (and two make a hard break).
    if !opens_plain || line.ends_with(' ') {
        return None;
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match CLASSES[bytes[i] as usize] {
            Class::Plain => i += 1,
            Class::No => return None,
            Class::Check => {
                // A first byte: `i` is a character boundary.
                let c = line[i..].chars().next()?;
                if is_unsafe(c) {
                    return None;
                }
                i += c.len_utf8();
            }
        }
    }
    Some(line)
}

/// The height of the block `src` when it is one line of plain prose without markers or hidden
/// bytes in it (`None`: the block needs the full walk).
pub(super) fn height(
    src: &str,
    markers: &[(usize, Vec<usize>)],
    hidden: &[Range<usize>],
    width: usize,
) -> Option<usize> {
    if !markers.is_empty() || !hidden.is_empty() {
        return None;
    }
    plain_line(src).map(|line| super::wrap::wrap_text_height(line, width.max(1)))
}
