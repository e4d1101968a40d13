//! Side effects the app asks for: exporting the conversation to Markdown, opening a URL in the
//! browser (detached), and copying through OSC 52.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use super::app::Turn;
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

/// Standard base64 (RFC 4648, with padding).
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OSC 52 sequence that puts `text` on the system clipboard (the payload is base64, so safe).
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn only_web_urls_are_opened() {
        assert!(is_web_url("https://example.com/a?b=c"));
        assert!(!is_web_url("file:///etc/passwd"));
        assert!(!is_web_url("https://x.com/\x1b]"));
        assert!(!is_web_url("-h"));
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
