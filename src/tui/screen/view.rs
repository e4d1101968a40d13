//! One frame in two steps. [`prepare`] brings everything drawing needs up to date for the terminal's
//! size: the layout, the answer's block cache and the caches [`View`] keeps between frames, the scroll
//! positions (resolved against this frame's row counts, including `[`/`]` and `n`/`N` requests), the
//! prompt's dress. [`render`] then draws from `&App` and `&View` alone, writing nothing.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::widgets::Block;

use super::activity::{self, ActivityCache, ActivityFrame};
use super::answer::{self, AnswerFrame};
use super::chart::ChartCache;
use super::layout::{self, Areas, Pane};
use super::plan::{self, PlanFrame};
use super::popup::{self, PopupFrame};
use super::sources::{self, SourcesCache, SourcesFrame};
use super::structured::StructuredCache;
use super::{prompt, status};
use crate::tui::state::{App, Spot};

/// What the screen keeps next to the app: caches reused between frames, and the frame prepared last.
#[derive(Debug, Default)]
pub struct View {
    activity: ActivityCache,
    structured: StructuredCache,
    sources: SourcesCache,
    charts: ChartCache,
    frame: Prepared,
}

/// One frame, laid out and ready to draw.
#[derive(Debug, Default)]
struct Prepared {
    areas: Areas,
    panes: Vec<(Rect, PaneFrame)>,
    popup: Option<PopupFrame>,
}

#[derive(Debug)]
enum PaneFrame {
    Plan(PlanFrame),
    Activity(ActivityFrame),
    Answer(AnswerFrame),
    Sources(SourcesFrame),
}

impl View {
    pub fn new() -> View {
        View::default()
    }

    /// What the last frame drew at cell (`x`, `y`): for the mouse.
    pub fn spot(&self, app: &App, x: u16, y: u16) -> Spot {
        let prepared = &self.frame;
        let at = Position::new(x, y);
        if prepared.popup.as_ref().is_some_and(|p| p.contains(x, y)) {
            return Spot::Popup;
        }
        let areas = &prepared.areas;
        if let Some(tabs) = areas.tabs
            && tabs.contains(at)
        {
            return layout::tab_at(app, tabs, x).map_or(Spot::Nothing, Spot::Tab);
        }
        if areas.prompt.contains(at) {
            return Spot::Prompt;
        }
        for ((pane, rect), (_, frame)) in areas.panes.iter().zip(&prepared.panes) {
            if !rect.contains(at) {
                continue;
            }
            let inner = super::pane_inner(*rect);
            let row = y.checked_sub(inner.y).filter(|r| *r < inner.height);
            let picked = row.and_then(|row| {
                let row = row as usize;
                match frame {
                    PaneFrame::Sources(sources) => sources.item_at(row).map(Spot::Source),
                    PaneFrame::Activity(activity) => activity.item_at(row).map(Spot::Activity),
                    PaneFrame::Answer(answer) => {
                        answer.spot(app, row, x.checked_sub(inner.x)? as usize)
                    }
                    PaneFrame::Plan(_) => None,
                }
            });
            return picked.unwrap_or(Spot::Pane(pane.focus()));
        }
        Spot::Nothing
    }

    /// Prepare and draw one frame (inside `Terminal::draw`).
    pub fn draw(&mut self, frame: &mut Frame, app: &mut App) {
        prepare(app, self, frame.area());
        render(frame, app, self);
    }
}

/// Draw one frame with a fresh [`View`]: for tests, benchmarks and one-off frames. The event loop keeps
/// its `View` so the activity rows and structured output are not redone every frame.
pub fn draw(frame: &mut Frame, app: &mut App) {
    View::new().draw(frame, app);
}

/// Get the next frame of `area` ready: lay it out, bring caches up to date, resolve scroll positions.
pub fn prepare(app: &mut App, view: &mut View, area: Rect) {
    let areas = layout::areas(app, area);
    app.narrow = areas.narrow;
    let panes = areas
        .panes
        .iter()
        .map(|&(pane, rect)| {
            let prepared = match pane {
                Pane::Plan => PaneFrame::Plan(plan::prepare(app, rect)),
                Pane::Activity => {
                    PaneFrame::Activity(activity::prepare(app, &mut view.activity, rect))
                }
                Pane::Answer => PaneFrame::Answer(answer::prepare(
                    app,
                    (&mut view.structured, &mut view.charts),
                    rect,
                )),
                Pane::Sources => PaneFrame::Sources(sources::prepare(app, &mut view.sources, rect)),
            };
            (rect, prepared)
        })
        .collect();
    prompt::prepare(app, areas.prompt);
    let popup = popup::prepare(app, area);
    view.frame = Prepared {
        areas,
        panes,
        popup,
    };
}

