//! Hints that name keys (popup footers, pane titles, the sidebar's note) written with the keys in
//! force: a hint is a template such as `{down}/{up} select · {copy} copy · {escape} close`, each
//! `{name}` an action's name in `[keys]`, filled with its first key where the hint shows.

use super::{Context, Keymap};

impl Keymap {
    /// `template` with each `{name}` replaced by the action's first key in the first of `places`
    /// that binds it (`o`, `Ctrl-O`, `Esc`). Its parts are separated by ` · `; a part naming an
    /// action left with no key is left out, since no key does it. A `⏎` after a placeholder (a
    /// letter that only arms, Enter carries it out) stays only when the key in force is a letter.
    pub fn fill(&self, places: &[Context], template: &str) -> String {
        template
            .split(" · ")
            .filter_map(|part| self.fill_part(places, part))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// How to quit from the panes, as a hint says it: `q q` (a letter quits once typed twice), a
    /// remapped key with Ctrl or Alt alone (it acts at once), else the interrupt key.
    pub fn quit_keys(&self) -> String {
        match self.key_in("quit", &[Context::Panes]) {
            Some(key) if key.chars().count() == 1 => format!("{key} {key}"),
            Some(key) => key,
            None => self
                .key_in("interrupt", &[Context::Anywhere])
                .unwrap_or_else(|| "Ctrl-C".to_owned()),
        }
    }

    /// How a sentence says to do action `name` with its key in force: `r then Enter` (a letter
    /// only arms it), `Ctrl-R` (any other key does it at once); `None` when no key does it.
    pub fn then_enter(&self, name: &str, places: &[Context]) -> Option<String> {
        let key = self.key_in(name, places)?;
        Some(match key.chars().count() {
            1 => format!("{key} then Enter"),
            _ => key,
        })
    }

    fn fill_part(&self, places: &[Context], part: &str) -> Option<String> {
        let mut out = String::new();
        let mut rest = part;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = open + rest[open..].find('}')?;
            let key = self.key_in(&rest[open + 1..close], places)?;
            rest = &rest[close + 1..];
            // Only a letter arms its action: any other key does it at once.
            if key.chars().count() != 1
                && let Some(after) = rest.strip_prefix('⏎')
            {
                rest = after;
            }
            let key = shorter(&out, &key).to_owned();
            out.push_str(&key);
        }
        out.push_str(rest);
        Some(out)
    }
}

/// `key` as written after `before`: a second letter with the same modifier as the one just
/// before the `/` loses the modifier (`Alt-N/P`, not `Alt-N/Alt-P`).
fn shorter<'a>(before: &str, key: &'a str) -> &'a str {
    let Some((mods, letter)) = key.rsplit_once('-') else {
        return key;
    };
    let paired = before
        .strip_suffix('/')
        .and_then(|b| b.rsplit_once(' ').map_or(Some(b), |(_, last)| Some(last)))
        .and_then(|last| last.rsplit_once('-'))
        .is_some_and(|(m, l)| m == mods && l.chars().count() == 1);
    match paired && letter.chars().count() == 1 {
        true => letter,
        false => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(entries: &[(&str, &[&str])]) -> Keymap {
        let entries: Vec<_> = entries
            .iter()
            .map(|(name, keys)| {
                let keys = keys.iter().map(|k| (*k).to_owned()).collect();
                ((*name).to_owned(), Some(keys))
            })
            .collect();
        Keymap::with_entries(&entries).unwrap()
    }

    const FOOTER: &str = "{down}/{up} spans · {enter} show · {open_source}⏎ open · {escape} close";

    #[test]
    fn the_default_keys_fill_a_hint_as_it_was_written() {
        let hint = Keymap::default().fill(&[Context::Popup], FOOTER);
        assert_eq!(hint, "j/k spans · Enter show · o⏎ open · Esc close");
    }

    #[test]
    fn a_changed_key_is_the_one_named_and_a_key_that_does_not_arm_loses_its_enter() {
        let keys = custom(&[("open_source", &["O"])]);
        assert_eq!(
            keys.fill(&[Context::Popup], FOOTER),
            "j/k spans · Enter show · O⏎ open · Esc close"
        );
        let keys = custom(&[("open_source", &["ctrl-o"])]);
        assert_eq!(
            keys.fill(&[Context::Popup], FOOTER),
            "j/k spans · Enter show · Ctrl-O open · Esc close"
        );
    }

    #[test]
    fn two_letters_with_one_modifier_share_it() {
        let hint = Keymap::default().fill(
            &[Context::Comparison],
            "{next_agent}/{previous_agent} agent",
        );
        assert_eq!(hint, "Alt-N/P agent");
    }

    #[test]
    fn a_sentence_says_then_enter_only_after_a_letter_that_arms() {
        assert_eq!(
            Keymap::default().then_enter("retry", &[Context::Panes]),
            Some("r then Enter".to_owned())
        );
        let keys = custom(&[("retry", &["ctrl-t"])]);
        assert_eq!(
            keys.then_enter("retry", &[Context::Panes]),
            Some("Ctrl-T".to_owned())
        );
        let keys = custom(&[("retry", &[])]);
        assert_eq!(keys.then_enter("retry", &[Context::Panes]), None);
    }

    #[test]
    fn an_action_left_with_no_key_leaves_its_part_out() {
        let keys = custom(&[("open_source", &[])]);
        assert_eq!(
            keys.fill(&[Context::Popup], FOOTER),
            "j/k spans · Enter show · Esc close"
        );
    }
}
