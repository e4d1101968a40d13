//! What the event loop does for the app: turn a terminal event into an action, and carry out the
//! effects actions ask for (ask, retry, open a saved session, open a URL — copying it when nothing can
//! open it —, copy, export, remember the pane sizes). Notes from helper threads come back through
//! [`Note`].

use crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use tokio::sync::mpsc::UnboundedSender;

use super::conversation::Conversation;
use super::export::{self, OpenError};
use super::state::{Action, Effect, Severity};
use super::ui::Ui;
use super::{Term, screen};
use crate::local::watch::SessionsWatch;

/// What the export says about the conversation: who answered, how, and its saved session.
fn export_meta(app: &Ui) -> export::ExportMeta {
    export::ExportMeta {
        provider: app.provider.map(|p| p.label().to_owned()),
        mode: Some(app.mode.label().to_lowercase()),
        session_id: app.session_id.clone(),
    }
}

/// Rows one notch of the mouse wheel scrolls.
const WHEEL_ROWS: isize = 3;

/// Messages from helper threads.
pub(super) enum Note {
    /// The browser opener for `url` failed.
    OpenFailed { error: String, url: String },
    /// The saved sessions as the open picker's watch read them.
    Sessions(crate::local::watch::SessionList),
}

/// A note from a helper thread: an opener that failed leaves the URL on screen and on the clipboard.
pub(super) fn note(note: Note, app: &mut Ui, terminal: &mut Term) {
    match note {
        Note::OpenFailed { error, url } => show_and_copy(app, terminal, &error, &url),
        Note::Sessions(list) => app.update_sessions(list),
    }
}

/// `url` could not be opened (`why`): say so, show it, and copy it.
fn show_and_copy(app: &mut Ui, terminal: &mut Term, why: &str, url: &str) {
    let copied = export::copy_to_clipboard(terminal.backend_mut(), url).is_ok();
    let what = if copied { "copied the URL" } else { "the URL" };
    app.set_message(
        format!("{why} — {what}: {}", screen::clean(url)),
        Severity::Warning,
    );
}

/// Handle one terminal event; returns whether the screen changed.
pub(super) async fn handle_event(
    event: Event,
    app: &mut Ui,
    conversation: &mut Conversation,
    terminal: &mut Term,
    notes: &UnboundedSender<Note>,
) -> bool {
    match action_of(event, app) {
        Asked::Action(action) => carry_out(action, app, conversation, terminal, notes).await,
        Asked::Redraw => true,
        Asked::Nothing => false,
    }
}

/// What a terminal event asks of the app.
pub(super) enum Asked {
    Action(Action),
    /// Nothing but a new frame (the terminal was resized).
    Redraw,
    Nothing,
}

/// The action a terminal event asks for. A key is mapped once ([`Ui::handle_key`] remembers the
/// letters of a word being typed): whoever asks carries the action out.
pub(super) fn action_of(event: Event, app: &mut Ui) -> Asked {
    let action = match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => app.handle_key(key),
        Event::Paste(text) => Some(Action::Paste(text)),
        Event::Mouse(mouse) => {
            let spot = || app.panes.spot(&app.app, mouse.column, mouse.row);
            match mouse.kind {
                MouseEventKind::Down(MouseButton::Left) => Some(Action::Click(spot())),
                MouseEventKind::ScrollUp => Some(Action::Wheel(spot(), -WHEEL_ROWS)),
                MouseEventKind::ScrollDown => Some(Action::Wheel(spot(), WHEEL_ROWS)),
                _ => None,
            }
        }
        Event::Resize(..) => return Asked::Redraw,
        _ => None,
    };
    action.map_or(Asked::Nothing, Asked::Action)
}

/// Carry `action` out and run its effect; the screen changed.
pub(super) async fn carry_out(
    action: Action,
    app: &mut Ui,
    conversation: &mut Conversation,
    terminal: &mut Term,
    notes: &UnboundedSender<Note>,
) -> bool {
    if let Some(effect) = app.update(action) {
        run_effect(effect, app, conversation, terminal, notes).await;
    }
    true
}

