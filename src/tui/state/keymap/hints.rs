//! Hints that name keys (popup footers, pane titles, the sidebar's note) written with the keys in
//! force: a hint is a template such as `{down}/{up} select · {copy} copy · {escape} close`, each
//! `{name}` an action's name in `[keys]`, filled with its first key where the hint shows.

use crossterm::event::{KeyCode, KeyModifiers};

use super::custom::{every_mix, key_name};
use super::{Context, Key, Keymap};

impl Keymap {
    /// `template` with each `{name}` replaced by the action's first key in the first of `places`
    /// that binds it (`o`, `Ctrl-O`, `Esc`). Its parts are separated by ` · `; a part naming an
    /// action left with no key is left out, since no key does it. A `⏎` after a placeholder (a
    /// letter that only arms, Enter carries it out) stays only when the key in force types a
    /// character (`O`, `Space`), not for `↑` or `Ctrl-O`, which act at once.
    pub fn fill(&self, places: &[Context], template: &str) -> String {
        template
            .split(" · ")
            .filter_map(|part| self.fill_part(places, part))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// How to quit from the panes, as a hint says it: `q q` (a key that types quits once typed
    /// twice), a remapped key that does not type (Ctrl, Alt, an arrow: it acts at once), else the
    /// interrupt key.
    pub fn quit_keys(&self) -> String {
        match self.first_key("quit", &[Context::Panes]) {
            Some(key) if arms(key) => format!("{0} {0}", key_name(key)),
            Some(key) => key_name(key),
            None => self
                .key_in("interrupt", &[Context::Anywhere])
                .unwrap_or_else(|| "Ctrl-C".to_owned()),
        }
    }

    /// What the interrupt key does now, as a hint says it: `Ctrl-C cancels` while a stream runs
    /// (`cancels`), else `Ctrl-C quits`; `None` when no key interrupts.
    pub fn interrupt_does(&self, cancels: bool) -> Option<String> {
        let key = self.key_in("interrupt", &[Context::Anywhere])?;
        Some(format!(
            "{key} {}",
            if cancels { "cancels" } else { "quits" }
        ))
    }

    /// How a sentence says to do action `name` with its key in force: `r then Enter` (a key that
    /// types only arms it), `Ctrl-R` or `↑` (any other key does it at once); `None` when no key
    /// does it.
    pub fn then_enter(&self, name: &str, places: &[Context]) -> Option<String> {
        let key = self.first_key(name, places)?;
        Some(match arms(key) {
            true => format!("{} then Enter", key_name(key)),
            false => key_name(key),
        })
    }

    /// The keys that switch tabs in `places`, as the tab row names them: `Tab/←→`, `Tab/PgUp/PgDn`.
    /// The ← → pair reads as one; any other two keys are kept apart by a `/` so their names do not
    /// run together. An action left with no key is left out, the others kept; empty when no key
    /// switches.
    pub fn tab_switch_keys(&self, places: &[Context]) -> String {
        let named = |name| self.key_in(name, places);
        let steps = match (named("previous_tab"), named("next_tab")) {
            (Some(back), Some(on)) if back == "←" && on == "→" => vec![format!("{back}{on}")],
            (back, on) => back.into_iter().chain(on).collect(),
        };
        named("focus_next")
            .into_iter()
            .chain(steps)
            .collect::<Vec<_>>()
            .join("/")
    }

    fn fill_part(&self, places: &[Context], part: &str) -> Option<String> {
        let mut out = String::new();
        let mut rest = part;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = open + rest[open..].find('}')?;
            let key = self.first_key(&rest[open + 1..close], places)?;
            rest = &rest[close + 1..];
            if !arms(key)
                && let Some(after) = rest.strip_prefix('⏎')
            {
                rest = after;
            }
            let key = key_name(key);
            let key = shorter(&out, &key).to_owned();
            out.push_str(&key);
        }
        out.push_str(rest);
        Some(out)
    }
}

/// The name of the plain key that types `letter` (`q`, `Space`), as a hint says it: an armed
/// letter pressed again confirms quitting.
pub fn letter_name(letter: char) -> String {
    key_name(&super::plain(letter))
}

/// Does `key`, pressed as its name says, type a character? Only such a key arms an action that
/// writes, opens, quits or sends (see `action_for`); any other (`↑`, `Ctrl-O`, `F2`) does it at
/// once. Asked of the key, not of its name's length: `↑` is one character and acts at once,
/// `Space` is five and types.
fn arms(key: &Key) -> bool {
    matches!(key.code, KeyCode::Char(c) if !c.is_control())
        && every_mix().any(|mods| {
            key.mods.allow(mods) && !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        })
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

    /// `↑` is one character long but acts at once; `Space` is a word but types, so it only arms.
    #[test]
    fn an_arrow_acts_at_once_and_space_arms_whatever_the_length_of_their_names() {
        let arrow = custom(&[("up", &["k"]), ("retry", &["up"])]);
        assert_eq!(
            arrow.then_enter("retry", &[Context::Panes]),
            Some("↑".to_owned())
        );
        assert_eq!(arrow.fill(&[Context::Panes], "{retry}⏎ retry"), "↑ retry");
        let arrow = custom(&[("up", &["k"]), ("quit", &["up"])]);
        assert_eq!(arrow.quit_keys(), "↑");
        let space = custom(&[("page_down", &["pgdn"]), ("retry", &["space"])]);
        assert_eq!(
            space.then_enter("retry", &[Context::Panes]),
            Some("Space then Enter".to_owned())
        );
        assert_eq!(
            space.fill(&[Context::Panes], "{retry}⏎ retry"),
            "Space⏎ retry"
        );
        let space = custom(&[("page_down", &["pgdn"]), ("quit", &["space"])]);
        assert_eq!(space.quit_keys(), "Space Space");
    }

    #[test]
    fn the_tab_switching_keys_are_kept_apart_unless_they_are_the_arrow_pair() {
        let places = [Context::NarrowPanes, Context::Panes];
        assert_eq!(Keymap::default().tab_switch_keys(&places), "Tab/←→");
        let keys = custom(&[
            ("page_up", &["f11"]),
            ("page_down", &["f12"]),
            ("previous_tab", &["pgup"]),
            ("next_tab", &["pgdn"]),
        ]);
        assert_eq!(keys.tab_switch_keys(&places), "Tab/PgUp/PgDn");
        let keys = custom(&[("focus_next", &[]), ("next_tab", &[])]);
        assert_eq!(keys.tab_switch_keys(&places), "←");
        let keys = custom(&[
            ("focus_next", &[]),
            ("previous_tab", &[]),
            ("next_tab", &[]),
        ]);
        assert_eq!(keys.tab_switch_keys(&places), "");
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
