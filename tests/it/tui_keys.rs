//! Keys a person changes and the shell's job control, in the real binary: `[keys]` in
//! `config.toml` remaps keys (the help shows them), a bad entry stops the app with one line and
//! exit code 2 before it takes the terminal, and Ctrl-Z gives the shell back until `fg`.

use std::path::Path;
use std::time::Duration;

use crate::support;

use support::tmux::*;

/// `config.toml` with `text` in `config_home`'s research-tui folder.
fn write_config(config_home: &Path, text: &str) {
    let dir = config_home.join("research-tui");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), text).unwrap();
}

/// The keys column of the help row that says `what`, trimmed.
fn help_keys<'a>(screen: &'a str, what: &str) -> Option<&'a str> {
    let line = screen.lines().find(|l| l.contains(what))?;
    // What the popup's left border leaves of the row (panes show on either side of it).
    let before = line[..line.find(what)?].rsplit('║').next()?;
    Some(before.trim())
}

#[test]
fn keys_remapped_in_the_config_file_work_in_the_app_and_the_help_shows_them() {
    let config = tempfile::tempdir().unwrap();
    write_config(
        config.path(),
        "theme = \"dark\"\n\n[keys]\nhelp = \"H\"\nsessions = [\"S\", \"f6\"]\n",
    );
    let home = format!("XDG_CONFIG_HOME={}", config.path().display());
    let t = Tmux::start_with_env(140, 42, &[&home], &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.send(&["Escape", "H"]);
    let screen = t.wait_for("the help", Duration::from_secs(5), |s| {
        help_keys(s, "saved sessions: j/k choose").is_some()
    });
    assert_eq!(
        help_keys(&screen, "saved sessions: j/k choose"),
        Some("S F6"),
        "{screen}"
    );
    // Its last row, at the bottom.
    t.send(&["G"]);
    t.wait_for("the help's last row", Duration::from_secs(5), |s| {
        // F1 stays: in the prompt H is typed, so help keeps its key for everywhere.
        help_keys(s, "this help (F1") == Some("H F1")
    });
    t.send(&["Escape", "S"]);
    t.wait_for("the saved sessions", Duration::from_secs(5), |s| {
        s.contains("Saved sessions")
    });
    t.send(&["Escape", "F6"]);
    t.wait_for("the saved sessions again", Duration::from_secs(5), |s| {
        s.contains("Saved sessions")
    });
    // The old keys are no keys now: in a pane, they start typing a question.
    t.send(&["Escape", "s", "?"]);
    let screen = t.wait_for("s? in the prompt", Duration::from_secs(5), |s| {
        prompt_rows(s).first().is_some_and(|r| r == "s?")
    });
    assert!(!screen.contains("Saved sessions"), "{screen}");
    t.send(&["C-c", "C-c"]);
    assert_exited_and_restored(&t);
}

/// The binary's exit code and stderr with `config` as its config file.
fn start_with_config(config: &str) -> (Option<i32>, String, String) {
    let home = tempfile::tempdir().unwrap();
    let config_home = support::Home::new(home.path()).config();
    write_config(&config_home, config);
    let out = support::cli(home.path()).args(["--demo"]).output().unwrap();
    let path = config_home.join("research-tui").join("config.toml");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        path.display().to_string(),
    )
}

#[test]
fn each_kind_of_bad_keys_entry_stops_the_app_with_one_line_and_exit_code_2() {
    let cases = [
        (
            "[keys]\nopen_sorce = \"O\"\n",
            "[keys] open_sorce: no such action (did you mean open_source?)",
        ),
        (
            "[keys]\nquit = \"ctrl-\"\n",
            "[keys] quit = \"ctrl-\": not a key (write keys as \"O\", \"ctrl-o\", \"alt-b\", \"f5\", \"pgup\")",
        ),
        (
            "[keys]\nexport = \"y\"\n",
            "[keys] export = \"y\": y already does copy in the panes",
        ),
        (
            "[keys]\nquit = 7\n",
            "[keys] quit: give a key (\"O\", \"ctrl-o\") or a list of keys",
        ),
    ];
    for (config, line) in cases {
        let (code, stderr, path) = start_with_config(config);
        assert_eq!(code, Some(2), "{config}: {stderr}");
        assert_eq!(
            stderr,
            format!("research-tui: {path}: {line}\n"),
            "{config}"
        );
    }
    // The first bad entry in the file's order is the one reported.
    let (_, stderr, _) = start_with_config("[keys]\nzoom = \"Z\"\nquit = \"??\"\nabc = \"x\"\n");
    assert!(stderr.contains("[keys] quit = \"??\""), "{stderr}");
}

#[test]
fn ctrl_z_gives_the_shell_back_and_fg_brings_the_app_back_with_its_content() {
    let t = Tmux::shell(140, 42);
    t.wait_for("the shell", Duration::from_secs(10), |s| s.contains("$"));
    t.send(&["\"$APP\" --demo --demo-speed 8", "Enter"]);
    let running = t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    assert_eq!(t.pane("#{alternate_on}"), "1");
    assert_eq!(t.pane("#{mouse_any_flag}"), "1", "the app has the mouse");
    t.send(&["C-z"]);
    let screen = t.wait_for("the shell's prompt", Duration::from_secs(10), |s| {
        s.contains("Stopped") && s.trim_end().ends_with('$')
    });
    assert!(
        !screen.contains("Sources"),
        "the app's screen is gone:\n{screen}"
    );
    assert_eq!(t.pane("#{alternate_on}"), "0", "alternate screen left");
    assert_eq!(
        t.pane("#{mouse_any_flag}"),
        "0",
        "the mouse is the terminal's"
    );
    assert_eq!(t.pane("#{mouse_sgr_flag}"), "0");
    // The shell works as usual.
    t.send(&["echo shell-$((40 + 2))", "Enter"]);
    t.wait_for("the shell's answer", Duration::from_secs(5), |s| {
        s.contains("shell-42")
    });
    t.send(&["fg", "Enter"]);
    let back = t.wait_for("the app again", Duration::from_secs(10), |s| {
        status_line(s).contains("complete") && s.contains("Sources")
    });
    assert_eq!(t.pane("#{alternate_on}"), "1");
    assert_eq!(
        t.pane("#{mouse_any_flag}"),
        "1",
        "the mouse is the app's again"
    );
    // Drawn whole: the same rows as before the suspension (the clock aside).
    let rows = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains("NVIDIA") && *l != status_line(s))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(rows(&back), rows(&running), "{back}");
    // And it still takes keys: Ctrl-C quits to the shell.
    t.send(&["C-c"]);
    t.wait_for("the shell after the app", Duration::from_secs(10), |s| {
        s.trim_end().ends_with('$') && !s.contains("Sources")
    });
    assert_eq!(t.pane("#{alternate_on}"), "0");
}
