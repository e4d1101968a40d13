//! `research-tui ask`'s flags checked before anything is sent: values no agent takes are usage
//! errors, an id no saved session knows is sent and said, and one provider's settings given for
//! another are not sent and said.

use std::path::Path;
use std::process::Output;

use crate::support;

/// `ask QUESTION` of the demo agent at 100× its pace, as JSON, in `home`, with `extra` flags.
fn ask_demo(home: &Path, question: &str, extra: &[&str]) -> Output {
    support::cli(home)
        .args([
            "ask",
            question,
            "--demo",
            "--demo-speed",
            "100",
            "--format",
            "json",
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// Values the agents cannot take are refused before anything is sent, with clap's usage error: a
/// stall after 0 seconds (it waited 1 s and said "no data for 1 s"), a thinking budget under the
/// 1,024 tokens Anthropic requires — for `ask`, the app and `open`.
#[test]
fn an_idle_timeout_of_0_and_a_thinking_budget_under_1024_are_usage_errors() {
    for args in [
        &["ask", "Q?", "--demo", "--idle-timeout", "0"][..],
        &[
            "ask",
            "Q?",
            "--demo",
            "--provider",
            "anthropic",
            "--thinking",
            "10",
        ][..],
        &["--demo", "--idle-timeout", "0"][..],
        &["--demo", "--provider", "anthropic", "--thinking", "1023"][..],
        &["open", "some-id", "--idle-timeout", "0"][..],
    ] {
        let output = support::cli(support::scratch())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("invalid value"), "{args:?}: {stderr}");
    }
    let accepted = ask_demo(
        support::scratch(),
        "Q?",
        &[
            "--provider",
            "anthropic",
            "--thinking",
            "1024",
            "--idle-timeout",
            "1",
        ],
    );
    assert!(accepted.status.success(), "{accepted:?}");
}

/// `--resume` (or `--chat-id`) naming what no saved session knows is still sent, and `ask` says so
/// on stderr as the app does; a checkpoint a saved session knows says nothing.
#[test]
fn a_resume_no_saved_session_knows_is_sent_and_said() {
    let home = tempfile::tempdir().unwrap();
    let ask = |extra: &[&str]| ask_demo(home.path(), "And AMD?", extra);
    for (flag, what, id) in [
        ("--resume", "checkpoint", "ckpt-nope"),
        ("--chat-id", "chat", "chat-nope"),
    ] {
        let output = ask(&[flag, id]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = format!(
            "research-tui: no saved session knows {what} {id}: the question is sent with it"
        );
        assert_eq!(stderr.lines().next(), Some(said.as_str()), "{output:?}");
    }
    let first: serde_json::Value = serde_json::from_slice(&ask(&[]).stdout).unwrap();
    let checkpoint = first["checkpoint_id"].as_str().unwrap();
    let output = ask(&["--resume", checkpoint]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// One provider's own settings given for another are not sent, and a line on stderr says so (a
/// script may give every provider the same flags: the answer still comes).
#[test]
fn a_setting_of_another_provider_is_not_sent_and_said() {
    for (args, said) in [
        (
            &["--provider", "xai", "--tenant", "acme"][..],
            "--tenant is Zeta Alpha's: not sent to xAI",
        ),
        (
            &["--tenant", "acme"][..],
            "--tenant is Zeta Alpha's: not sent to Bigdata.com",
        ),
        (
            &["--provider", "openai", "--thinking", "2048"][..],
            "--thinking is Anthropic's: not sent to OpenAI",
        ),
    ] {
        let output = ask_demo(support::scratch(), "Q?", args);
        assert!(output.status.success(), "{args:?}: {output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("research-tui: {said}\n")
        );
    }
}

/// The app refuses what `ask` refuses or says, before it starts (it started with `--model gpt-5`
/// for Bigdata.com, or another agent's `--tenant`, and said nothing): a line said before the app
/// starts would be drawn over, so it is a usage error.
#[test]
fn the_app_refuses_a_model_or_another_agents_setting_it_cannot_send() {
    for (args, said) in [
        (
            &["--demo", "--model", "gpt-5"][..],
            "--model takes base or pro, not \"gpt-5\"",
        ),
        (
            &["--demo", "--tenant", "acme"][..],
            "--tenant is Zeta Alpha's: not sent to Bigdata.com (drop it, or choose that --provider)",
        ),
        (
            &["--demo", "--provider", "xai", "--thinking", "2048"][..],
            "--thinking is Anthropic's: not sent to xAI (drop it, or choose that --provider)",
        ),
    ] {
        let output = support::cli(support::scratch())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("research-tui: {said}\n")
        );
    }
}
