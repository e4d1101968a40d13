//! The commands, one module each: the interactive app (no subcommand, `open`, and `replay`'s
//! options), `ask`, `proxy`, `render`, `serve` and `sessions`, and the
//! completion scripts and manual page (`manual`). Each parses nothing itself (clap does, in
//! `main.rs`) and turns its arguments into calls on the layers below, ending in an exit code.

pub mod app;
pub mod ask;
pub mod ask_terminal;
pub mod manual;
pub mod proxy;
pub mod render;
pub mod serve;
pub mod sessions;
pub mod sessions_export;

/// `--idle-timeout`'s value parser: whole seconds, at least 1 (clap's own range check says
/// `0 is not in 1..18446744073709551615`).
pub fn seconds_at_least_one(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("it must be at least 1 second".to_owned()),
        Ok(seconds) => Ok(seconds),
        Err(_) => Err("give a whole number of seconds, at least 1".to_owned()),
    }
}

/// An id's value parser (`--chat-id`, `--resume`, `--execution-id`, `open`'s and `sessions`' IDs),
/// trimmed: a blank one (an unset shell variable, `""`) names nothing, so it is a usage error, not
/// an id sent to the agent (or looked up) as nothing.
pub fn an_id(text: &str) -> Result<String, String> {
    match text.trim() {
        "" => Err(
            "the id is empty (an unset shell variable?): `research-tui sessions` lists them".into(),
        ),
        id => Ok(id.to_owned()),
    }
}

/// `--workflow`'s value parser: like an id, a blank one (an unset shell variable, `""`) names no
/// template, so it is a usage error naming the flag, not a run sent with an empty template id. A
/// value that is not blank is kept as written: it may be a file's path.
pub fn a_workflow(text: &str) -> Result<String, String> {
    match text.trim() {
        "" => Err(
            "the workflow is empty (an unset shell variable?): give a template id or a \
                   JSON file's path"
                .into(),
        ),
        _ => Ok(text.to_owned()),
    }
}

/// `--provider`'s value parser: a provider's name, as clap's own enum parser reads it, except that
/// an empty name in the list (`--provider bigdata,`) is said as that, not as "a value is required
/// … but none was supplied".
#[derive(Clone)]
pub struct ProviderName;

impl clap::builder::TypedValueParser for ProviderName {
    type Value = crate::wire::provider::Provider;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Self::Value, clap::Error> {
        if value.is_empty() {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                "an empty provider name in --provider's list (a comma too many?): name each \
                 agent once, e.g. --provider bigdata,xai\n",
            )
            .with_cmd(cmd));
        }
        clap::builder::EnumValueParser::<Self::Value>::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        clap::builder::EnumValueParser::<Self::Value>::new()
            .possible_values()
            .map(|values| {
                Box::new(values.collect::<Vec<_>>().into_iter()) as Box<dyn Iterator<Item = _>>
            })
    }
}
