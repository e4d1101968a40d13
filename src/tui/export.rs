//! Side effects the app asks for: exporting the conversation to Markdown, opening a URL in the
//! browser (detached), and copying to the clipboard through the terminal (OSC 52).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use crossterm::clipboard::CopyToClipboard;

use super::state::Turn;
use crate::model::citations::Attribution;
use crate::render::sanitize::sanitize_line;

/// The conversation as one Markdown document: each turn's question, then its answer with footnotes.
pub fn conversation_markdown(turns: &[Turn]) -> String {
    let mut out = String::from("# Research session\n");
    for (i, turn) in turns.iter().enumerate() {
        out.push('\n');
        match &turn.question {
            Some(q) => out.push_str(&format!("## You: {}\n\n", sanitize_line(q))),
            None => out.push_str(&format!("## Turn {}\n\n", i + 1)),
        }
        let attribution = Attribution::resolve(&turn.session, true);
        out.push_str(&crate::render::markdown::render(
            &turn.session,
            &attribution,
        ));
        if let Some(structured) = &turn.session.structured_output {
            let pretty = serde_json::to_string_pretty(&structured.content).unwrap_or_default();
            out.push_str("\n**Structured output**\n\n```json\n");
            out.push_str(&crate::render::sanitize::sanitize(&pretty));
            out.push_str("\n```\n");
        }
        if let Some(error) = &turn.session.error {
            out.push_str(&format!("\n> Error: {}\n", sanitize_line(error)));
        } else if turn.session.completion.is_none() {
            out.push_str("\n> (incomplete)\n");
        }
        if let Some(checkpoint) = turn.session.checkpoint_id() {
            // Not an HTML comment: a hostile id could close it and smuggle markup into the export.
            out.push_str(&format!(
                "\nCheckpoint: `{}`\n",
                sanitize_line(checkpoint).replace('`', "'")
            ));
        }
    }
    out
}

/// Write the export into `dir` under a fresh name; returns the path.
pub fn export_to(dir: &Path, turns: &[Turn]) -> io::Result<PathBuf> {
    let stem = format!(
        "research-tui-export-{}",
        crate::local::timestamp::compact_stamp(SystemTime::now())
    );
    let text = conversation_markdown(turns);
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
pub fn export(turns: &[Turn]) -> io::Result<PathBuf> {
    std::env::current_dir()
        .and_then(|dir| export_to(&dir, turns))
        .or_else(|_| {
            let dir = crate::local::config::data_dir();
            std::fs::create_dir_all(&dir)?;
            export_to(&dir, turns)
        })
}

/// Only web URLs are handed to the browser opener.
pub fn is_web_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !url.chars().any(|c| c.is_control() || c.is_whitespace())
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
                    crate::local::log::log(&format!("opening a URL: {failure}"));
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

/// Put `text` on the system clipboard through the terminal: one OSC 52 sequence (its payload is
/// base64, so the text cannot inject escapes), flushed.
pub fn copy_to_clipboard(out: &mut impl Write, text: &str) -> io::Result<()> {
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
            copy_to_clipboard(&mut out, input).unwrap();
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
        let path = export_to(dir.path(), &[turn]).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("## You: What happened?"));
        assert!(text.contains("Revenue rose."));
        assert!(text.contains("Checkpoint: `ck-1`"));
    }
}
