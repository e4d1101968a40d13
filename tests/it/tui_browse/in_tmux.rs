//! The real binary in tmux against the demo agent: `/` searches every turn's question and answer,
//! `z` keeps the line being read, the chart viewer pages between charts.

use super::*;

fn demo_answered(width: u16, height: u16) -> Tmux {
    let t = Tmux::start(width, height, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer to complete", ANSWER, |s| {
        status_line(s).contains("complete")
    });
    t
}

#[test]
fn in_tmux_slash_searches_the_answer_with_hits_and_n_walks_them() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    t.send(&["/", "margin"]);
    let screen = t.wait_for("the hit count", SOON, |s| {
        status_line(s).contains("SEARCH") && status_line(s).contains("/margin  1/")
    });
    assert!(screen.contains("Answer /margin 1/"), "{screen}");
    t.send(&["Enter"]);
    t.wait_for("the second hit", SOON, |s| {
        status_line(s).contains("/margin  2/")
    });
    t.send(&["Escape"]);
    t.wait_for("browsing the hits", SOON, |s| {
        status_line(s).contains("n next")
    });
    t.send(&["n"]);
    t.wait_for("the third hit", SOON, |s| {
        status_line(s).contains("/margin  3/")
    });
    t.send(&["Escape"]);
    let screen = t.wait_for("the search ended", SOON, |s| {
        !status_line(s).contains("/margin")
    });
    assert!(t.still_running(), "{screen}");
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

/// `/` searches the whole conversation: every turn's question and answer, the count covering them
/// all; a hit in another turn than the one shown selects that turn and brings the hit into view.
#[test]
fn in_tmux_slash_searches_every_turns_question_and_answer_and_n_crosses_turns() {
    for (width, height) in [(140, 42), (80, 24)] {
        let t = demo_answered(width, height);
        t.send(&["What about AMD?", "Enter"]);
        t.wait_for("the second turn to start", ANSWER, |s| {
            !status_line(s).contains("complete")
        });
        t.wait_for("the second turn to complete", ANSWER, |s| {
            status_line(s).contains("complete")
        });
        t.send(&["Escape"]);
        t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
        // Only the first turn's question says it: the first turn is shown, its question in view.
        t.send(&["/", "Break down"]);
        let screen = t.wait_for("the hit in the first question", SOON, |s| {
            status_line(s).contains("/Break down  1/1")
        });
        assert!(screen.contains("▍You: Break down"), "{screen}");
        assert!(screen.contains("▶ turn 1 · selected"), "{screen}");
        if width < 100 {
            t.send(&["C-c", "C-c"]);
            assert_exited_and_restored(&t);
            continue;
        }
        // A word both answers hold: n walks from the first turn's hits into the second's, with
        // one count for both.
        t.send(&["/", "Escape", "BSpace", "Escape"]);
        t.wait_for("the search ended", SOON, |s| {
            !status_line(s).contains("/Break")
        });
        t.send(&["/", "revenue"]);
        let screen = t.wait_for("the hits", SOON, |s| {
            status_line(s).contains("/revenue  1/")
        });
        let total = hits_total(status_line(&screen), "/revenue");
        t.send(&["Escape"]);
        t.wait_for("browsing the hits from the first turn", SOON, |s| {
            status_line(s).contains("n next") && s.contains("from turn 1")
        });
        let mut crossed = false;
        for step in 2..=total {
            t.send(&["n"]);
            let screen = t.wait_for("the next hit", SOON, |s| {
                status_line(s).contains(&format!("/revenue  {step}/{total}"))
            });
            // (A question asked now branches from the turn shown: the prompt's title says which.)
            if !screen.contains("from turn 1") {
                crossed = true;
                break;
            }
        }
        assert!(crossed, "n reached the second turn's hits");
        t.send(&["Escape"]);
        t.wait_for("the search ended", SOON, |s| {
            !status_line(s).contains("/revenue")
        });
        t.send(&["C-c"]);
        assert_exited_and_restored(&t);
    }
}

/// `17` of `/query  3/17` in a status bar.
fn hits_total(status: &str, query: &str) -> usize {
    let after = status
        .split(&format!("{query}  "))
        .nth(1)
        .unwrap_or_default();
    let count = after.split_whitespace().next().unwrap_or_default();
    count
        .split('/')
        .nth(1)
        .and_then(|n| n.trim_end_matches('+').parse().ok())
        .unwrap_or_else(|| panic!("a count in {status:?}"))
}

#[test]
fn in_tmux_zoom_keeps_the_line_being_read() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    t.send(&["a", "g"]);
    for _ in 0..30 {
        t.send(&["j"]);
    }
    let screen = t.wait_for("scrolled", SOON, |s| !s.contains("You: Break down"));
    let top = |s: &str| words(&focused_top_row(s));
    let before = top(&screen);
    assert!(!before.is_empty(), "{screen}");
    t.send(&["z"]);
    let zoomed = t.wait_for("zoomed", SOON, |s| s.contains("z all panes"));
    assert!(
        focused_top_row(&zoomed).contains(&before),
        "{before:?} not at the top:\n{zoomed}"
    );
    t.send(&["z"]);
    let back = t.wait_for("all panes", SOON, |s| !s.contains("z all panes"));
    assert_eq!(top(&back), before, "{back}");
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn in_tmux_the_chart_viewer_pages_between_charts() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    t.send(&["a", "g"]);
    // Down to the first chart, then Enter opens it full screen.
    for _ in 0..60 {
        if t.capture().contains("Enter: the chart full screen") {
            break;
        }
        t.send(&["j"]);
    }
    t.send(&["Enter"]);
    let screen = t.wait_for("chart 1", SOON, |s| s.contains("Chart 1 of 2"));
    let bar_rows = screen.lines().filter(|l| l.contains('█')).count();
    assert!(bar_rows >= 25, "the bars fill the screen:\n{screen}");
    t.send(&["Right"]);
    t.wait_for("chart 2", SOON, |s| s.contains("Chart 2 of 2"));
    t.send(&["PageUp"]);
    t.wait_for("chart 1 again", SOON, |s| s.contains("Chart 1 of 2"));
    t.send(&["Escape"]);
    t.wait_for("closed", SOON, |s| !s.contains("Chart 1 of 2"));
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}
