//! `research-tui ask Q --provider a,b,c`: several agents asked at once through the real binary and
//! the demo agent. Three complete answers and an overlap this test recomputes from the answers' own
//! sources and citations; every agent's conversation saved as its own session under one comparison
//! id; a failed agent named on stderr with a non-zero exit; flags that name one conversation refused.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Output;

use research_tui::demo::{COMPARISON_QUESTION, ServerConfig};
use serde_json::Value;

use crate::support;

const THREE: &str = "bigdata,openai,perplexity";

pub(crate) fn ask(home: &std::path::Path, args: &[&str]) -> Output {
    support::cli(home)
        .args(["ask", COMPARISON_QUESTION, "--provider", THREE])
        .args(["--demo-speed", "100"])
        .args(args)
        .output()
        .unwrap()
}

/// One page however it was linked, recomputed here: fragment dropped, `utm_*` and click ids
/// dropped, scheme and host lower-cased.
fn page(url: &str) -> String {
    let url = url.split('#').next().unwrap();
    let (head, query) = url.split_once('?').unwrap_or((url, ""));
    let (scheme, rest) = head.split_once("://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let name = p.split('=').next().unwrap().to_lowercase();
            !name.starts_with("utm_") && !["gclid", "fbclid", "msclkid"].contains(&name.as_str())
        })
        .collect();
    let mut out = format!("{}://{}{path}", scheme.to_lowercase(), host.to_lowercase());
    if !kept.is_empty() {
        out = format!("{out}?{}", kept.join("&"));
    }
    out
}

