//! `completions` and `man`: the shell completion scripts (clap_complete) and the manual page
//! (clap_mangen), both generated from the clap definitions in `main.rs` at run time, so they
//! cannot drift from the command line they describe.

use std::io::{self, Write};
use std::process::ExitCode;

use clap_complete::Shell;
use clap_mangen::Man;

/// Print the completion script for `shell` (the program's whole command tree).
pub fn completions(mut cmd: clap::Command, shell: Shell) -> ExitCode {
    let name = cmd.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name.clone(), &mut script);
    if shell == Shell::Bash {
        script = bash_states_named_alike(&script, &name);
    }
    print(&without_hidden(&script, &hidden_longs(&cmd)))
}

/// The long names (without `--`) of every hidden flag in the command tree: the test-only ones
/// (`--demo-speed`, `--exit-when-done`, …) that `--help` and the man page leave out. Not a global
/// option the program shows (`--theme`): hidden only on the commands it does nothing for.
fn hidden_longs(cmd: &clap::Command) -> std::collections::BTreeSet<String> {
    let shown: Vec<&str> = cmd
        .get_arguments()
        .filter(|arg| arg.is_global_set() && !arg.is_hide_set())
        .filter_map(|arg| arg.get_long())
        .collect();
    let mut names = std::collections::BTreeSet::new();
    collect_hidden_longs(cmd, &mut names);
    names.retain(|name| !shown.contains(&name.as_str()));
    names
}

fn collect_hidden_longs(cmd: &clap::Command, names: &mut std::collections::BTreeSet<String>) {
    names.extend(
        cmd.get_arguments()
            .filter(|arg| arg.is_hide_set())
            .filter_map(|arg| arg.get_long().map(str::to_owned)),
    );
    for sub in cmd.get_subcommands() {
        collect_hidden_longs(sub, names);
    }
}

/// The script without the hidden flags. clap_complete offers every argument, hidden or not
/// (it has no switch for it, and clap no way to take an argument out of a command), so they are
/// taken out of its text: a word of a list (bash's `opts="…"`, fish's option specs), a line that
/// offers one (zsh, fish, elvish, powershell), a bash `case` arm completing one's value.
fn without_hidden(script: &[u8], hidden: &std::collections::BTreeSet<String>) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let is_hidden_word = |word: &str| {
        let name = word.trim_start_matches('-');
        let name = name.strip_suffix('=').unwrap_or(name);
        hidden.contains(name)
    };
    // A line naming a hidden flag as the flag it offers.
    let offers_hidden = |line: &str| {
        hidden.iter().any(|name| {
            [
                format!("'--{name}=["),
                format!("'--{name}["),
                format!(" -l {name} "),
                format!("cand --{name} "),
                format!("::new('--{name}',"),
            ]
            .iter()
            .any(|needle| line.contains(needle.as_str()))
        })
    };
    let mut out = String::with_capacity(text.len());
    let mut skipping_arm = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if skipping_arm {
            skipping_arm = trimmed != ";;";
            continue;
        }
        if let Some(flag) = trimmed.strip_suffix(')').filter(|f| f.starts_with("--"))
            && is_hidden_word(flag)
        {
            skipping_arm = true;
            continue;
        }
        if offers_hidden(line) {
            continue;
        }
        if trimmed.starts_with("opts=\"") || trimmed.starts_with("string join \\n ") {
            let (indent, _) = line.split_at(line.len() - line.trim_start().len());
            let kept: Vec<&str> = trimmed.split(' ').filter(|w| !is_hidden_word(w)).collect();
            out.push_str(indent);
            out.push_str(&kept.join(" "));
            out.push_str(&line[line.trim_end().len()..]);
            continue;
        }
        out.push_str(line);
    }
    out.into_bytes()
}

/// clap_complete 4.6's bash script spells a subcommand's state two ways when the program's name has
/// a hyphen (clap-rs/clap#6421, open): the loop over the words reaches `research__tui__subcmd__ask`,
/// the arm that would complete `ask`'s options is labelled `research__subcmd__tui__subcmd__ask`,
/// so no subcommand's option or value ever completed. The labels are spelt as the loop spells them.
fn bash_states_named_alike(script: &[u8], name: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let (labels, states) = (name.replace('-', "__subcmd__"), name.replace('-', "__"));
    if labels == states {
        return script.to_vec();
    }
    text.replace(
        &format!("{labels}__subcmd__"),
        &format!("{states}__subcmd__"),
    )
    .into_bytes()
}

