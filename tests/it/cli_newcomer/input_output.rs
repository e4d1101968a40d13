//! Input and output: `ask -` reading the question from stdin, the usage lines and `--help`, a
//! terminal's wrapping of Sources and Tool data, a workflow's empty question.

use std::process::Stdio;
use std::time::Duration;

use super::{ask_demo, asked_there, received, run, serve};
use crate::support::{self, tmux::Tmux};

/// `ask ARGS` against the agent at `base`, `stdin` piped in.
fn ask_with_stdin(base: &str, args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = support::cli(support::scratch())
        .arg("ask")
        .args(args)
        .args(["--base-url", base, "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn ask_dash_reads_the_question_from_stdin_and_refuses_an_empty_one() {
    let served = serve("50");
    let out = ask_with_stdin(&served.1, &["-"], "  What drove margins, from stdin?\n\n");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        asked_there(&served.1, "What drove margins, from stdin?"),
        "{:?}",
        received(&served.1)
    );
    assert!(!asked_there(&served.1, "-"));

    let asked = received(&served.1).len();
    let out = ask_with_stdin(&served.1, &["-"], " \n\t\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("standard input held no question"), "{err}");
    assert_eq!(received(&served.1).len(), asked, "nothing was sent");
}

#[test]
fn usage_lines_show_each_way_to_call_sessions_and_help_sets_the_global_options_apart() {
    let (code, err) = run(&["sessions", "--json", "--delete", "X"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("research-tui sessions --delete <ID>..."),
        "{err}"
    );
    assert!(!err.contains("sessions --json <ID>..."), "{err}");
    let (code, err) = run(&["sessions", "--search", "T", "--json", "ID"]);
    assert_eq!(code, Some(2));
    assert!(!err.contains("--search <TEXT> --json [ID]..."), "{err}");

    let help = support::cli(support::scratch())
        .args(["ask", "-h"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let (own, global) = help.split_once("\nGlobal options:\n").expect(&help);
    for flag in ["--theme", "--debug"] {
        assert!(global.contains(flag) && !own.contains(flag), "{help}");
    }
    assert!(own.contains("--time-range") && !global.contains("--time-range"));
}

#[test]
fn on_a_terminal_sources_and_tool_data_wrap_at_words_with_urls_whole() {
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/recordings/bigdata/earnings-deep-dive.sse"
    );
    let t = Tmux::start(60, 300, &["render", recording, "--format", "text"]);
    t.wait_exit(Duration::from_secs(20));
    let screen = t.wait_for("the sources", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    for expected in [
        "  [1] NVIDIA Newsroom - May 27, 2026 — NVIDIA Announces",
        "      Financial Results for First Quarter Fiscal 2027",
        "  - python_code_execution (audit-dd601c3f): “Data Center is",
        "    now more than nine-tenths of the business.”",
    ] {
        assert!(lines.contains(&expected), "{expected:?} in\n{screen}");
    }
    // A URL longer than the line starts a line of its own (the terminal folds it, whole).
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("      https://nvidianews.nvidia.com/news/")),
        "{screen}"
    );
}

/// `completions`, `man`, `serve` and `sessions` print no answer: `--theme`, `--debug` and
/// `--max-answer-mib` are not in their `--help` or the manual's sections of the first two (clap
/// copied every global option into each), yet every invocation that gave them still runs, and a
/// bad theme is still refused.
#[test]
fn commands_that_print_no_answer_leave_the_global_options_out_of_their_help_yet_take_them() {
    let output = |args: &[&str]| {
        let out = support::cli(support::scratch())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    for command in ["completions", "man", "serve", "sessions"] {
        let (code, help) = output(&[command, "--help"]);
        assert_eq!(code, Some(0));
        for flag in ["--theme", "--debug", "--max-answer-mib", "Global options"] {
            assert!(
                !help.contains(flag),
                "{command} --help shows {flag}:\n{help}"
            );
        }
    }
    let (_, help) = output(&["ask", "--help"]);
    assert!(
        help.contains("Global options:\n      --theme <THEME>"),
        "{help}"
    );

    let (_, page) = output(&["man"]);
    let section = |name: &str| {
        let start = page.find(&format!(".SH \"RESEARCH-TUI {name}\"")).unwrap();
        let end = page[start + 1..]
            .find(".SH ")
            .map_or(page.len(), |e| start + 1 + e);
        page[start..end].to_owned()
    };
    for name in ["COMPLETIONS", "MAN"] {
        let text = section(name);
        assert!(!text.contains("theme") && !text.contains("debug"), "{text}");
    }
    assert!(section("RENDER").contains("\\-\\-theme"));

    // Taken, and changing nothing they print.
    let same_as = [
        (
            &[
                "completions",
                "bash",
                "--theme",
                "light",
                "--debug",
                "--max-answer-mib",
                "3",
            ][..],
            &["completions", "bash"][..],
        ),
        (
            &["--theme", "light", "completions", "fish"],
            &["completions", "fish"],
        ),
        (&["man", "--debug"], &["man"]),
        (
            &["sessions", "--json", "--theme", "dark", "--debug"],
            &["sessions", "--json"],
        ),
    ];
    for (args, plain) in same_as {
        let (code, printed) = output(args);
        assert_eq!(code, Some(0), "{args:?}");
        assert!(!printed.is_empty() || args[0] == "sessions", "{args:?}");
        assert!(printed == output(plain).1, "{args:?} printed otherwise");
    }
    assert_eq!(
        output(&["completions", "bash", "--theme", "bogus"]).0,
        Some(2)
    );
}

/// `--theme` works with every command that draws, as the docs say: `render` (and `ask`) on a
/// terminal printed the configured theme's colors whatever `--theme` said.
#[test]
fn on_a_terminal_render_prints_in_the_theme_given() {
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/recordings/bigdata/earnings-deep-dive.sse"
    );
    let screen = |theme: &str| {
        let args = ["render", recording, "--format", "text", "--theme", theme];
        let t = Tmux::start_with_env(80, 300, &["COLORTERM=truecolor"], &args);
        assert_eq!(t.wait_exit(Duration::from_secs(20)), "0");
        t.wait_for("the end", Duration::from_secs(5), |s| {
            s.contains("the app exited")
        });
        assert!(support::tmux::has_24_bit_color(&t), "{theme}");
        let out = t.tmux(&["capture-pane", "-p", "-e", "-t", &t.session]);
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            t.capture(),
        )
    };
    let (dark, dark_text) = screen("dark");
    let (light, light_text) = screen("light");
    assert_eq!(dark_text, light_text, "the same text");
    assert!(dark != light, "in other colors");
}

/// On an 80-column terminal `ask`'s timing line breaks between its items; the terminal cut it
/// wherever column 80 fell (`total` / `7.7 s`). `capture-pane -J` joins what the terminal wrapped.
#[test]
fn on_an_80_column_terminal_the_timing_line_breaks_between_its_items() {
    let args = [
        "ask",
        "What did NVIDIA report?",
        "--demo",
        "--demo-speed",
        "50",
    ];
    let t = Tmux::start(80, 200, &args);
    assert_eq!(t.wait_exit(Duration::from_secs(60)), "0");
    let out = t.tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", &t.session]);
    let screen = String::from_utf8_lossy(&out.stdout);
    let timing: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.starts_with("timing: "))
        .take_while(|l| !l.is_empty() && !l.starts_with("research-tui:"))
        .collect();
    assert!(timing.len() > 1, "{screen}");
    for line in &timing {
        assert!(
            unicode_width::UnicodeWidthStr::width(line.trim_end()) <= 80,
            "{line:?}"
        );
    }
    assert!(
        timing[1].starts_with("        ") && timing[0].ends_with(" ·"),
        "{timing:?}"
    );
}

/// The structured output is laid out to the width; the trailer's word wrapping and quote styling
/// are for Sources and Tool data only. A URL wider than its column stays beside its key (the
/// terminal folds it), and a quoted cell keeps its width, so the `│` below it line up.
#[test]
fn on_an_80_column_terminal_a_structured_outputs_rows_keep_their_columns() {
    let url = "https://investor.nvidia.com/news/press-release-details/2026/\
               NVIDIA-Announces-Financial-Results-for-First-Quarter-Fiscal-2027/default.aspx";
    let content = serde_json::json!({
        "company": "NVIDIA Corp",
        "press_release": url,
        "quotes": [
            {"quote": "“**Record** quarter”", "speaker": "CEO"},
            {"quote": "“Supply improves”", "speaker": "CFO"},
        ],
    });
    let events = [
        serde_json::json!({"type": "ANSWER", "content": "Revenue reached a record."}),
        serde_json::json!({"type": "STRUCTURED_OUTPUT", "content": content}),
        serde_json::json!({"type": "COMPLETE", "consumption": [], "checkpoint_id": "ckpt-1"}),
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("structured.sse");
    let stream: String = events
        .iter()
        .map(|m| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"chat_id": "c", "message": m})
            )
        })
        .collect();
    std::fs::write(&file, stream).unwrap();

    let t = Tmux::start(
        80,
        40,
        &["render", file.to_str().unwrap(), "--format", "text"],
    );
    t.wait_exit(Duration::from_secs(20));
    let screen = t.wait_for("the table", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    assert!(
        lines.contains(&&*format!("  press_release  {}", &url[..63])),
        "the URL starts beside its key:\n{screen}"
    );
    let bar = |start: &str| {
        let line = lines.iter().find(|l| l.starts_with(start)).unwrap();
        line.chars().position(|c| c == '│')
    };
    assert!(bar("  quote ").is_some(), "{screen}");
    assert_eq!(bar("  “**Record**"), bar("  quote "), "{screen}");
    assert_eq!(bar("  “Supply"), bar("  quote "), "{screen}");
}

/// A workflow run without a note has an empty question: `sessions --json` keeps it a string (a
/// field whose type scripts rely on), and the app shows no placeholder for it — only a proxied
/// request that could not be read is "unknown".
#[test]
fn a_workflow_turns_empty_question_stays_an_empty_string() {
    let home = tempfile::tempdir().unwrap();
    ask_demo(home.path(), &["", "--workflow", "wf-1"]);
    let listed = support::cli(home.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let row: serde_json::Value = serde_json::from_str(listed.lines().next().unwrap()).unwrap();
    assert_eq!(row["turns"][0]["question"], "", "{listed}");
}