/// Draw the frame [`prepare`] got ready.
pub fn render(frame: &mut Frame, app: &App, view: &View) {
    let prepared = &view.frame;
    let areas = &prepared.areas;
    frame.render_widget(Block::new().style(app.theme.base()), areas.full);
    if let Some(tabs) = areas.tabs {
        layout::draw_tabs(frame, tabs, app);
    }
    for (rect, pane) in &prepared.panes {
        match pane {
            PaneFrame::Plan(plan) => plan::draw(frame, *rect, app, plan),
            PaneFrame::Activity(rows) => activity::draw(frame, *rect, app, &view.activity, rows),
            PaneFrame::Answer(answer) => answer::draw(frame, *rect, app, answer),
            PaneFrame::Sources(sources) => sources::draw(frame, *rect, app, sources),
        }
    }
    prompt::draw(frame, areas.prompt, app);
    status::draw(frame, areas.status, app);
    popup::draw(frame, app, prepared.popup.as_ref());
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::agent::stream::StreamUpdate;
    use crate::model::stream_end::StreamEnd;
    use crate::tui::state::{AppConfig, Mode};
    use crate::wire::provider::EventPipeline;
    use crate::wire::recording::parse_frames;

    const EARNINGS: &str = "assets/recordings/bigdata/earnings-deep-dive.sse";
    const SECTOR: &str = "assets/recordings/bigdata/sector-comparison.sse";

    fn app() -> App {
        let mut app = App::new(AppConfig {
            mode: Mode::Demo,
            theme: Default::default(),
            can_ask: true,
        });
        app.fixed_elapsed = Some(Duration::from_secs(7));
        app
    }

    /// Feed a recording's first `limit` frames (all, and end the turn, with `None`) into a new turn.
    fn play(app: &mut App, path: &str, limit: Option<usize>) {
        app.begin_turn(Some("Q".into()));
        feed(app, path, 0, limit);
    }

    /// Feed frames `from..limit` of a recording (all from `from` on, and end the turn, with `None`)
    /// into the newest turn.
    fn feed(app: &mut App, path: &str, from: usize, limit: Option<usize>) {
        let frames = parse_frames(&std::fs::read(path).unwrap());
        let mut pipeline = EventPipeline::auto();
        for (i, frame) in frames[..limit.unwrap_or(frames.len())].iter().enumerate() {
            let mut events = Vec::new();
            let _ = pipeline.feed(&frame.bytes, &mut events);
            if i >= from {
                app.apply_update(StreamUpdate::Events(events));
            }
        }
        if limit.is_none() {
            let mut events = Vec::new();
            let _ = pipeline.finish(&mut events);
            app.apply_update(StreamUpdate::Events(events));
            app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
        }
    }

    fn press(app: &mut App, code: KeyCode) {
        if let Some(action) = app.handle_key(KeyEvent::new(code, KeyModifiers::NONE)) {
            app.update(action);
        }
    }

    /// A frame drawn with the `View` kept between frames is the frame a fresh `View` draws.
    fn assert_caches_hold(app: &mut App, view: &mut View, width: u16, height: u16) {
        let mut kept = Terminal::new(TestBackend::new(width, height)).unwrap();
        kept.draw(|frame| view.draw(frame, app)).unwrap();
        let mut fresh = Terminal::new(TestBackend::new(width, height)).unwrap();
        fresh.draw(|frame| draw(frame, app)).unwrap();
        assert_eq!(kept.backend().buffer(), fresh.backend().buffer());
    }

    #[test]
    fn kept_caches_follow_streaming_expanding_resizing_and_a_replaced_conversation() {
        let mut app = app();
        let mut view = View::new();
        play(&mut app, EARNINGS, Some(60));
        assert_caches_hold(&mut app, &mut view, 140, 42);
        play(&mut app, EARNINGS, None);
        assert_caches_hold(&mut app, &mut view, 140, 42);
        // Expand the first activity item, then fold it again.
        for code in [KeyCode::Char('t'), KeyCode::Char('g'), KeyCode::Enter] {
            press(&mut app, code);
        }
        assert_caches_hold(&mut app, &mut view, 140, 42);
        press(&mut app, KeyCode::Enter);
        assert_caches_hold(&mut app, &mut view, 140, 42);
        assert_caches_hold(&mut app, &mut view, 120, 30);
        press(&mut app, KeyCode::Char('g'));
        assert_caches_hold(&mut app, &mut view, 120, 30);
        // A saved session replaces the conversation: same turn indices, other turns.
        let mut other = self::app();
        play(&mut other, SECTOR, None);
        app.load_turns(std::mem::take(&mut other.turns), None);
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('t'));
        press(&mut app, KeyCode::Char('g'));
        assert_caches_hold(&mut app, &mut view, 120, 30);
    }

    #[test]
    fn structured_output_arriving_after_a_frame_replaces_the_kept_rows() {
        let mut app = app();
        let mut view = View::new();
        play(&mut app, EARNINGS, Some(40));
        assert_caches_hold(&mut app, &mut view, 140, 42);
        feed(&mut app, EARNINGS, 40, None);
        assert!(app.turns[0].session.structured_output.is_some());
        press(&mut app, KeyCode::Char('G'));
        assert_caches_hold(&mut app, &mut view, 140, 42);
    }
}