/// Print the manual page (roff, section 1) to standard output.
pub fn man(cmd: clap::Command) -> ExitCode {
    let mut page = Vec::new();
    match man_page(cmd, &mut page) {
        Ok(()) => print(&page),
        Err(error) => {
            eprintln!("research-tui: could not write the manual page: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One page for the whole program: the top-level NAME, SYNOPSIS, DESCRIPTION, OPTIONS and the list
/// of subcommands, then one section per subcommand (its synopsis, description and options as
/// subsections), then VERSION. One page is what `man research-tui` finds; one page per
/// subcommand would need installing (and naming) a dozen files.
pub fn man_page(mut cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    // Building sets each subcommand's full name (`research-tui render`) for its synopsis.
    cmd.build();
    let top = Man::new(cmd.clone());
    let mut page = Vec::new();
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    top.render_subcommands_section(&mut page)?;
    for sub in cmd.get_subcommands().filter(|sub| sub.get_name() != "help") {
        let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_uppercase();
        writeln!(page, ".SH \"{name}\"")?;
        let man = Man::new(sub.clone());
        let mut body = Vec::new();
        man.render_synopsis_section(&mut body)?;
        man.render_description_section(&mut body)?;
        man.render_options_section(&mut body)?;
        page.extend(demote_sections(&body));
    }
    page.extend(reference_sections().into_bytes());
    top.render_version_section(&mut page)?;
    out.write_all(&tidy(&page))
}

/// EXIT STATUS, ENVIRONMENT and FILES, which clap's definitions do not hold: what a script checks,
/// which variables the program reads (each provider's key from its row of the provider table) and
/// where it keeps its files.
fn reference_sections() -> String {
    let mut roff = String::from(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in [
        ("0", "complete"),
        (
            "1",
            "anything else: Ctrl\\-C, a file that cannot be read, a complete answer that could not be saved",
        ),
        (
            "2",
            "a usage error (a flag or value the program does not take)",
        ),
        (
            "3",
            "an HTTP error before the stream (also a 200 that is not an event stream)",
        ),
        ("4", "the agent sent an error"),
        (
            "5",
            "the stream was cut or stalled before it completed, or the answer passed \\-\\-max\\-answer\\-mib",
        ),
    ] {
        tagged(&mut roff, 'B', code, meaning);
    }
    roff.push_str(".SH ENVIRONMENT\n");
    for provider in crate::wire::provider::Provider::ALL {
        let variable = provider.spec().api_key_env;
        let label = provider.label();
        tagged(
            &mut roff,
            'B',
            variable,
            &format!("the API key for {label}"),
        );
    }
    for (variable, meaning) in [
        (
            "BIGDATA_AGENTS_URL",
            "the Bigdata.com base URL when \\-\\-base\\-url is not given",
        ),
        (
            "RESEARCH_TUI_MAX_ANSWER_MIB",
            "the answer limit when \\-\\-max\\-answer\\-mib is not given (default 64)",
        ),
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "send each turn as an OpenTelemetry trace there (also the _TRACES_ENDPOINT, _HEADERS and _PROTOCOL variables, and OTEL_SERVICE_NAME)",
        ),
        ("NO_COLOR", "no colors"),
        ("COLORTERM", "truecolor or 24bit: 24\\-bit colors"),
        ("BROWSER", "the program that opens a source\\(aqs URL"),
        (
            "XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME",
            "where the files below live",
        ),
    ] {
        tagged(&mut roff, 'B', variable, meaning);
    }
    roff.push_str(".SH FILES\n");
    for (file, meaning) in [
        (
            "$XDG_CONFIG_HOME/research\\-tui/config.toml",
            "the configuration (the key, the base URL, the theme, [keys]); private to its owner",
        ),
        (
            "$XDG_DATA_HOME/research\\-tui/sessions/",
            "the saved sessions, a folder each, with the index beside it",
        ),
        (
            "$XDG_CACHE_HOME/research\\-tui/research\\-tui.log",
            "the log, with each failure\\(aqs whole report",
        ),
    ] {
        tagged(&mut roff, 'I', file, meaning);
    }
    roff
}

/// One tagged paragraph: `term` in `font` (`B` bold, `I` italic), `meaning` indented below it.
fn tagged(roff: &mut String, font: char, term: &str, meaning: &str) {
    roff.push_str(&format!(".TP\n\\f{font}{term}\\fR\n{meaning}\n"));
}

/// A subcommand's own sections become subsections of its section (`.SH` → `.SS`). The roff writer
/// escapes a leading dot in text, so only real section macros start a line with `.SH `.
fn demote_sections(roff: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_prefix(".SH ") {
            Some(rest) => {
                out.push_str(".SS ");
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// Each rendered piece starts with the same two-line string definition (the apostrophe glyph);
/// the page needs it once, at the top.
fn tidy(page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let mut seen = std::collections::HashSet::new();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let preamble = line.starts_with(".ie \\n(.g .ds Aq") || line.starts_with(".el .ds Aq");
        if !preamble || seen.insert(line) {
            out.push_str(line);
        }
    }
    out.into_bytes()
}

/// Write to standard output; a closed pipe (`| head`) is not an error worth a message.
fn print(bytes: &[u8]) -> ExitCode {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("research-tui: could not write to standard output: {error}");
            ExitCode::FAILURE
        }
    }
}
