//! Following one `ask` turn to its end: the answer to stdout as it grows (or rendered at the end),
//! progress on one live line and retries to stderr, failures to save reported, Ctrl-C cancelling
//! (on the server too), and the exit code and the line that say how it ended.

use super::*;
use crate::model::timeline::Timeline;

/// Ctrl-C stopped a stream whose run lives on the server (OpenAI deep research): cancel the run
/// there too, or it goes on, billed, with nobody listening. Says on stderr how that went.
async fn cancel_on_server(driver: &mut TurnDriver<SavedTurn>) {
    let Some(run) = driver.take_cancelled_run() else {
        return;
    };
    match run.cancel().await {
        Ok(id) => eprintln!(
            "research-tui: cancelled the run {} on the server",
            sanitize_line(&id)
        ),
        Err(e) => eprintln!(
            "research-tui: warning: the run may go on on the server: {}",
            sanitize_line(&e.to_string())
        ),
    }
}

/// Whether saving the run failed at some point (each failure is reported when it happens).
pub(super) struct Saving {
    pub(super) failed: bool,
}

impl Saving {
    /// Report a failure to save, if `saved` is one; whether every save so far went through.
    fn report(&mut self, saved: std::io::Result<()>) -> bool {
        if let Err(e) = saved {
            eprintln!("research-tui: error: could not save the session: {e}");
            self.failed = true;
        }
        !self.failed
    }
}

/// Follow the turn to its end: retries (and on a terminal, progress) to stderr, the answer to stdout
/// as it grows (`text`; to a pipe it keeps no copy of it), failures to save as errors (in
/// `saving`). Ctrl-C cancels it.
pub(super) async fn follow_turn(
    mut driver: TurnDriver<SavedTurn>,
    format: Format,
    progress: bool,
    printer: &mut TextPrinter,
    saving: &mut Saving,
    interrupt: &mut Interrupt,
) -> (Session, StreamEnd) {
    let mut line = ProgressLine::default();
    // The answer and the live line share the terminal: the line steps aside while text prints.
    let shares_terminal = progress && std::io::stdout().is_terminal();
    let streaming_text = format == Format::Text;
    let mut session = Session::new();
    if streaming_text && printer.streams_without_keeping() {
        // Printed as it arrives: the session only counts the text.
        session.answer.stop_keeping_text();
    }
    loop {
        let first = tokio::select! {
            update = driver.next_update() => update,
            _ = interrupt.pressed() => {
                line.hide();
                saving.report(driver.cancel(&session));
                cancel_on_server(&mut driver).await;
                return (session, StreamEnd::Cancelled);
            }
        };
        // The updates already waiting behind it are taken too, and the answer printed once for all
        // of them: a flood costs one wake-up and one write per batch, a lone chunk prints at once.
        let mut batch = vec![first];
        while batch.len() < BATCH
            && let Some(next) = driver.try_next_update()
        {
            batch.push(next);
        }
        let mut chunks = Vec::new();
        let mut ended = None;
        for update in batch {
            // Nothing past the chunk that passes the answer limit is shown: the answer ends there.
            let update = driver.within_limit(update, &session);
            if let Some(note) = note_of(&update, progress) {
                // Said after the text that came before it, as it happened.
                line.hide();
                if streaming_text && !chunks.is_empty() {
                    printer.print(&session, &std::mem::take(&mut chunks));
                }
                eprintln!("research-tui: {note}");
            }
            if progress && let StreamUpdate::Events(events) = &update {
                line.update(events);
            }
            if streaming_text {
                chunks.extend(answer_chunks(&update));
            }
            let saved = driver.apply(update, &mut session);
            if let Some(end) = driver.ended() {
                ended = Some((end.clone(), saved));
                break;
            }
            saving.report(saved);
        }
        if streaming_text {
            if shares_terminal {
                line.hide();
            }
            printer.print(&session, &chunks);
            if shares_terminal {
                line.show();
            }
        }
        if let Some((end, saved)) = ended {
            line.hide();
            saving.report(saved);
            say_not_saved(&driver);
            return (session, end);
        }
    }
}

/// The most updates printed together (the stream task runs at most [`BACKLOG`] ahead anyway).
///
/// [`BACKLOG`]: crate::agent::stream::BACKLOG
const BATCH: usize = crate::agent::stream::BACKLOG;

