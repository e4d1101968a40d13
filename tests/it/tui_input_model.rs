//! The one input model, end to end in tmux (see `support::tmux`): a word typed after Esc never
//! writes, opens, quits or sends; `q` after an answer is typed and quitting is Ctrl-C; PgUp scrolls
//! the answer from the prompt; Enter while an answer streams queues the question; the prompt edits
//! as readline does; `y` copies in the ids and JSON popups; a message that said to wait goes when
//! the answer ends.

use std::time::Duration;

use crossterm::event::KeyCode;

use crate::support::tmux::*;
use crate::support::*;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::tui::state::{Action, Focus};

const ANSWER: Duration = Duration::from_secs(60);
const SOON: Duration = Duration::from_secs(5);

fn demo_answered(width: u16, height: u16) -> Tmux {
    let t = Tmux::start(width, height, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer to complete", ANSWER, |s| {
        status_line(s).contains("complete")
    });
    t
}

#[test]
fn compare_typed_after_esc_is_typed_and_exports_opens_or_toggles_nothing() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    // c focuses the sources (a move); o, m, p, a, r, e would open, toggle the mouse, export. The
    // whole word reaches the prompt, its first letter too.
    t.send(&["compare"]);
    let screen = t.wait_for("the word in the prompt", SOON, |s| {
        prompt_rows(s).first().is_some_and(|r| r == "compare")
    });
    assert!(t.still_running(), "{screen}");
    assert!(status_line(&screen).contains("TYPE"), "{screen}");
    assert!(!status_line(&screen).contains("mouse off"), "{screen}");
    assert!(!status_line(&screen).contains("opening"), "{screen}");
    assert!(
        t.files_named("research-tui-export-").is_empty(),
        "no export"
    );
    // Ctrl-C clears the prompt first, then quits.
    t.send(&["C-c"]);
    t.wait_for("the prompt cleared", SOON, |s| {
        status_line(s).contains("prompt cleared")
    });
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn q_after_the_answer_is_typed_never_sent_and_ctrl_c_on_an_empty_prompt_quits() {
    let t = demo_answered(140, 42);
    let screen = t.capture();
    assert!(status_line(&screen).contains("Ctrl-C quits"), "{screen}");
    t.send(&["q"]);
    let screen = t.wait_for("q in the prompt", SOON, |s| {
        prompt_rows(s).first().is_some_and(|r| r == "q")
    });
    assert!(t.still_running(), "{screen}");
    assert!(!status_line(&screen).contains("Ctrl-C quits"), "{screen}");
    // Ctrl-U deletes it (readline), and the quitting gesture shows again.
    t.send(&["C-u"]);
    t.wait_for("an empty prompt", SOON, |s| {
        status_line(s).contains("Ctrl-C quits")
    });
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn the_prompt_edits_as_readline_does() {
    let t = demo_answered(140, 42);
    t.send(&["what about margins"]);
    t.wait_for("the text", SOON, |s| {
        prompt_rows(s)
            .first()
            .is_some_and(|r| r == "what about margins")
    });
    t.send(&["C-w"]);
    t.wait_for("a word deleted", SOON, |s| {
        prompt_rows(s).first().is_some_and(|r| r == "what about")
    });
    t.send(&["C-a", "so ", "C-e", "guidance"]);
    t.wait_for("start and end of line", SOON, |s| {
        prompt_rows(s)
            .first()
            .is_some_and(|r| r == "so what about guidance")
    });
    t.send(&["M-b", "M-b", "X"]);
    t.wait_for("two words back", SOON, |s| {
        prompt_rows(s)
            .first()
            .is_some_and(|r| r == "so what Xabout guidance")
    });
    t.send(&["C-_"]);
    t.wait_for("undone", SOON, |s| {
        prompt_rows(s)
            .first()
            .is_some_and(|r| r == "so what about guidance")
    });
    t.send(&["C-e", "C-u"]);
    t.wait_for("deleted to the line's start", SOON, |s| {
        prompt_rows(s)
            .first()
            .is_some_and(|r| r.contains("Type a question"))
    });
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

/// The answer pane's rows (between the activity/plan column and the sources) at 140 columns.
fn answer_text(screen: &str) -> String {
    screen
        .lines()
        .skip(1)
        .take(30)
        .map(|l| l.chars().skip(33).take(66).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn pgup_and_ctrl_up_scroll_the_answer_while_the_prompt_keeps_the_focus() {
    let t = demo_answered(140, 42);
    let bottom = answer_text(&t.capture());
    t.send(&["PageUp"]);
    let screen = t.wait_for("the answer scrolled up", SOON, |s| answer_text(s) != bottom);
    assert!(status_line(&screen).contains("TYPE"), "{screen}");
    let paged = answer_text(&screen);
    t.send(&["C-Up"]);
    t.wait_for("a line further up", SOON, |s| answer_text(s) != paged);
    t.send(&["PageDown", "PageDown", "PageDown"]);
    t.wait_for("the bottom again", SOON, |s| answer_text(s) == bottom);
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn enter_while_the_answer_streams_queues_the_question_and_sends_it_when_it_ends() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "2"]);
    t.wait_for("streaming", Duration::from_secs(30), |s| {
        status_line(s).contains("streaming")
    });
    t.send(&["and the guidance?", "Enter"]);
    let screen = t.wait_for("the question queued", SOON, |s| {
        s.contains("queued: and the guidance?")
    });
    assert!(
        prompt_rows(&screen).concat().contains("Type a question"),
        "{screen}"
    );
    t.wait_for("the queued question sent", ANSWER, |s| {
        status_line(s).contains("turn 2/2")
    });
    let screen = t.capture();
    assert!(!screen.contains("queued:"), "{screen}");
    assert!(screen.contains("and the guidance?"), "{screen}");
    t.send(&["C-c", "C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn ctrl_c_drops_a_queued_question_and_the_answer_goes_on() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "1"]);
    t.wait_for("streaming", Duration::from_secs(30), |s| {
        status_line(s).contains("streaming")
    });
    t.send(&["never mind", "Enter"]);
    t.wait_for("the question queued", SOON, |s| {
        s.contains("queued: never mind")
    });
    t.send(&["C-c"]);
    let screen = t.wait_for("the question dropped", SOON, |s| {
        status_line(s).contains("queued question dropped")
    });
    assert!(!screen.contains("queued: never mind"), "{screen}");
    t.wait_for("the answer completes", ANSWER, |s| {
        status_line(s).contains("complete")
    });
    assert!(!status_line(&t.capture()).contains("turn 2/2"));
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn y_copies_in_the_ids_popup_and_in_the_raw_json_popup() {
    let t = demo_answered(140, 42);
    t.send(&["Escape", "I"]);
    t.wait_for("the ids popup", SOON, |s| s.contains("y copy checkpoint"));
    t.send(&["y"]);
    t.wait_for("the checkpoint copied", SOON, |s| {
        status_line(s).contains("copied ckpt-")
    });
    t.send(&["Escape", "J"]);
    t.wait_for("the JSON popup", SOON, |s| {
        s.contains("Structured output (JSON)")
    });
    t.send(&["y"]);
    let screen = t.wait_for("the JSON copied", SOON, |s| {
        status_line(s).contains("lines (OSC 52)")
    });
    assert!(!status_line(&screen).contains("failed"), "{screen}");
    t.send(&["Escape", "q", "q"]);
    assert_exited_and_restored(&t);
}

/// A key that needs the answer to end said so; when the answer ends the message goes, and the
/// keys stay with the panes the person was browsing.
#[test]
fn still_answering_goes_from_the_status_bar_when_the_answer_ends() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), Some(40));
    browse(&mut app);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(key(&mut app, KeyCode::Enter), None);
    let message = &app.message.as_ref().expect("a message").0;
    assert!(message.contains("still answering"), "{message}");
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    assert_eq!(app.message, None, "the answer ended");
    // The person was browsing: the panes keep the keys (`r` Enter now retries; it is not typed).
    assert_ne!(app.focus, Focus::Prompt);
    key(&mut app, KeyCode::Char('r'));
    assert!(key(&mut app, KeyCode::Enter).is_some(), "r Enter retries");
    assert!(app.panes.prompt.is_empty());
}

/// After Esc, every letter of a word either moves or is typed, in every pane.
#[test]
fn no_word_typed_in_a_pane_writes_opens_quits_or_sends() {
    for focus in ['c', 'a', 'p', 't'] {
        let mut app = app();
        play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
        browse(&mut app);
        keys(&mut app, &focus.to_string());
        for word in [
            "compare",
            "quarterly",
            "export",
            "retry",
            "open",
            "mouse",
            "quit",
        ] {
            let mut effects = Vec::new();
            for c in word.chars() {
                effects.extend(key(&mut app, KeyCode::Char(c)));
            }
            assert_eq!(effects, [], "{word} from {focus}");
            assert!(!app.quit);
            app.update(Action::Escape);
            key(&mut app, KeyCode::Esc);
        }
        assert!(app.mouse);
    }
}

/// Words typed after Esc reach the prompt whole, whatever their first letters did: moved (`c` `j`
/// `g` `t` `a` `k`), armed (`o` `e` `r` `m`), opened the ids (`I`) or zoomed (`z`). The popup a
/// letter opened closes and the zoom is put back.
#[test]
fn a_word_typed_after_esc_reaches_the_prompt_whole_and_what_its_letters_did_is_undone() {
    for word in [
        "cx", "just", "gnu", "pawn", "tack it", "Is it up", "zebra", "go on", "compare",
        // `i` right after a word's first letter goes to the prompt; the letter after it shows a
        // word.
        "kind", "jitter", "gig", "hi there", "time",
    ] {
        let mut app = answered_and_browsing();
        let mut effects = Vec::new();
        for c in word.chars() {
            effects.extend(key(&mut app, KeyCode::Char(c)));
        }
        assert_eq!(app.panes.prompt.text(), word);
        assert_eq!(effects, [], "{word}");
        assert_eq!(app.popup, None, "{word}");
        assert!(!app.zoom, "{word}");
        assert_eq!(app.focus, Focus::Prompt, "{word}");
    }
}

/// The demo's answer, browsed.
fn answered_and_browsing() -> research_tui::tui::ui::Ui {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    app
}

/// Browsing is not typing: letters apart, a letter pressed again and again, the popup's own keys
/// and the prompt's `i` act as before.
#[test]
fn moving_in_the_panes_and_popups_is_never_taken_for_a_word() {
    let mut app = answered_and_browsing();
    // `jjj` then a space pages down; `c` then `i` goes to the prompt with nothing typed.
    keys(&mut app, "jjj ");
    assert!(app.panes.prompt.is_empty());
    assert_ne!(app.focus, Focus::Prompt);
    keys(&mut app, "ci");
    assert_eq!(app.focus, Focus::Prompt);
    assert!(app.panes.prompt.is_empty());
    // `i` after two letters or more (moves chained: `a` `g` then `i`), or after nothing, only goes
    // to the prompt.
    for before in ["jj", "ag", ""] {
        let mut app = answered_and_browsing();
        keys(&mut app, &format!("{before}iwhat"));
        assert_eq!(app.panes.prompt.text(), "what", "{before}");
    }
    // `I` then `y` copies from the ids popup; a space after `I` alone pages it.
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "I");
    assert!(app.popup.is_some());
    let copied = key(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(copied, Some(research_tui::tui::state::Effect::CopyText(_))),
        "{copied:?}"
    );
    assert!(app.popup.is_some());
    assert!(app.panes.prompt.is_empty());
}

/// In the real app: a word whose letter opened the sessions picker (`s` of `gas`) or the timeline
/// (`T` of `Tell`) is typed whole, the popup closed.
#[test]
fn words_whose_letters_open_the_picker_or_the_timeline_are_typed_whole() {
    let t = demo_answered(140, 42);
    for (word, popup) in [("gas prices", "Saved sessions"), ("Tell me", "Timeline")] {
        t.send(&["Escape"]);
        t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
        t.send(&[word]);
        let screen = t.wait_for("the word in the prompt", SOON, |s| {
            prompt_rows(s).first().is_some_and(|r| r == word)
        });
        assert!(!screen.contains(popup), "{screen}");
        assert!(status_line(&screen).contains("TYPE"), "{screen}");
        t.send(&["C-u"]);
        t.wait_for("an empty prompt", SOON, |s| {
            status_line(s).contains("Ctrl-C quits")
        });
    }
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

/// In the help (`?`), `y` copies nothing (the source selected behind it is not the help's), and
/// Ctrl-C closes the help before it quits.
#[test]
fn in_the_help_y_copies_nothing_and_ctrl_c_closes_it_before_quitting() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "cj");
    assert!(app.panes.sources.selected.is_some(), "a source is selected");
    keys(&mut app, "?");
    assert!(matches!(
        app.popup,
        Some(research_tui::tui::state::Popup::Help { .. })
    ));
    assert_eq!(key(&mut app, KeyCode::Char('y')), None);
    assert_eq!(ctrl(&mut app, 'c'), None);
    assert_eq!(app.popup, None);
    assert!(!app.quit);
    assert_eq!(
        ctrl(&mut app, 'c'),
        Some(research_tui::tui::state::Effect::Quit)
    );
}

