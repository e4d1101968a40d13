//! `ask --format text` when standard output is a terminal: the answer rendered for people as it
//! arrives — headings, emphasis, lists and tables, with the `[n]` markers — through the app's own
//! Markdown renderer, a block at a time (a block prints once it is complete, so a table prints
//! whole), then the sources. To a pipe or a file `ask` prints plain text instead.

use std::io::Write;

use ratatui::style::Color;

use crate::model::citations::Attribution;
use crate::model::session::Session;
use crate::styled::colors::ColorDepth;
use crate::styled::text::ansi::to_ansi;
use crate::styled::text::{Annotations, AnswerView, inline_text};
use crate::styled::theme::{self, Theme};

/// The widest the answer is wrapped, however wide the terminal.
const MAX_WIDTH: usize = 100;

/// Prints a streaming answer as rendered Markdown.
pub struct TerminalAnswer {
    view: AnswerView,
    ann: Annotations,
    markers_version: u64,
    /// Rows already printed.
    printed: usize,
    width: usize,
    theme: Theme,
    /// References and grounding revision the markers were resolved for, and references waiting.
    resolved_for: Option<(usize, u64)>,
    pending: usize,
    /// The answer is resent whole (it may be rewritten): printed once, at the end.
    deferred: bool,
}

impl TerminalAnswer {
    /// For the terminal on standard output: its width (at most [`MAX_WIDTH`]) and colors.
    pub fn new() -> TerminalAnswer {
        let width = crossterm::terminal::size()
            .map_or(80, |(w, _)| w as usize)
            .clamp(20, MAX_WIDTH);
        TerminalAnswer::with(width, stdout_theme(ColorDepth::from_env()))
    }

    fn with(width: usize, theme: Theme) -> TerminalAnswer {
        TerminalAnswer {
            view: AnswerView::new(),
            ann: Annotations::default(),
            markers_version: 0,
            printed: 0,
            width,
            theme,
            resolved_for: None,
            pending: 0,
            deferred: false,
        }
    }

    /// The columns the answer is printed in.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Print the blocks completed since the last call.
    pub fn print_new(&mut self, session: &Session) {
        self.deferred |= session.answer.is_resent();
        if self.deferred {
            return;
        }
        self.sync(session, false);
        let text = self.rows(self.view.completed_height());
        write_out(&text);
    }

    /// After the stream: the rest of the answer, then the sources, tool data and the checkpoint.
    pub fn finish(&mut self, session: &Session) {
        let text = self.rest(session);
        write_out(&text);
    }

    /// A whole finished answer as [`TerminalAnswer::finish`] prints it, for the terminal on
    /// standard output (`render --format text`).
    pub fn whole(session: &Session) -> String {
        TerminalAnswer::new().rest(session)
    }

    /// What [`TerminalAnswer::finish`] prints.
    fn rest(&mut self, session: &Session) -> String {
        self.deferred |= session.answer.is_resent();
        self.sync(session, true);
        let mut text = self.rows(self.view.height());
        let attribution = Attribution::resolve(session, true);
        let trailer = crate::render::text::trailer_sized(session, &attribution, self.width);
        // A section starts at a line flush left; its lines are indented.
        let mut laid_out = false;
        for line in trailer.split_inclusive('\n') {
            let body = line.trim_end_matches('\n');
            if !body.is_empty() && !body.starts_with(' ') {
                laid_out = crate::render::text::LAID_OUT_SECTIONS.contains(&body);
            }
            if laid_out {
                // Columns line up only as laid out: a value wider than its column (a URL) runs
                // past the edge and the terminal folds it, its key and every other row in place.
                text.push_str(line);
            } else {
                text.push_str(&wrap_trailer_line(&quoted_words(line), self.width));
            }
        }
        text
    }

    /// Rows `printed..end` as terminal lines.
    fn rows(&mut self, end: usize) -> String {
        let color = !self.theme.no_color;
        let count = end.saturating_sub(self.printed);
        let mut text = String::new();
        for row in self.view.rows(self.printed, count) {
            text.push_str(&to_ansi(row, color));
            text.push('\n');
        }
        self.printed = self.printed.max(end);
        text
    }

    /// Bring the rendering up to date: the markers re-resolved when references changed (or some
    /// wait for their text), then the blocks.
    fn sync(&mut self, session: &Session, finished: bool) {
        let basis = (session.references.len(), session.grounding_revision);
        if finished || self.resolved_for != Some(basis) || self.pending > 0 {
            let attribution = Attribution::resolve(session, finished);
            self.pending = attribution.pending_references;
            self.resolved_for = Some(basis);
            let ann = Annotations {
                markers: attribution.markers(),
                hidden: attribution.marker_spans(),
            };
            if ann != self.ann {
                self.ann = ann;
                self.markers_version += 1;
            }
        }
        self.view.sync(
            session.answer.as_str(),
            &self.ann,
            self.markers_version,
            0,
            self.width,
            &self.theme,
        );
    }
}

impl Default for TerminalAnswer {
    fn default() -> Self {
        TerminalAnswer::new()
    }
}