/// The line an update has to say on stderr: a retry, and with `progress` a new connection's try.
fn note_of(update: &StreamUpdate, progress: bool) -> Option<String> {
    match update {
        StreamUpdate::Connecting { attempt } if *attempt > 1 && progress => {
            Some(format!("connecting (try {attempt})…"))
        }
        StreamUpdate::Retrying {
            attempt,
            wait_ms,
            reason,
        } => Some(format!(
            "{reason}; retrying in {:.1} s (try {attempt})",
            *wait_ms as f64 / 1000.0
        )),
        _ => None,
    }
}

/// What the saved turn's file left out on purpose (a line past the decoder's limit), said once the
/// turn is saved: the answer shown is whole, the file is not.
fn say_not_saved(driver: &TurnDriver<SavedTurn>) {
    let note = driver.recorder().and_then(|turn| {
        let meta = turn.saved.meta.turns.get(turn.index)?;
        Some((
            turn.saved.meta.id.clone(),
            turn.index,
            meta.not_saved.clone()?,
        ))
    });
    if let Some((id, index, note)) = note {
        eprintln!(
            "research-tui: warning: turn {} of session {id}: {note}",
            index + 1
        );
    }
}

/// The answer text an update appends (copies of its chunks: the session keeps none in `text`).
fn answer_chunks(update: &StreamUpdate) -> Vec<String> {
    let StreamUpdate::Events(events) = update else {
        return Vec::new();
    };
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::AnswerDelta { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Print the result in `format` (the rest of a streamed answer, or the whole document), and why the
/// run failed if it did; the exit code.
pub(super) fn print_result(
    format: Format,
    printer: &mut TextPrinter,
    mut session: Session,
    end: &StreamEnd,
    timeline: Option<&Timeline>,
) -> u8 {
    let code = exit_code(&session, end);
    let timing = timeline.map(Timeline::summary_line);
    match format {
        // A reader that stopped early (`| head`) takes nothing more; the turn still ends and is
        // saved (`print!` would panic on the closed pipe).
        Format::Text => {
            printer.finish(&mut session);
            if let Some(timing) = timing {
                write_out(&format!("\n{}\n", printer.fit_items(&timing)));
            }
        }
        Format::Markdown => {
            write_out(&crate::render::render(&session, Format::Markdown));
            if let Some(timing) = timing {
                write_out(&format!("\n{timing}\n"));
            }
        }
        Format::Json => {
            let attribution = Attribution::resolve(&session, true);
            // The stream did not finish: say so, and why, in the document itself.
            let unfinished = end.describe();
            let outcome =
                (session.error.is_none() && !matches!(end, StreamEnd::Closed)).then(|| {
                    let http = matches!(end, StreamEnd::Http { .. } | StreamEnd::Connect { .. });
                    (
                        if http { "error" } else { "incomplete" },
                        unfinished.as_str(),
                    )
                });
            // Written as it is serialised: the answer is not copied again.
            let out = std::io::BufWriter::new(std::io::stdout().lock());
            let _ =
                crate::render::json::write_timed(&session, &attribution, outcome, timeline, out);
        }
    }
    if code != EXIT_COMPLETE {
        eprintln!("research-tui: {}", failure_line(&session, end));
    }
    code
}

pub fn exit_code(session: &Session, end: &StreamEnd) -> u8 {
    if session.error.is_some() {
        return EXIT_AGENT_ERROR;
    }
    if session.completion.is_some() {
        return EXIT_COMPLETE;
    }
    match end {
        StreamEnd::Http { .. } => EXIT_HTTP,
        StreamEnd::Cut { .. } | StreamEnd::Stalled { .. } | StreamEnd::Closed => EXIT_INCOMPLETE,
        StreamEnd::Connect { .. } | StreamEnd::Cancelled => EXIT_OTHER,
    }
}

pub(super) fn failure_line(session: &Session, end: &StreamEnd) -> String {
    if let Some(error) = &session.error {
        return format!("the agent reported an error: {}", sanitize_line(error));
    }
    match end {
        StreamEnd::Closed => {
            "the stream closed before COMPLETE; what arrived is shown above".into()
        }
        StreamEnd::Cut { .. } | StreamEnd::Stalled { .. } => {
            format!("{}; what arrived is shown above", end.describe())
        }
        other => other.describe(),
    }
}

/// Write `text` to stdout, whatever became of it: a closed pipe or a full disk ends no turn.
fn write_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