/// Narrow, `h` and `l` (and ← →) step through the tabs only — the prompt is not a tab — so `hello`
/// typed after Esc reaches the prompt whole (it lost its `h`, which had moved to the prompt).
#[test]
fn narrow_h_and_l_step_through_the_tabs_and_hello_is_typed_whole() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    draw(&mut app, 80, 24);
    browse(&mut app);
    let mut seen = Vec::new();
    for _ in 0..12 {
        keys(&mut app, "l");
        assert_ne!(app.focus, Focus::Prompt);
        seen.push(app.focus);
        // Apart, as a person browsing presses them.
        app.update(Action::Escape);
        key(&mut app, KeyCode::Left);
        key(&mut app, KeyCode::Right);
        assert_ne!(app.focus, Focus::Prompt);
    }
    seen.sort_by_key(|f| format!("{f:?}"));
    seen.dedup();
    assert!(seen.len() >= 4, "every tab in turn: {seen:?}");
    keys(&mut app, "hello");
    assert_eq!(app.panes.prompt.text(), "hello");
    assert_eq!(app.focus, Focus::Prompt);
}

/// A replay has nothing to ask: a word typed in it reaches no prompt (`hello` arrived as `ello`: the
/// `e` armed the export, and the `l` after it was typed with it), `i` and Tab never focus the
/// prompt, and an armed letter is dropped by the next key, never carried out by a later Enter.
#[test]
fn a_replay_takes_no_typing_and_says_there_is_nothing_to_ask() {
    let mut app = replayed();
    let mut effects = Vec::new();
    for c in "hello".chars() {
        effects.extend(key(&mut app, KeyCode::Char(c)));
    }
    effects.extend(key(&mut app, KeyCode::Enter));
    assert_eq!(effects, [], "no export");
    assert!(app.panes.prompt.is_empty());
    assert_ne!(app.focus, Focus::Prompt);
    key(&mut app, KeyCode::Char('i'));
    assert_ne!(app.focus, Focus::Prompt);
    let said = app
        .message
        .clone()
        .map(|(text, _)| text)
        .unwrap_or_default();
    assert!(said.starts_with("replay: nothing to ask"), "{said}");
    for _ in 0..8 {
        key(&mut app, KeyCode::Tab);
        assert_ne!(app.focus, Focus::Prompt);
    }
}

