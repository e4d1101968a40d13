//! `ask -`: the question read from standard input, as `render -` reads a stream from it.

/// The most of standard input `ask -` reads as a question (a question is a few lines; a larger
/// input is a mistake, refused before it fills memory).
const MAX_STDIN_QUESTION: u64 = 1 << 20;

/// `ask -`: the question read from standard input, trimmed, or the usage error to print.
pub(super) fn question() -> Result<String, String> {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("research-tui: reading the question from standard input (end it with Ctrl-D)");
    }
    let mut bytes = Vec::new();
    stdin
        .lock()
        .take(MAX_STDIN_QUESTION + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the question from standard input: {e}"))?;
    if bytes.len() as u64 > MAX_STDIN_QUESTION {
        return Err("the question on standard input is over 1 MiB".to_owned());
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| "the question on standard input is not UTF-8 text".to_owned())?;
    Ok(text.trim().to_owned())
}