/// The saved sessions picker, and a watch of the sessions folder feeding it while it is open.
fn list_sessions(app: &mut Ui, conversation: &Conversation, notes: &UnboundedSender<Note>) {
    let list = conversation.list();
    app.show_sessions(list);
    // Answers and sources for the filter, then every change while the picker is open.
    if let (Some(store), Some(picker)) = (conversation.store(), app.picker_mut()) {
        let tx = notes.clone();
        picker.watch(SessionsWatch::start(store.root().to_owned(), move |list| {
            tx.send(Note::Sessions(list)).is_ok()
        }));
    }
}

/// Open `url` in the browser (a failure to, later, comes back as a note); with no opener at all it
/// is shown and copied.
fn open(app: &mut Ui, terminal: &mut Term, notes: &UnboundedSender<Note>, url: String) {
    let tx = notes.clone();
    let failed_url = url.clone();
    let opened = export::open_url(&url, move |error| {
        let _ = tx.send(Note::OpenFailed {
            error,
            url: failed_url,
        });
    });
    match opened {
        Ok(opener) => app.set_message(
            format!("opening {} ({opener})", screen::clean(&url)),
            Severity::Info,
        ),
        Err(OpenError::NoOpener) => {
            show_and_copy(app, terminal, &OpenError::NoOpener.to_string(), &url)
        }
        Err(error) => app.set_message(error.to_string(), Severity::Error),
    }
}

async fn run_effect(
    effect: Effect,
    app: &mut Ui,
    conversation: &mut Conversation,
    terminal: &mut Term,
    notes: &UnboundedSender<Note>,
) {
    match effect {
        // Only a comparison's columns ask for these, and the comparison carries them out.
        Effect::Quit | Effect::Comparison(_) => {}
        Effect::Suspend => {
            if let Err(e) = super::suspend(terminal, app.mouse) {
                app.set_message(format!("cannot suspend: {e}"), Severity::Error);
            }
        }
        Effect::Cancel => conversation.cancelled(app),
        Effect::Ask(question) => {
            let cont = app.continuation();
            conversation.ask(app, question, cont);
        }
        Effect::Retry(index) => {
            conversation.retry(app, index);
        }
        Effect::ListSessions => list_sessions(app, conversation, notes),
        Effect::OpenSession(id) => {
            if let Err(e) = conversation.open_id(app, &id).await {
                app.set_message(e, Severity::Error);
            }
        }
        Effect::Open(url) => open(app, terminal, notes, url),
        Effect::Copy(text) => {
            let result = export::copy_to_clipboard(terminal.backend_mut(), &text);
            match result {
                Ok(()) => app.set_message(
                    format!("copied {} (OSC 52)", screen::clean(&text)),
                    Severity::Info,
                ),
                Err(e) => app.set_message(format!("copy failed: {e}"), Severity::Error),
            }
        }
        Effect::CopyText(text) => {
            let result = export::copy_text_to_clipboard(terminal.backend_mut(), &text);
            match result {
                Ok(()) => {
                    let shown = export::clipboard_text(&text);
                    let what = if shown.contains('\n') {
                        format!("{} lines", shown.lines().count())
                    } else {
                        screen::clean(&shown)
                    };
                    app.set_message(format!("copied {what} (OSC 52)"), Severity::Info)
                }
                Err(e) => app.set_message(format!("copy failed: {e}"), Severity::Error),
            }
        }
        Effect::MouseCapture(on) => {
            let result = if on {
                crossterm::execute!(terminal.backend_mut(), EnableMouseCapture)
            } else {
                crossterm::execute!(terminal.backend_mut(), DisableMouseCapture)
            };
            if let Err(e) = result {
                app.set_message(format!("cannot change the mouse: {e}"), Severity::Error);
            }
        }
        Effect::SaveLayout(sizes) => {
            let path = crate::local::config::layout_file();
            if let Err(e) = crate::local::config::write_pane_sizes(&path, sizes) {
                app.set_message(
                    format!("cannot remember the pane sizes in {}: {e}", path.display()),
                    Severity::Warning,
                );
            }
        }
        Effect::Export => match export::export(&app.turns, &export_meta(app)) {
            Ok(path) => app.set_message(format!("exported to {}", path.display()), Severity::Info),
            Err(e) => app.set_message(format!("export failed: {e}"), Severity::Error),
        },
    }
}
