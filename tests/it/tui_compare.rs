//! The comparison in the real binary, in tmux, at 200×50, 140×42 and 80×24: three agents on the
//! demo stream side by side (or in tabs), the merged Sources view marks agreement, selecting a
//! shared source (Alt-J) highlights its spans in every column that cites it, and a follow-up
//! reaches all three. Each screen, timings and clocks masked, is a snapshot.

use std::time::Duration;

use crate::support::tmux::*;

const AGENTS: [&str; 3] = ["bigdata", "openai", "perplexity"];
const WAIT: Duration = Duration::from_secs(30);

fn start(width: u16, height: u16) -> Tmux {
    Tmux::start(
        width,
        height,
        &[
            "--provider",
            "bigdata,openai,perplexity",
            "--demo",
            "--demo-speed",
            "20",
        ],
    )
}

/// Every agent's header (wide) or tab (narrow) says `complete`.
fn all_complete(screen: &str) -> bool {
    AGENTS
        .iter()
        .all(|a| screen.contains(&format!("{a} · complete")))
}

/// The screen with what changes from run to run masked: decimals (`0.4 s`, `0.8/2.0 s`), clocks
/// (`0:03`), the comparison id.
fn masked(screen: &str) -> String {
    let chars: Vec<char> = screen.chars().collect();
    let digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if digit(i) && matches!(chars.get(i + 1), Some('.') | Some(':')) && digit(i + 2) {
            let sep = chars[i + 1];
            out.push_str(if sep == '.' { "#.#" } else { "#:#" });
            i += 3;
            while digit(i) {
                i += 1;
            }
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    let out = match out.find("comparison cmp-") {
        Some(at) => {
            let end = out[at..].find('\n').map_or(out.len(), |e| at + e);
            format!("{}comparison cmp-…{}", &out[..at], &out[end..])
        }
        None => out,
    };
    out.lines()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One row of `capture-pane -e`: each cell's character and its background SGR parameters.
fn cells(line: &str) -> Vec<(char, String)> {
    let mut out = Vec::new();
    let mut bg = String::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if let Some(seq) = rest.strip_prefix("\x1b[") {
            let end = seq.find('m').unwrap_or(seq.len());
            let params: Vec<&str> = seq[..end].split(';').collect();
            let mut k = 0;
            while k < params.len() {
                match params[k] {
                    "0" | "" | "49" => bg.clear(),
                    "48" => {
                        bg = params[k..(k + 3).min(params.len())].join(";");
                        k += 2;
                    }
                    "38" => k += 2,
                    p if p.len() == 2 && p.starts_with('4') => bg = p.to_owned(),
                    _ => {}
                }
                k += 1;
            }
            rest = &seq[(end + 1).min(seq.len())..];
            continue;
        }
        out.push((c, bg.clone()));
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn colored(t: &Tmux) -> Vec<Vec<(char, String)>> {
    let out = t.tmux(&["capture-pane", "-p", "-e", "-t", &t.session]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(cells)
        .collect()
}

/// The highlight's background: the selected merged source's row has it.
fn highlight_of(rows: &[Vec<(char, String)>], site: &str) -> String {
    rows.iter()
        .find_map(|row| {
            let text: String = row.iter().map(|(c, _)| c).collect();
            let at = text.find(site)?;
            let x = text[..at].chars().count();
            Some(row[x].1.clone())
        })
        .filter(|bg| !bg.is_empty())
        .unwrap_or_else(|| panic!("the selected row of {site} has a background"))
}

/// Whether any cell of rows `rows` between columns `x0..x1` has background `bg`.
fn lit(
    rows: &[Vec<(char, String)>],
    rows_range: std::ops::Range<usize>,
    x0: usize,
    x1: usize,
    bg: &str,
) -> bool {
    rows[rows_range].iter().any(|row| {
        row.iter()
            .enumerate()
            .any(|(x, (_, b))| x >= x0 && x < x1 && b == bg)
    })
}

/// Where the merged Sources view starts (its top border row).
fn sources_top(screen: &str) -> usize {
    screen
        .lines()
        .position(|l| l.contains("Sources compared"))
        .expect("the merged Sources view")
}

fn follow_up_reaches_all_three(t: &Tmux, wide: bool) {
    t.send(&["Costs?", "Enter"]);
    // The focused column shows it asked; the others stream their answers to it.
    if wide {
        t.wait_for("the follow-up asked", WAIT, |s| s.contains("You: Costs?"));
    } else {
        for _ in AGENTS {
            // An agent whose follow-up recording is about something else opens it with the demo's
            // note, which can push the question out of a narrow column.
            t.wait_for("the follow-up in the focused column", WAIT, |s| {
                s.contains("You: Costs?")
                    || s.contains("── turn 2")
                    || s.contains("recorded, synthetic")
            });
            t.send(&["M-n"]);
        }
    }
    // Every agent's saved session has the follow-up as its second turn.
    let sessions = t.dir.path().join("research-tui").join("sessions");
    crate::support::wait_until("three sessions with two turns", WAIT, || {
        let metas: Vec<serde_json::Value> = std::fs::read_dir(&sessions)
            .map(|d| {
                d.filter_map(|e| std::fs::read(e.ok()?.path().join("meta.json")).ok())
                    .filter_map(|b| serde_json::from_slice(&b).ok())
                    .collect()
            })
            .unwrap_or_default();
        metas.len() == 3
            && metas.iter().all(|m| {
                m["turns"].as_array().is_some_and(|t| t.len() == 2)
                    && m["comparison"] == metas[0]["comparison"]
                    && m["comparison"].is_string()
            })
    });
}

#[test]
fn three_agents_side_by_side_at_200_by_50() {
    let t = start(200, 50);
    t.wait_for("all three complete", WAIT, all_complete);
    // The frame that said so may still be being written (a loaded machine): read a still one.
    let screen = t.wait_still("the finished frame", WAIT);
    // Side by side: the three headers on one row.
    let header = screen.lines().next().unwrap();
    assert!(AGENTS.iter().all(|a| header.contains(a)), "{header}");
    assert!(screen.contains("●●·  catl.com"), "{screen}");
    assert!(screen.contains("·●●  about.bnef.com"), "{screen}");
    insta::assert_snapshot!("compare_200x50", masked(&screen));

    // Alt-J: BNEF (cited by OpenAI and Perplexity, not Bigdata.com) lights up in their columns.
    t.send(&["M-j"]);
    t.wait_for("the spans of the selected source", WAIT, |s| {
        s.contains("span 1/")
    });
    // The first Alt-J's frame can show before the second is taken (a loaded machine): read the
    // screen once it has settled on the second.
    let screen = t.wait_still("the second selection", WAIT);
    let rows = colored(&t);
    let bg = highlight_of(&rows, "about.bnef.com");
    let body = 2..sources_top(&screen);
    let x = |agent: &str| {
        header
            .find(agent)
            .map(|b| header[..b].chars().count())
            .unwrap()
    };
    let (b, o, p) = (x("bigdata"), x("openai"), x("perplexity"));
    assert!(
        !lit(&rows, body.clone(), b, o - 1, &bg),
        "bigdata does not cite it:\n{screen}"
    );
    assert!(
        lit(&rows, body.clone(), o, p - 1, &bg),
        "openai cites it:\n{screen}"
    );
    assert!(
        lit(&rows, body, p, 200, &bg),
        "perplexity cites it:\n{screen}"
    );
    follow_up_reaches_all_three(&t, true);
}

#[test]
fn three_agents_side_by_side_at_140_by_42() {
    let t = start(140, 42);
    t.wait_for("all three complete", WAIT, all_complete);
    // The frame that said so may still be being written (a loaded machine): read a still one.
    let screen = t.wait_still("the finished frame", WAIT);
    assert!(screen.contains("●●·  catl.com"), "{screen}");
    // Each column's bar keeps its hints whole (`Ctrl-C qui…` was all three said); how to quit is
    // said once, on the comparison's own line.
    let bars = screen.lines().find(|l| l.starts_with(" DEMO ")).unwrap();
    assert_eq!(bars.matches("F1 help").count(), 3, "{screen}");
    assert!(!bars.contains('…'), "{screen}");
    let last = screen.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(last.contains(" · Ctrl-C quits · comparison "), "{screen}");
    insta::assert_snapshot!("compare_140x42", masked(&screen));
    t.send(&["M-j", "M-j"]);
    // CATL: cited by Bigdata.com and OpenAI.
    t.wait_for("the spans of the selected source", WAIT, |s| {
        s.contains("span 1/")
    });
    // The first Alt-J's frame can show before the second is taken (a loaded machine): read the
    // screen once it has settled on the second.
    let screen = t.wait_still("the second selection", WAIT);
    let rows = colored(&t);
    let bg = highlight_of(&rows, "catl.com");
    let header = screen.lines().next().unwrap();
    let x = |agent: &str| {
        header
            .find(agent)
            .map(|b| header[..b].chars().count())
            .unwrap()
    };
    let body = 2..sources_top(&screen);
    assert!(
        lit(&rows, body.clone(), 0, x("openai") - 1, &bg),
        "bigdata:\n{screen}"
    );
    assert!(
        lit(&rows, body.clone(), x("openai"), x("perplexity") - 1, &bg),
        "openai:\n{screen}"
    );
    assert!(
        !lit(&rows, body, x("perplexity"), 140, &bg),
        "perplexity:\n{screen}"
    );
    follow_up_reaches_all_three(&t, true);
}

#[test]
fn three_agents_in_tabs_at_80_by_24() {
    let t = start(80, 24);
    t.wait_for("all three complete", WAIT, all_complete);
    // The frame that said so may still be being written (a loaded machine): read a still one.
    let screen = t.wait_still("the finished frame", WAIT);
    // One agent at a time: the tab row names all three, one header row.
    assert!(
        screen
            .lines()
            .next()
            .unwrap()
            .contains("perplexity · complete"),
        "{screen}"
    );
    assert_eq!(screen.matches("· text ").count(), 1, "{screen}");
    assert!(screen.contains("●●·  catl.com"), "{screen}");
    insta::assert_snapshot!("compare_80x24", masked(&screen));
    // Alt-J on BNEF: each tab in turn (Alt-N) — lit where the agent cites it.
    t.send(&["M-j"]);
    for (agent, cites) in [("bigdata", false), ("openai", true), ("perplexity", true)] {
        let screen = t.wait_for(agent, WAIT, |s| {
            s.lines().nth(1).is_some_and(|l| l.contains(agent))
        });
        // Give the column a frame to bring the span into view.
        let screen = if cites {
            t.wait_for("the span in view", WAIT, |s| {
                s.contains("span 1/") || s != screen
            })
        } else {
            screen
        };
        let rows = colored(&t);
        let bg = highlight_of(&rows, "about.bnef.com");
        let body = 2..sources_top(&screen);
        assert_eq!(lit(&rows, body, 0, 80, &bg), cites, "{agent}:\n{screen}");
        t.send(&["M-n"]);
    }
    follow_up_reaches_all_three(&t, false);
}

#[test]
fn opening_one_agents_session_reopens_the_whole_comparison_with_each_agents_times() {
    let home = tempfile::tempdir().unwrap();
    let asked = crate::support::cli(home.path())
        .args([
            "ask",
            "Sodium-ion vs LFP?",
            "--provider",
            "bigdata,openai,perplexity",
        ])
        .args(["--demo", "--demo-speed", "100", "--format", "json"])
        .output()
        .unwrap();
    assert!(asked.status.success(), "{asked:?}");
    let doc: serde_json::Value = serde_json::from_slice(&asked.stdout).unwrap();
    let openai = doc["answers"][1]["session_id"].as_str().unwrap();
    let data = format!("XDG_DATA_HOME={}", home.path().join("data").display());
    let t = Tmux::start_with_env(140, 42, &[&data], &["open", openai]);
    let screen = t.wait_for("the three agents reopened", WAIT, |s| {
        all_complete(s) && s.contains("Sources compared")
    });
    assert!(screen.contains("●●·  catl.com"), "{screen}");
    // Each header keeps its agent's times from the saved arrival times (`0.1/0.3 s`: first text /
    // total), not `–/0.3 s` as if its text were still to come.
    let headers = screen.lines().next().unwrap();
    assert!(!headers.contains('–'), "{screen}");
    let times = headers.matches(" src · ").count();
    let timed = headers
        .split(" src · ")
        .skip(1)
        .filter(|rest| {
            let (first, _) = rest.split_once('/').unwrap_or_default();
            first.parse::<f64>().is_ok()
        })
        .count();
    assert_eq!((times, timed), (3, 3), "{screen}");
    // Each column is its agent's own conversation, ready for a follow-up.
    t.send(&["Costs?", "Enter"]);
    t.wait_for("the follow-up asked", WAIT, |s| s.contains("You: Costs?"));
}

/// The comparison drawn into a TestBackend once every demo agent has answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_comparison_drawn_side_by_side_with_a_shared_source_lit_in_the_columns_citing_it() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use research_tui::tui::compare;
    use research_tui::wire::provider::Provider;

    let providers = vec![Provider::Bigdata, Provider::OpenAI, Provider::Perplexity];
    let mut screen = demo_comparison(providers).await;
    until_answered(&mut screen).await;
    // Alt-J: the first merged source, BNEF, cited by OpenAI and Perplexity.
    screen.key(research_tui::tui::state::ComparisonKey::Source(true));
    let mut terminal = Terminal::new(TestBackend::new(140, 42)).unwrap();
    terminal
        .draw(|frame| compare::draw(frame, &mut screen))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    let highlight = screen.columns[0].ui.theme.highlight();
    let lit = |x0: u16, x1: u16| {
        (2..buffer.area.height - 12).any(|y| {
            (x0..x1).any(|x| {
                buffer[(x, y)].bg == highlight.bg.unwrap() && buffer[(x, y)].symbol() != " "
            })
        })
    };
    assert!(!lit(0, 46), "bigdata does not cite BNEF");
    assert!(lit(47, 93), "openai cites it");
    assert!(lit(94, 140), "perplexity cites it");
    let text: String = (0..buffer.area.height)
        .map(|y| {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            format!("{}\n", row.trim_end())
        })
        .collect();
    insta::assert_snapshot!("compare_testbackend_140x42", masked(&text));
}

/// A word typed after Esc reaches the focused column's prompt once, whole, in columns and in tabs:
/// the comparison mapped each key twice, so `hello` read `hhello` (`h` stepped a tab twice) and
/// `like` read `ke`.
#[test]
fn a_word_typed_after_esc_in_a_comparison_is_typed_once_whole() {
    for (width, height) in [(140, 42), (80, 24)] {
        let t = start(width, height);
        t.wait_for("all three complete", WAIT, |s| {
            // Narrow, the tab bar names the focused agent only.
            s.contains("complete") && !s.contains("streaming")
        });
        t.send(&["Escape", "hello", " ", "like", " ", "Tell"]);
        t.wait_for("the words in the prompt", WAIT, |s| {
            s.contains("hello like Tell")
        });
        let screen = t.wait_still("the typed words", WAIT);
        assert!(!screen.contains("hhello"), "{screen}");
    }
}

/// Heavy borders mark the one pane with the keys: once the keys move to another agent's column
/// (Alt-N), the pane focused in the column left behind is drawn as any other.
#[test]
fn only_the_focused_columns_focused_pane_has_heavy_borders() {
    let t = start(140, 42);
    t.wait_for("all three complete", WAIT, all_complete);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", WAIT, |s| s.contains("BROWSE"));
    t.send(&["a"]);
    let screen = t.wait_for("the first column's answer focused", WAIT, |s| {
        s.contains("┏ Answer")
    });
    assert_eq!(screen.matches('┏').count(), 1, "{screen}");
    t.send(&["M-n"]);
    let screen = t.wait_for("the keys in the second column", WAIT, |s| {
        s.contains("openai's follow-ups go here") || s.contains("follow-ups go to openai")
    });
    assert!(!screen.is_empty());
    let screen = t.wait_still("the frame after Alt-N", WAIT);
    let column = |line: &str, text: &str| line.find(text).map(|b| line[..b].chars().count());
    // (The second column starts a cell before its header's name.)
    let openai = column(screen.lines().next().unwrap(), "openai").unwrap();
    let heavy: Vec<usize> = screen.lines().filter_map(|l| column(l, "┏")).collect();
    assert!(heavy.len() <= 1, "one focused pane at most:\n{screen}");
    assert!(
        heavy.iter().all(|&x| x + 1 >= openai),
        "a heavy border in the first column:\n{screen}"
    );
}

/// A comparison of `providers` on the demo stream (fast), just asked.
async fn demo_comparison(
    providers: Vec<research_tui::wire::provider::Provider>,
) -> research_tui::tui::compare::CompareScreen {
    use research_tui::tui::TuiOptions;
    use research_tui::tui::compare::{self, Start};

    let opts = TuiOptions {
        demo: true,
        demo_speed: 200.0,
        store: None,
        ..TuiOptions::default()
    };
    compare::start(&opts, Start::Ask(providers)).await.unwrap()
}

/// Take the comparison's updates until every agent has answered.
async fn until_answered(screen: &mut research_tui::tui::compare::CompareScreen) {
    let deadline = std::time::Instant::now() + WAIT;
    while screen.streaming() {
        assert!(std::time::Instant::now() < deadline, "the agents answer");
        screen.take_updates();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    screen.take_updates();
}

/// The comparison's key line says what Ctrl-C does now: it cancels the focused agent's stream
/// while it runs, and quits once every answer is in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_comparison_says_ctrl_c_cancels_while_the_agents_stream_and_quits_after() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use research_tui::tui::compare;
    use research_tui::wire::provider::Provider;

    let mut screen = demo_comparison(vec![Provider::Bigdata, Provider::OpenAI]).await;
    let key_line = |screen: &mut compare::CompareScreen| {
        let mut terminal = Terminal::new(TestBackend::new(140, 42)).unwrap();
        terminal.draw(|frame| compare::draw(frame, screen)).unwrap();
        let buffer = terminal.backend().buffer();
        let y = buffer.area.height - 1;
        (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol())
            .collect::<String>()
    };
    let streaming = key_line(&mut screen);
    assert!(
        streaming.contains(" · Ctrl-C cancels · comparison "),
        "{streaming}"
    );
    until_answered(&mut screen).await;
    let done = key_line(&mut screen);
    assert!(done.contains(" · Ctrl-C quits · comparison "), "{done}");
}

/// The three agents on the demo at its own pace, not sped up: Perplexity answers in ~4 s,
/// Bigdata.com and OpenAI take ~13 s.
fn at_the_demos_pace(width: u16, height: u16) -> Tmux {
    Tmux::start(
        width,
        height,
        &["--provider", "bigdata,openai,perplexity", "--demo"],
    )
}

/// The comparison's first row: each agent's header.
fn header(screen: &str) -> String {
    screen.lines().next().unwrap_or_default().to_owned()
}

/// The comparison's last row with text: its key line.
fn key_line(screen: &str) -> String {
    let last = screen.lines().rev().find(|l| !l.trim().is_empty());
    last.unwrap_or_default().to_owned()
}

/// Ctrl-C on an agent that has answered, while the others still stream, cancels their answers
/// rather than quitting them all with it (as one agent's app cancels before it quits): the key line
/// says so before, each header says `cancelled` after, and the next Ctrl-C quits.
#[test]
fn ctrl_c_on_an_agent_that_has_answered_cancels_the_others_still_streaming_then_quits() {
    let t = at_the_demos_pace(140, 42);
    t.wait_for("the agents streaming", WAIT, |s| {
        header(s).contains("bigdata · streaming")
    });
    // Alt-P: the previous agent, from the first to the last.
    t.send(&["M-p"]);
    let screen = t.wait_for("Perplexity answered, the others streaming", WAIT, |s| {
        let header = header(s);
        header.contains("perplexity · complete")
            && header.contains("bigdata · streaming")
            && header.contains("openai · streaming")
    });
    assert!(
        key_line(&screen).contains(" · Ctrl-C cancels · comparison "),
        "{screen}"
    );
    t.send(&["C-c"]);
    let screen = t.wait_for("the others cancelled", WAIT, |s| {
        let header = header(s);
        header.contains("bigdata · cancelled") && header.contains("openai · cancelled")
    });
    assert!(
        header(&screen).contains("perplexity · complete"),
        "{screen}"
    );
    assert!(
        key_line(&screen).contains(" · Ctrl-C quits · comparison "),
        "{screen}"
    );
    t.send(&["C-c"]);
    assert_eq!(t.wait_exit(WAIT), "0");
}

/// Ctrl-C on an agent still streaming cancels it alone, and says what the next one does while
/// the others still answer (it cancels them, it does not quit); the one after that quits.
#[test]
fn ctrl_c_on_a_streaming_agent_says_the_next_one_cancels_the_others_at_80_by_24() {
    let t = at_the_demos_pace(80, 24);
    t.wait_for("Bigdata.com and OpenAI streaming", WAIT, |s| {
        let header = header(s);
        header.contains("bigdata · streaming") && header.contains("openai · streaming")
    });
    t.send(&["C-c"]);
    let screen = t.wait_for("Bigdata.com cancelled", WAIT, |s| {
        header(s).contains("bigdata · cancelled")
    });
    assert!(header(&screen).contains("openai · streaming"), "{screen}");
    assert!(
        screen.contains("cancelled — Ctrl-C again cancels the others"),
        "{screen}"
    );
    t.send(&["C-c"]);
    let screen = t.wait_for("OpenAI cancelled", WAIT, |s| {
        header(s).contains("openai · cancelled")
    });
    assert!(screen.contains(" — Ctrl-C again quits"), "{screen}");
    t.send(&["C-c"]);
    assert_eq!(t.wait_exit(WAIT), "0");
}
