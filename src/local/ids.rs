//! Ids as a person types them: any unique prefix of a saved session's id, or of a checkpoint id a
//! saved session knows, names it — as git and gh accept an abbreviated hash. A prefix that names
//! several says which, so the person can type one more character.

use crate::local::store::SessionStore;
use crate::render::sanitize::sanitize_line;

/// What a typed id names among the known ones.
#[derive(Debug, PartialEq)]
pub enum Named {
    /// Exactly one (the whole id): typed in full, or a prefix of no other.
    One(String),
    Nothing,
    /// Every id the prefix starts, sorted.
    Several(Vec<String>),
}

/// The ids among `known` that `typed` names: its exact match first, else every id it starts.
pub fn by_prefix<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Named {
    let typed = typed.trim();
    if typed.is_empty() {
        return Named::Nothing;
    }
    let mut matches: Vec<&str> = known
        .into_iter()
        .filter(|id| id.starts_with(typed))
        .collect();
    if matches.contains(&typed) {
        return Named::One(typed.to_owned());
    }
    matches.sort_unstable();
    matches.dedup();
    match matches.as_slice() {
        [] => Named::Nothing,
        [one] => Named::One((*one).to_owned()),
        several => Named::Several(several.iter().map(|id| (*id).to_owned()).collect()),
    }
}

/// "`typed` is ambiguous: it starts a, b, c and 4 more", for a prefix that names several ids.
fn ambiguous(what: &str, typed: &str, several: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut listed: Vec<String> = several
        .iter()
        .take(SHOWN)
        .map(|id| sanitize_line(id).into_owned())
        .collect();
    if several.len() > SHOWN {
        listed.push(format!("{} more", several.len() - SHOWN));
    }
    format!(
        "{what} {:?} is ambiguous: it starts {}",
        sanitize_line(typed.trim()),
        listed.join(", ")
    )
}

/// The line saying that no saved session knows the `--resume` checkpoint (or, without one, the
/// `--chat-id`) a person gave, so it goes to the agent as given (another machine's id, a session
/// deleted) but not in silence; `then` says when it is sent. None when neither was given.
pub fn unknown_continuation(
    checkpoint: Option<&str>,
    chat: Option<&str>,
    then: &str,
) -> Option<String> {
    let (what, id) = match (checkpoint, chat) {
        (Some(checkpoint), _) => ("checkpoint", checkpoint),
        (None, Some(chat)) => ("chat", chat),
        (None, None) => return None,
    };
    Some(format!(
        "no saved session knows {what} {}: {then}",
        sanitize_line(id)
    ))
}

impl SessionStore {
    /// The saved session `typed` names (a whole id or a unique prefix of one), or the line that
    /// says why none is.
    pub fn session_id(&self, typed: &str) -> Result<String, String> {
        let ids: Vec<String> = std::fs::read_dir(self.root())
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| !name.starts_with('.'))
            .collect();
        match by_prefix(typed, ids.iter().map(String::as_str)) {
            Named::One(id) => Ok(id),
            Named::Nothing => Err(format!(
                "no saved session {:?} (see `research-tui sessions`)",
                sanitize_line(typed.trim())
            )),
            Named::Several(several) => Err(ambiguous("session id", typed, &several)),
        }
    }

    /// The checkpoint id `typed` names: the whole id of a checkpoint a saved session knows when it
    /// is a unique prefix of one, else `typed` itself (a checkpoint from elsewhere goes to the
    /// agent as given); an error when it starts several known ones.
    pub fn checkpoint_id(&self, typed: &str) -> Result<String, String> {
        let sessions = self.list();
        let known = sessions.iter().flat_map(|meta| {
            meta.turns
                .iter()
                .flat_map(|turn| {
                    [
                        turn.checkpoint_id.as_deref(),
                        turn.from_checkpoint_id.as_deref(),
                    ]
                })
                .flatten()
        });
        match by_prefix(typed, known) {
            Named::One(id) => Ok(id),
            Named::Nothing => Ok(typed.trim().to_owned()),
            Named::Several(several) => Err(ambiguous("checkpoint", typed, &several)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [&str; 3] = [
        "20261125-101500-a1b2",
        "20261125-101500-a1c9",
        "20261124-090000-ffff",
    ];

    #[test]
    fn a_unique_prefix_names_its_whole_id() {
        assert_eq!(
            by_prefix("20261124", KNOWN),
            Named::One("20261124-090000-ffff".into())
        );
        assert_eq!(
            by_prefix(" 20261125-101500-a1c ", KNOWN),
            Named::One("20261125-101500-a1c9".into())
        );
    }

    #[test]
    fn a_prefix_of_several_names_them_all_sorted() {
        assert_eq!(
            by_prefix("20261125", KNOWN),
            Named::Several(vec![
                "20261125-101500-a1b2".into(),
                "20261125-101500-a1c9".into()
            ])
        );
    }

    #[test]
    fn a_whole_id_wins_over_the_longer_ids_it_starts() {
        let known = ["ckpt-1", "ckpt-10", "ckpt-11"];
        assert_eq!(by_prefix("ckpt-1", known), Named::One("ckpt-1".into()));
    }

    #[test]
    fn nothing_typed_or_nothing_matching_names_nothing() {
        assert_eq!(by_prefix("", KNOWN), Named::Nothing);
        assert_eq!(by_prefix("  ", KNOWN), Named::Nothing);
        assert_eq!(by_prefix("2027", KNOWN), Named::Nothing);
    }

    #[test]
    fn an_ambiguous_prefix_lists_five_and_counts_the_rest() {
        let several: Vec<String> = (0..8).map(|i| format!("ckpt-{i}")).collect();
        assert_eq!(
            ambiguous("checkpoint", "ckpt-", &several),
            "checkpoint \"ckpt-\" is ambiguous: it starts ckpt-0, ckpt-1, ckpt-2, ckpt-3, ckpt-4, 3 more"
        );
    }
}
