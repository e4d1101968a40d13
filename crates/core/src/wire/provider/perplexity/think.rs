//! Reasoning models (`sonar-reasoning-pro`, `sonar-deep-research`) open their content with
//! `<think>…</think>`: that part is thinking, the rest is the answer. The tags may be split across
//! chunks (`<th` + `ink>`), so text that could still be the start of a tag is held back until the
//! next chunk decides it.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// Where the content stands.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing but (perhaps) whitespace and part of `<think>` so far.
    #[default]
    Opening,
    Thinking,
    /// Past `</think>`, before the first answer text: whitespace here is dropped.
    Closed,
    Answer,
}

/// Splits content chunks into thinking and answer text.
#[derive(Debug, Default)]
pub(super) struct ThinkSplitter {
    phase: Phase,
    held: String,
}

/// What one chunk (or the end) yields.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Split {
    pub thinking: String,
    pub answer: String,
}

impl ThinkSplitter {
    pub fn push(&mut self, chunk: &str) -> Split {
        self.held.push_str(chunk);
        let mut split = Split::default();
        loop {
            match self.phase {
                Phase::Opening => {
                    let trimmed = self.held.trim_start();
                    if let Some(rest) = trimmed.strip_prefix(OPEN) {
                        self.held = rest.to_owned();
                        self.phase = Phase::Thinking;
                    } else if OPEN.starts_with(trimmed) {
                        // Still possibly `<think>` (or only whitespace so far).
                        return split;
                    } else {
                        self.phase = Phase::Answer;
                    }
                }
                Phase::Thinking => match self.held.find(CLOSE) {
                    Some(at) => {
                        split.thinking.push_str(&self.held[..at]);
                        self.held.drain(..at + CLOSE.len());
                        self.phase = Phase::Closed;
                    }
                    None => {
                        let keep = partial_tail(&self.held, CLOSE);
                        let cut = self.held.len() - keep;
                        split.thinking.push_str(&self.held[..cut]);
                        self.held.drain(..cut);
                        return split;
                    }
                },
                Phase::Closed => {
                    let trimmed = self.held.trim_start();
                    if trimmed.is_empty() {
                        self.held.clear();
                        return split;
                    }
                    self.held = trimmed.to_owned();
                    self.phase = Phase::Answer;
                }
                Phase::Answer => {
                    split.answer.push_str(&self.held);
                    self.held.clear();
                    return split;
                }
            }
        }
    }

    /// The content ended: what was held back is what it looked like (an unclosed `<think>` stays
    /// thinking; a lone `<thi` is answer text).
    pub fn finish(&mut self) -> Split {
        let held = std::mem::take(&mut self.held);
        match self.phase {
            Phase::Thinking => Split {
                thinking: held,
                ..Split::default()
            },
            Phase::Closed => Split::default(),
            Phase::Opening | Phase::Answer => Split {
                answer: if self.phase == Phase::Opening {
                    held.trim_start().to_owned()
                } else {
                    held
                },
                ..Split::default()
            },
        }
    }
}

/// The length of the longest end of `text` that is a proper start of `tag`.
fn partial_tail(text: &str, tag: &str) -> usize {
    (1..tag.len())
        .rev()
        .find(|&n| text.is_char_boundary(text.len().saturating_sub(n)) && text.ends_with(&tag[..n]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&str]) -> (String, String) {
        let mut splitter = ThinkSplitter::default();
        let (mut thinking, mut answer) = (String::new(), String::new());
        let mut splits: Vec<Split> = chunks.iter().map(|c| splitter.push(c)).collect();
        splits.push(splitter.finish());
        for split in splits {
            thinking.push_str(&split.thinking);
            answer.push_str(&split.answer);
        }
        (thinking, answer)
    }

    #[test]
    fn think_tags_split_anywhere_still_separate_thinking_from_the_answer() {
        let whole = "<think>\nLook up the act.\n</think>\n\nThe AI Act [1] applies.";
        for at in 0..whole.len() {
            for at2 in at..whole.len() {
                let chunks = [&whole[..at], &whole[at..at2], &whole[at2..]];
                assert_eq!(
                    run(&chunks),
                    (
                        "\nLook up the act.\n".to_owned(),
                        "The AI Act [1] applies.".to_owned()
                    ),
                    "{chunks:?}"
                );
            }
        }
    }

    #[test]
    fn content_without_think_is_all_answer_and_an_unclosed_think_is_all_thinking() {
        assert_eq!(
            run(&["<b>Bold</b> ", "text"]),
            (String::new(), "<b>Bold</b> text".into())
        );
        assert_eq!(run(&["<thi"]), (String::new(), "<thi".into()));
        assert_eq!(
            run(&["<think>still ", "going</th"]),
            ("still going</th".into(), String::new())
        );
        assert_eq!(run(&["é<think>"]), (String::new(), "é<think>".into()));
    }
}
