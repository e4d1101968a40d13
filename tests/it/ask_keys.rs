//! `research-tui ask` and its API key: the key is read from the environment or a private config
//! file, never written to a file or output, and never sent to a demo agent or another origin.

use research_tui::demo::Fault;
use serde_json::Value;

use crate::ask_cli::{KEY, files, server, stderr, stdout};
use crate::support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_key_is_in_no_file_written_and_no_output() {
    let env = server(None).await;
    let record = env.dir.path().join("rec.sse");
    let mut outputs = vec![tokio::task::block_in_place(|| {
        env.ask(&[
            "What did NVIDIA report?",
            "--record",
            record.to_str().unwrap(),
            "--format",
            "json",
        ])
    })];
    let broken = server(Some(Fault::Status(401))).await;
    outputs.push(tokio::task::block_in_place(|| broken.ask(&["Q?"])));
    for output in &outputs {
        assert!(!stdout(output).contains(KEY) && !stderr(output).contains(KEY));
    }
    let written: Vec<_> = files(env.dir.path())
        .into_iter()
        .chain(files(broken.dir.path()))
        .collect();
    assert!(written.len() >= 3, "{written:?}");
    for path in written {
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "{} holds the key",
            path.display()
        );
    }
    for request in env.requests().await {
        assert!(!request.to_string().contains(KEY));
    }
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_is_read_from_a_private_config_file_and_refused_from_a_readable_one() {
    use std::os::unix::fs::PermissionsExt;
    let env = server(None).await;
    let config_dir = env.dir.path().join("config/research-tui");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = config_dir.join("config.toml");
    std::fs::write(&config, format!("api_key = \"{KEY}\"\n")).unwrap();
    let run = || {
        support::cli(env.dir.path())
            .args([
                "ask",
                "What did NVIDIA report?",
                "--base-url",
                &env.base_url,
            ])
            .output()
            .unwrap()
    };
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refused = tokio::task::block_in_place(run);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("chmod 600"),
        "{}",
        stderr(&refused)
    );
    assert!(!stderr(&refused).contains(KEY));
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let accepted = tokio::task::block_in_place(run);
    assert_eq!(accepted.status.code(), Some(0), "{}", stderr(&accepted));
    assert_eq!(
        env.requests().await.last().unwrap()["api_key_present"],
        true
    );
    // A broken config file stops `ask` even with the key in the environment (the file may name
    // another agent): said once, where it breaks, never quoting the file.
    std::fs::write(&config, "this is = = not toml").unwrap();
    let with_env = tokio::task::block_in_place(|| env.ask(&["What did NVIDIA report?"]));
    assert_eq!(with_env.status.code(), Some(1), "{}", stderr(&with_env));
    assert!(
        stderr(&with_env).contains("invalid TOML at line 1, column 6"),
        "{}",
        stderr(&with_env)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_against_a_demo_agent_on_this_machine_needs_no_key() {
    let env = server(None).await;
    let output = tokio::task::block_in_place(|| {
        support::cli(env.dir.path())
            .args([
                "ask",
                "What did NVIDIA report?",
                "--base-url",
                &env.base_url,
            ])
            .output()
            .unwrap()
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("NVIDIA"), "{}", stdout(&output));
    let requests = env.requests().await;
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["api_key_present"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_with_a_base_url_asks_that_agent_and_never_sends_a_key() {
    let env = server(None).await;
    let output = tokio::task::block_in_place(|| {
        support::cli(env.dir.path())
            .args(["ask", "NVIDIA?", "--demo", "--base-url", &env.base_url])
            .args(["--format", "json"])
            .env("BIGDATA_API_KEY", KEY)
            .output()
            .unwrap()
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["status"], "complete");
    let requests = env.requests().await;
    assert_eq!(
        requests.len(),
        1,
        "the running agent was asked: {requests:?}"
    );
    assert_eq!(requests[0]["api_key_present"], false);

    let refused = tokio::task::block_in_place(|| {
        support::cli(env.dir.path())
            .args([
                "ask",
                "NVIDIA?",
                "--demo",
                "--base-url",
                "ftp://example.com",
            ])
            .output()
            .unwrap()
    });
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--base-url takes an http(s) URL"));
}
