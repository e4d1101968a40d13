//! The installable aids through the real binary: `completions <shell>` and `man`, checked against
//! the subcommands `--help` lists (clap's own help, not the generators under test), and
//! `--version` naming the commit.

use std::process::{Command, Output};

use crate::support;

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

fn research_tui(args: &[&str]) -> Output {
    let output = support::cli(support::scratch())
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "research-tui {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The subcommands as `research-tui --help` lists them under "Commands:" (without `help`).
fn subcommands() -> Vec<String> {
    let help = String::from_utf8(research_tui(&["--help"]).stdout).unwrap();
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: section");
    let names: Vec<String> = commands
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    for expected in ["render", "ask", "sessions", "completions", "man"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    names
}

#[test]
fn every_shell_gets_a_completion_script_that_names_every_subcommand() {
    let subcommands = subcommands();
    for shell in SHELLS {
        let script = String::from_utf8(research_tui(&["completions", shell]).stdout).unwrap();
        assert!(script.len() > 500, "{shell}: a script, not {script:?}");
        for name in &subcommands {
            assert!(
                script.contains(name.as_str()),
                "{shell} script lacks {name}"
            );
        }
    }
}

/// The flags hidden from `--help` (test-only: the demo's pace and faults, quitting when done) are
/// not offered by any shell; the visible ones around them still are.
#[test]
fn no_shell_offers_the_hidden_test_only_flags() {
    for shell in SHELLS {
        let script = String::from_utf8(research_tui(&["completions", shell]).stdout).unwrap();
        for hidden in ["demo-speed", "demo-fault", "exit-when-done"] {
            assert!(!script.contains(hidden), "{shell} script offers --{hidden}");
        }
        for visible in [
            "idle-timeout",
            "speed",
            "follow",
            "base-url",
            "max-answer-mib",
        ] {
            assert!(script.contains(visible), "{shell} script lacks --{visible}");
        }
    }
    let offered = bash_offers(&["open", "x", "--"]);
    assert!(offered.iter().any(|o| o == "--speed"), "{offered:?}");
    assert!(
        !offered.iter().any(|o| o.starts_with("--demo-")),
        "{offered:?}"
    );
}

/// What bash offers on Tab after `research-tui` and `words` (the last one being completed): the script is sourced and
/// the function it registered for the program (`complete -p` names it) called as bash calls it.
fn bash_offers(words: &[&str]) -> Vec<String> {
    let script = String::from_utf8(research_tui(&["completions", "bash"]).stdout).unwrap();
    // A file of its own: tests run at once, and one must not source another's half-written file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = support::scratch().join(format!("research-tui-{call}.bash"));
    std::fs::write(&path, script).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let current = words[words.len() - 1];
    let previous = words
        .len()
        .checked_sub(2)
        .map_or("research-tui", |i| words[i]);
    let probe = format!(
        "source '{}' && f=$(complete -p research-tui | sed -E 's/.*-F ([^ ]+).*/\\1/') && \
         COMP_WORDS=(research-tui {}) && COMP_CWORD={} && \
         \"$f\" research-tui '{current}' '{previous}' && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display(),
        quoted.join(" "),
        words.len(),
    );
    let output = Command::new("bash").args(["-c", &probe]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_the_subcommands_after_the_program_name() {
    let offered = bash_offers(&[""]);
    for name in subcommands() {
        assert!(offered.contains(&name), "{name} not offered in {offered:?}");
    }
}

/// A subcommand's own options and an option's values complete too (with clap_complete's script as
/// generated, nothing did after a subcommand: the program's name has a hyphen, clap-rs/clap#6421).
#[test]
fn bash_completes_a_subcommands_options_and_the_theme_names() {
    for (words, expected) in [
        (&["research-tui", "render", "--f"][..], &["--format"][..]),
        (
            &["research-tui", "ask", "Q?", "--for"][..],
            &["--format"][..],
        ),
        (
            &["research-tui", "render", "--theme", ""][..],
            &["dark", "light", "high-contrast"][..],
        ),
        (
            &["research-tui", "render", "--format", ""][..],
            &["markdown", "json", "text"][..],
        ),
    ] {
        let offered = bash_offers(&words[1..]);
        for name in expected {
            assert!(
                offered.iter().any(|o| o == name),
                "{words:?}: {name} not in {offered:?}"
            );
        }
    }
}

#[test]
fn the_man_page_renders_without_warnings_with_a_section_for_every_subcommand() {
    let page = research_tui(&["man"]).stdout;
    let path = support::scratch().join("research-tui.1");
    std::fs::write(&path, &page).unwrap();
    // man-db formats with groff; `--warnings=all` turns on every troff warning category.
    let output = Command::new("man")
        .args(["--warnings=all", "-l"])
        .arg(&path)
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("man (man-db) is installed: .ci/run installs it");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.is_empty(),
        "man warned: {stderr}"
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("NAME") && text.contains("SYNOPSIS") && text.contains("VERSION"));
    // What clap's definitions do not hold: the exit codes, the variables (every provider's key),
    // the files.
    for section in ["EXIT STATUS", "ENVIRONMENT", "FILES"] {
        assert!(
            text.contains(&format!("\n{section}\n")),
            "no {section} in:\n{text}"
        );
    }
    for variable in support::key_variables().chain(["NO_COLOR", "RESEARCH_TUI_MAX_ANSWER_MIB"]) {
        assert!(text.contains(variable), "{variable} is not on the page");
    }
    assert!(text.contains("research-tui/config.toml"));
    for name in subcommands() {
        let section = format!("RESEARCH-TUI {}", name.to_uppercase());
        assert!(text.contains(&section), "no section {section} in:\n{text}");
    }
    // A subcommand's own options are on the page, not only its name.
    assert!(
        text.contains("--exit-when-done"),
        "replay's options are on the page"
    );
}

/// `git rev-parse --short HEAD` here, when this package is the top of a git checkout.
fn checkout_commit() -> Option<String> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
        (output.status.success() && !text.is_empty()).then_some(text)
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let ours = std::fs::canonicalize(top).ok()? == std::fs::canonicalize(dir).ok()?;
    ours.then(|| git(&["rev-parse", "--short", "HEAD"]))?
}

#[test]
fn version_names_the_commit_the_binary_was_built_from() {
    let version = env!("CARGO_PKG_VERSION");
    let expected = match checkout_commit() {
        Some(hash) => format!("research-tui {version} ({hash})\n"),
        None => format!("research-tui {version}\n"),
    };
    for flag in ["--version", "-V"] {
        let printed = String::from_utf8(research_tui(&[flag]).stdout).unwrap();
        assert_eq!(printed, expected, "{flag}");
    }
}