/// In a replay, with a source selected (`c` `j`), a word whose letter would open its URL or
/// export (`hello`'s `o`, `the`'s `e`) arms nothing: Enter after it opens and writes nothing, and
/// the status bar says letters are keys here. A letter alone still arms (`o` then Enter opens).
#[test]
fn a_word_typed_in_a_replay_opens_and_writes_nothing() {
    for word in ["hello", "hello there", "the", "also"] {
        let mut app = replayed();
        draw(&mut app, 140, 42);
        keys(&mut app, "cj");
        assert!(app.panes.sources.selected.is_some());
        // A pause: the next letters are a new run.
        std::thread::sleep(Duration::from_millis(1100));
        let mut effects = Vec::new();
        for c in word.chars() {
            effects.extend(key(&mut app, KeyCode::Char(c)));
        }
        let said = app
            .message
            .clone()
            .map(|(text, _)| text)
            .unwrap_or_default();
        assert!(
            said.starts_with("replay: letters are keys here"),
            "{word}: {said}"
        );
        effects.extend(key(&mut app, KeyCode::Enter));
        let opened_or_written = effects.iter().any(|e| {
            matches!(
                e,
                research_tui::tui::state::Effect::Open(_)
                    | research_tui::tui::state::Effect::Export
            )
        });
        assert!(!opened_or_written, "{word}: {effects:?}");
    }
    let mut app = replayed();
    draw(&mut app, 140, 42);
    keys(&mut app, "cj");
    std::thread::sleep(Duration::from_millis(1100));
    key(&mut app, KeyCode::Char('o'));
    let opened = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(opened, Some(research_tui::tui::state::Effect::Open(_))),
        "{opened:?}"
    );
}