/// A trailer line (a source, tool data) longer than `width` columns, wrapped at words, its
/// continuation lines indented under its text after the `[n] ` or `- ` marker; a word longer than
/// a line (a URL) stays whole on a line of its own. The terminal would break both mid-word.
/// Charts and tables are laid out to `width` and never reach the wrapping (nor the quotes'
/// styling): moved or restyled, a cell would leave its column. Wrapped after
/// the quoted words are styled (styling a quote split across lines would miss it).
fn wrap_trailer_line(line: &str, width: usize) -> std::borrow::Cow<'_, str> {
    let body = line.trim_end_matches('\n');
    if width == 0 || visible_width(body) <= width {
        return line.into();
    }
    let indent = body.len() - body.trim_start_matches(' ').len();
    let rest = &body[indent..];
    let marker = match rest.find("] ") {
        Some(end) if rest.starts_with('[') => visible_width(&rest[..end + 2]),
        _ if rest.starts_with("- ") => 2,
        _ => 0,
    };
    let hang = " ".repeat((indent + marker).min(width / 2));
    let mut out = String::with_capacity(line.len() + 16);
    let mut current = " ".repeat(indent);
    let mut words_on_line = 0;
    for word in rest.split(' ').filter(|w| !w.is_empty()) {
        if words_on_line > 0 && visible_width(&current) + 1 + visible_width(word) > width {
            out.push_str(&current);
            out.push('\n');
            current.clone_from(&hang);
            words_on_line = 0;
        }
        if words_on_line > 0 {
            current.push(' ');
        }
        current.push_str(word);
        words_on_line += 1;
    }
    out.push_str(&current);
    out.push('\n');
    out.into()
}

/// The columns `text` takes on the terminal: its escape sequences (the quoted words' styling)
/// take none.
fn visible_width(text: &str) -> usize {
    use unicode_width::UnicodeWidthStr;
    let mut width = 0;
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        width += rest[..at].width();
        rest = rest[at..].find('m').map_or("", |end| &rest[at + end + 1..]);
    }
    width + rest.width()
}

/// A trailer line with the answer's words it quotes (`“… **August 26** …”`) in words, as the
/// rendered answer shows them.
fn quoted_words(line: &str) -> std::borrow::Cow<'_, str> {
    match (line.find('“'), line.rfind('”')) {
        (Some(open), Some(close)) if open < close => {
            let inner = &line[open + '“'.len_utf8()..close];
            format!(
                "{}“{}”{}",
                &line[..open],
                inline_text(inner),
                &line[close + '”'.len_utf8()..]
            )
            .into()
        }
        _ => line.into(),
    }
}

/// The `--theme` this process was given, for what it prints to the terminal.
static THEME_FLAG: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// `--theme NAME` (a built-in name, clap checked it) for the answers `ask` and `render` print to a
/// terminal, as the app takes it; set once, before anything prints.
pub fn use_theme(name: Option<String>) {
    let _ = THEME_FLAG.set(name);
}

/// The theme `--theme` names, else the configured one (or dark), for printing: text, background
/// and code background in the terminal's own colors (a light or dark terminal stays readable),
/// accents brought to what the terminal shows; `NO_COLOR` keeps only bold, italics and underlines.
fn stdout_theme(depth: ColorDepth) -> Theme {
    let (config, _) = theme::read_config();
    let flag = THEME_FLAG.get().and_then(Option::as_deref);
    let (mut theme, _) = theme::select(flag, &config, theme::no_color_env());
    theme.fg = Color::Reset;
    theme.bg = Color::Reset;
    theme.code_bg = Color::Reset;
    theme.for_depth(depth)
}

fn write_out(text: &str) {
    if text.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_rendered_for_the_terminal_with_the_markers() {
        let file = std::fs::File::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/recordings/bigdata/earnings-deep-dive.sse"
        ))
        .unwrap();
        let (session, _) = crate::wire::input::read_session(file, None).unwrap();
        let theme = stdout_theme(ColorDepth::Ansi256).without_colors();
        let text = TerminalAnswer::with(80, theme).rest(&session);
        for raw in ["## ", "**", "|---", "| Segment"] {
            assert!(!text.contains(raw), "{raw:?} in\n{text}");
        }
        assert!(text.contains("\x1b[0;1m"), "headings and emphasis are bold");
        let plain: String = text.lines().map(|l| strip(l) + "\n").collect();
        assert!(
            plain.contains("Segment                    │ Q1 FY27"),
            "{plain}"
        );
        assert!(plain.contains("• Compute revenue"), "{plain}");
        assert!(plain.contains("year on year[1]"), "markers: {plain}");
        let answer = plain.split("\nSources\n").next().unwrap();
        assert!(
            answer
                .lines()
                .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80),
            "{answer}"
        );
        assert!(
            plain.contains("\nSources\n  [1] NVIDIA Newsroom"),
            "{plain}"
        );
    }

    /// `line` without escape sequences.
    fn strip(line: &str) -> String {
        let mut out = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}