/// The pages an answer cites (a citation's `source` is its source's `n`) and those it consulted
/// (every listed source, cited or not).
fn cited_and_consulted(answer: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let sources = answer["sources"].as_array().unwrap();
    let url_of = |n: u64| {
        sources
            .iter()
            .find(|s| s["n"] == n)
            .and_then(|s| s["url"].as_str())
    };
    let cited: BTreeSet<String> = answer["citations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["source"].as_u64())
        .filter_map(url_of)
        .map(page)
        .collect();
    let consulted_only = answer["consulted_sources"].as_array().cloned();
    let consulted = sources
        .iter()
        .chain(consulted_only.iter().flatten())
        .filter_map(|s| s["url"].as_str())
        .map(page)
        .collect();
    (cited, consulted)
}

#[test]
fn three_agents_answer_in_json_with_an_overlap_that_their_own_citations_bear_out() {
    let home = tempfile::tempdir().unwrap();
    let output = ask(home.path(), &["--demo", "--format", "json"]);
    assert!(output.status.success(), "{output:?}");
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["question", "answers", "overlap"]);
    assert_eq!(doc["question"], COMPARISON_QUESTION);

    let answers = doc["answers"].as_array().unwrap();
    let providers: Vec<&str> = answers
        .iter()
        .map(|a| a["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["bigdata", "openai", "perplexity"]);
    let mut pages = BTreeMap::new();
    for answer in answers {
        let name = answer["provider"].as_str().unwrap();
        assert_eq!(answer["status"], "complete", "{name}");
        assert!(
            answer["answer"].as_str().unwrap().contains("odium"),
            "{name}"
        );
        assert!(
            !answer["citations"].as_array().unwrap().is_empty(),
            "{name}"
        );
        let timings = &answer["timings"];
        assert!(
            timings["first_text_ms"].as_u64().unwrap() <= timings["total_ms"].as_u64().unwrap(),
            "{name}: {timings}"
        );
        pages.insert(name, cited_and_consulted(answer));
    }

    // Every page any answer cites or consulted is one row, marked with exactly those agents.
    let rows = doc["overlap"]["sources"].as_array().unwrap();
    let names = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect()
    };
    let mut listed = BTreeSet::new();
    for row in rows.iter().filter(|r| !r["url"].is_null()) {
        let url = row["url"].as_str().unwrap();
        assert!(listed.insert(url.to_owned()), "{url} listed twice");
        let citing: BTreeSet<String> = pages
            .iter()
            .filter(|(_, (cited, _))| cited.contains(url))
            .map(|(name, _)| name.to_string())
            .collect();
        let consulting: BTreeSet<String> = pages
            .iter()
            .filter(|(_, (cited, consulted))| cited.contains(url) || consulted.contains(url))
            .map(|(name, _)| name.to_string())
            .collect();
        assert_eq!(names(&row["cited_by"]), citing, "{url}");
        assert_eq!(names(&row["consulted_by"]), consulting, "{url}");
    }
    let everything: BTreeSet<String> = pages
        .values()
        .flat_map(|(cited, consulted)| cited.union(consulted).cloned())
        .collect();
    assert_eq!(listed, everything);
    // Shared pages first: sorted by how many agents cite them.
    let agreement: Vec<usize> = rows
        .iter()
        .map(|r| r["cited_by"].as_array().unwrap().len())
        .collect();
    assert!(agreement.windows(2).all(|w| w[0] >= w[1]), "{agreement:?}");
    assert!(agreement[0] >= 2, "no source is shared: {agreement:?}");

    // Jaccard per pair, from the cited pages (URL-less sources cannot be shared; they count once).
    let jaccard = doc["overlap"]["jaccard"].as_object().unwrap();
    assert_eq!(jaccard.len(), 3);
    let unlinked: BTreeMap<&str, usize> = rows
        .iter()
        .filter(|r| r["url"].is_null() && !r["cited_by"].as_array().unwrap().is_empty())
        .map(|r| (r["cited_by"][0].as_str().unwrap(), 1))
        .fold(BTreeMap::new(), |mut m, (name, n)| {
            *m.entry(name).or_default() += n;
            m
        });
    for (pair, x) in jaccard {
        let (a, b) = pair.split_once('|').unwrap();
        let (ca, cb) = (&pages[a].0, &pages[b].0);
        let both = ca.intersection(cb).count();
        let union = ca.union(cb).count()
            + unlinked.get(a).copied().unwrap_or(0)
            + unlinked.get(b).copied().unwrap_or(0);
        assert_eq!(x.as_f64().unwrap(), both as f64 / union as f64, "{pair}");
    }
    assert!(jaccard.values().all(|x| x.as_f64().unwrap() > 0.0));
}

#[test]
fn each_agent_is_saved_as_its_own_session_linked_by_one_comparison_id() {
    let home = tempfile::tempdir().unwrap();
    let output = ask(home.path(), &["--demo", "--format", "json"]);
    assert!(output.status.success(), "{output:?}");
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed = support::cli(home.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let metas: Vec<Value> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(metas.len(), 3);
    let comparison = metas[0]["comparison"].as_str().unwrap();
    assert!(comparison.starts_with("cmp-"), "{comparison}");
    for answer in doc["answers"].as_array().unwrap() {
        let meta = metas
            .iter()
            .find(|m| m["id"] == answer["session_id"])
            .unwrap_or_else(|| panic!("no session for {}", answer["provider"]));
        assert_eq!(meta["provider"], answer["provider"]);
        assert_eq!(meta["comparison"], comparison);
        assert_eq!(meta["turns"][0]["status"], "complete");
    }
    let table = support::cli(home.path()).arg("sessions").output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert_eq!(
        table.matches(&format!("[comparison {comparison}]")).count(),
        3,
        "{table}"
    );
}

#[test]
fn markdown_prints_the_answers_one_after_another_then_the_overlap_tables() {
    let home = tempfile::tempdir().unwrap();
    let output = ask(home.path(), &["--demo", "--format", "markdown"]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}:\n{text}"))
    };
    assert!(at("## bigdata") < at("## openai"));
    assert!(at("## openai") < at("## perplexity"));
    assert!(at("## perplexity") < at("## Sources compared"));
    assert!(text.contains("| Source | Cited by | Consulted by |"));
    assert!(text.contains("| bigdata · openai |"));
    assert!(text.contains("[CATL unveils Naxtra sodium-ion battery](https://www.catl.com/en/news/naxtra-sodium-ion) | bigdata, openai |"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_agent_is_named_and_the_exit_is_not_zero_while_the_others_answer() {
    // A recordings directory whose Bigdata.com answer to the comparison question ends in an error.
    let recordings = tempfile::tempdir().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/recordings/bigdata");
    for name in [
        "earnings-deep-dive.sse",
        "sector-comparison.sse",
        "follow-up.sse",
        "workflow-earnings-brief.sse",
    ] {
        std::fs::copy(format!("{root}/{name}"), recordings.path().join(name)).unwrap();
    }
    std::fs::write(
        recordings.path().join("sodium-ion-research.sse"),
        ": delay=1\ndata: {\"chat_id\":\"x\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Partial\"}}\n\n: delay=1\ndata: {\"chat_id\":\"x\",\"message\":{\"type\":\"ERROR\",\"error\":\"Request failed: capacity\"}}\n\n",
    )
    .unwrap();
    let config = ServerConfig {
        speed: 100.0,
        recordings_dir: Some(recordings.path().to_owned()),
        ..ServerConfig::default()
    };
    let addr = support::demo_agent_with(config).await;
    let home = tempfile::tempdir().unwrap();
    let base = format!("http://{addr}");
    let output = tokio::task::block_in_place(|| {
        ask(
            home.path(),
            &["--demo", "--base-url", &base, "--format", "json"],
        )
    });
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("bigdata failed: the agent reported an error: Request failed: capacity"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("openai failed") && !stderr.contains("perplexity failed"),
        "{stderr}"
    );
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let statuses: Vec<&str> = doc["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["error", "complete", "complete"]);
}

#[test]
fn flags_that_name_one_conversation_or_a_provider_twice_are_refused_before_anything_is_sent() {
    let home = tempfile::tempdir().unwrap();
    for (args, says) in [
        (vec!["--chat-id", "c1"], "--chat-id goes with one agent"),
        (
            vec!["--workflow", "earnings-brief"],
            "--workflow goes with one agent",
        ),
        (vec!["--model", "sonar"], "--model goes with one agent"),
    ] {
        let output = ask(home.path(), &[&["--demo"][..], &args].concat());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(says),
            "{args:?}"
        );
    }
    let twice = support::cli(home.path())
        .args(["ask", "Q", "--provider", "openai,openai", "--demo"])
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("openai is named twice"));
    // Without keys, each agent's missing key is named.
    let keyless = support::cli(home.path())
        .args(["ask", "Q", "--provider", "openai,perplexity"])
        .output()
        .unwrap();
    assert_eq!(keyless.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&keyless.stderr);
    assert!(
        stderr.contains("OPENAI_API_KEY") && stderr.contains("PERPLEXITY_API_KEY"),
        "{stderr}"
    );
    assert!(!home.path().join("data").exists(), "nothing was saved");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_every_agent_and_cancels_the_deep_research_run_on_the_server() {
    let addr = support::demo_agent_with(ServerConfig::default()).await;
    let home = tempfile::tempdir().unwrap();
    let child = support::cli(home.path())
        .args([
            "ask",
            COMPARISON_QUESTION,
            "--provider",
            "openai,perplexity",
        ])
        .args(["--demo", "--base-url", &format!("http://{addr}")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // OpenAI's run exists on the server once response.created is saved in its turn file.
    let sessions = support::Home::new(home.path()).sessions();
    support::wait_until(
        "ask saved response.created",
        std::time::Duration::from_secs(20),
        || {
            support::files_under(&sessions).iter().any(|path| {
                path.extension().is_some_and(|e| e == "sse")
                    && std::fs::read_to_string(path).is_ok_and(|t| t.contains("response.created"))
            })
        },
    );
    let pid = child.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("openai: cancelled the run resp-"),
        "{stderr}"
    );
    assert!(
        stderr.contains("openai failed") && stderr.contains("perplexity failed"),
        "{stderr}"
    );
    let listed = support::cli(home.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let statuses: BTreeSet<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["turns"][0]["status"].to_string())
        .collect();
    assert_eq!(statuses, BTreeSet::from(["\"cancelled\"".to_owned()]));
}

#[test]
fn the_app_refuses_a_comparison_it_cannot_make_before_touching_the_terminal() {
    for (args, says) in [
        (
            &["--provider", "openai,openai"][..],
            "openai is named twice",
        ),
        (
            &["--provider", THREE, "--resume", "ckpt-1"][..],
            "--resume goes with one agent",
        ),
        (
            &["--provider", THREE, "--model", "m"][..],
            "--model goes with one agent",
        ),
    ] {
        let output = support::cli(support::scratch())
            .args(args)
            .arg("--demo")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}
