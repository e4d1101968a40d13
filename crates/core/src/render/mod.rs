//! Headless renderers over the session model: Markdown with footnotes, JSON for scripts, and plain
//! text for people. None of them parse wire data; all read [`Session`] and [`Attribution`].

mod cells;
pub mod chart_csv;
pub mod chart_text;
pub mod compare;
pub mod json;
pub mod markdown;
mod out;
pub mod sanitize;
pub mod table_text;
pub mod text;
pub mod trace;

use crate::model::citations::Attribution;
use crate::model::session::Session;
use out::Out;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    #[default]
    Markdown,
    Json,
    Text,
}

/// Render a finished (or cut) session in `format`.
pub fn render(session: &Session, format: Format) -> String {
    render_sized(session, format, text::DEFAULT_WIDTH)
}

/// [`render`], with text charts and tables fitting `width` columns.
pub fn render_sized(session: &Session, format: Format, width: usize) -> String {
    let attribution = Attribution::resolve(session, true);
    match format {
        Format::Markdown => markdown::render(session, &attribution),
        Format::Json => json::render(session, &attribution),
        Format::Text => text::render_sized(session, &attribution, width),
    }
}

/// [`render_sized`] written to `out` as it is rendered: the document is never held whole (a session
/// holding megabytes of answer or charts is not copied into one string first).
pub fn write_sized(
    session: &Session,
    format: Format,
    width: usize,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    let attribution = Attribution::resolve(session, true);
    match format {
        Format::Json => json::write(session, &attribution, None, out),
        Format::Markdown => markdown::write(session, &attribution, out),
        Format::Text => text::write_sized(session, &attribution, width, out),
    }
}

/// The answer with `marker(n)` written after each cited span's end, each piece passed through
/// `clean`. Provider-written markers ([`Attribution::marker_spans`], e.g. xAI's `[[1]](url)`) are
/// left out: the `marker(n)` at their end replaces them.
pub(crate) fn annotate<W: std::io::Write>(
    out: &mut Out<W>,
    answer: &str,
    attribution: &Attribution,
    clean: impl Fn(&str) -> std::borrow::Cow<'_, str>,
    marker: impl Fn(usize, &mut Out<W>),
) {
    annotate_with(out, answer, attribution, clean, marker, &[]);
}

/// [`annotate`], with each `(byte, text)` of `inserts` (sorted by byte) written at that byte of the
/// answer, after any markers due there.
pub(crate) fn annotate_with<W: std::io::Write>(
    out: &mut Out<W>,
    answer: &str,
    attribution: &Attribution,
    clean: impl Fn(&str) -> std::borrow::Cow<'_, str>,
    marker: impl Fn(usize, &mut Out<W>),
    inserts: &[(usize, String)],
) {
    let hidden = attribution.marker_spans();
    let visible = |out: &mut Out<W>, from: usize, to: usize| {
        let mut cur = from;
        let first = hidden.partition_point(|r| r.end <= from);
        for r in &hidden[first..] {
            if r.start >= to {
                break;
            }
            if r.start > cur {
                out.push_str(&clean(&answer[cur..r.start]));
            }
            cur = cur.max(r.end);
            if cur >= to {
                break;
            }
        }
        if cur < to {
            out.push_str(&clean(&answer[cur..to]));
        }
    };
    let mut pos = 0;
    let mut pending = inserts.iter().peekable();
    for (byte, numbers) in attribution.markers() {
        while let Some((at, text)) = pending.next_if(|(at, _)| *at < byte) {
            visible(out, pos, *at);
            out.push_str(text);
            pos = pos.max(*at);
        }
        visible(out, pos, byte);
        for n in numbers {
            marker(n, out);
        }
        pos = pos.max(byte);
    }
    for (at, text) in pending {
        let at = (*at).min(answer.len());
        visible(out, pos, at);
        out.push_str(text);
        pos = pos.max(at);
    }
    visible(out, pos, answer.len());
}