/// A word typed after Esc whose last letter writes, opens or quits (`the`: `e` exports, `also`:
/// `o` opens) reaches the prompt at every width, and Enter asks it: below 100 columns `h` and `l`
/// step through the tabs and `s` opens the picker, so the letters before it all acted at once.
#[test]
fn a_word_ending_in_a_letter_that_writes_or_opens_is_asked_at_every_width() {
    for (width, height) in [(140, 42), (80, 24)] {
        for word in ["the", "also", "lore", "that one"] {
            let mut app = app();
            play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
            draw(&mut app, width, height);
            browse(&mut app);
            draw(&mut app, width, height);
            let mut effects = Vec::new();
            for c in word.chars() {
                effects.extend(key(&mut app, KeyCode::Char(c)));
                draw(&mut app, width, height);
            }
            // (`s` lists the sessions for the picker it opened: it reads, and the picker closes.)
            effects.retain(|e| *e != research_tui::tui::state::Effect::ListSessions);
            assert_eq!(effects, [], "{word} at {width}");
            assert_eq!(app.panes.prompt.text(), word, "{word} at {width}");
            assert_eq!(app.popup, None, "{word} at {width}");
            let sent = key(&mut app, KeyCode::Enter);
            assert_eq!(
                sent,
                Some(research_tui::tui::state::Effect::Ask(word.to_owned())),
                "{word} at {width}"
            );
        }
    }
}

/// The demo's answer in a replay (nothing to ask).
fn replayed() -> research_tui::tui::ui::Ui {
    let mut app = research_tui::tui::ui::Ui::new(research_tui::tui::state::AppConfig {
        mode: research_tui::tui::state::Mode::Replay,
        theme: research_tui::styled::theme::Theme::default(),
        can_ask: false,
    });
    play(&mut app, EARNINGS, None, None);
    app
}
