//! Where the Markdown and text renderers write: any `io::Write` (stdout through a buffer, or a
//! `Vec` for the callers that want a `String`), so `render` streams a document out instead of
//! holding a second copy of the answer. It remembers what the layout reads back from the output —
//! how many newlines it ends with — and the first write error (`fmt::Write` cannot carry one).

use std::fmt;
use std::io;

pub(crate) struct Out<W> {
    inner: W,
    /// Newlines the output ends with, counted up to 2 (all a blank line needs to know).
    newlines: usize,
    /// The first write that failed: nothing is written after it.
    error: Option<io::Error>,
}

impl<W: io::Write> Out<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            inner,
            newlines: 0,
            error: None,
        }
    }

    pub(crate) fn push_str(&mut self, text: &str) {
        if text.is_empty() || self.error.is_some() {
            return;
        }
        let ending = text.bytes().rev().take_while(|&b| b == b'\n').count();
        self.newlines = match ending == text.len() {
            true => (self.newlines + ending).min(2),
            false => ending.min(2),
        };
        if let Err(e) = self.inner.write_all(text.as_bytes()) {
            self.error = Some(e);
        }
    }

    pub(crate) fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }

    /// How many newlines the output ends with (0, 1, or 2 for two or more).
    pub(crate) fn trailing_newlines(&self) -> usize {
        self.newlines
    }

    /// End with exactly one blank line without touching newlines already written.
    pub(crate) fn blank_line_after(&mut self) {
        for _ in self.newlines..2 {
            self.push('\n');
        }
    }

    /// The writer back, flushed, or the first error.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.inner.flush().map(|()| self.inner),
        }
    }
}

impl<W: io::Write> fmt::Write for Out<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.push_str(text);
        Ok(())
    }
}

/// What `write` writes, as a `String`.
pub(crate) fn to_string(write: impl FnOnce(&mut Out<Vec<u8>>)) -> String {
    let mut out = Out::new(Vec::new());
    write(&mut out);
    let bytes = out.finish().unwrap_or_default();
    // Only `&str`s were written.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_newlines_are_counted_across_writes_up_to_two() {
        let mut out = Out::new(Vec::new());
        assert_eq!(out.trailing_newlines(), 0);
        out.push_str("a\n");
        assert_eq!(out.trailing_newlines(), 1);
        out.push_str("");
        out.push('\n');
        out.push_str("\n\n");
        assert_eq!(out.trailing_newlines(), 2);
        out.push_str("\nb");
        assert_eq!(out.trailing_newlines(), 0);
        out.blank_line_after();
        assert_eq!(out.finish().unwrap(), b"a\n\n\n\n\nb\n\n");
    }

    #[test]
    fn the_first_write_error_is_returned_and_nothing_is_written_after_it() {
        /// Takes `n` writes, then fails every one, counting the tries.
        #[derive(Debug)]
        struct Full(usize, usize);
        impl io::Write for Full {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.1 += 1;
                if self.0 == 0 {
                    return Err(io::Error::other("disk full"));
                }
                self.0 -= 1;
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut out = Out::new(Full(1, 0));
        out.push_str("fits");
        out.push_str("does not");
        out.push_str("never tried");
        assert_eq!(out.inner.1, 2);
        assert_eq!(out.finish().unwrap_err().to_string(), "disk full");
    }
}
