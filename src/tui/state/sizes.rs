//! How much room each pane gets: widening or narrowing the focused pane (`+`/`-`, remembered between
//! runs through [`Effect::SaveLayout`]; `=` puts them back to the defaults), zooming it to the whole screen (`z`), and whether the Plan
//! pane is shown at all (only once a turn has a plan: some providers never send one).

use super::action::{Effect, Severity};
use super::app::App;
use super::focus::Focus;
use super::keymap::Context;
use crate::local::config::PaneSizes;

/// Percent of the width one `+`/`-` moves a column by.
const STEP_PCT: u16 = 3;
/// Columns one `+`/`-` moves the answer's line length by.
const STEP_COLS: u16 = 10;

impl App {
    /// The Plan pane is shown: some turn has a plan (xAI and Zeta Alpha never send one).
    pub fn shows_plan(&self) -> bool {
        self.turns.iter().any(|t| t.session.plan.is_some())
    }

    /// `+` (`grow`) or `-`: widen or narrow the focused pane (`narrow`: the screen shows one pane at
    /// a time); the new sizes are saved.
    pub fn resize_focused(&mut self, grow: bool, narrow: bool) -> Option<Effect> {
        if narrow {
            let zoom = self
                .keys
                .fill(&[Context::Panes], "({zoom} zooms on wide screens)");
            self.set_message(
                format!("one pane at a time here: it has the whole width {zoom}")
                    .trim_end()
                    .to_owned(),
                Severity::Info,
            );
            return None;
        }
        let step = |value: u16, by: u16| {
            if grow {
                value.saturating_add(by)
            } else {
                value.saturating_sub(by)
            }
        };
        let old = self.pane_sizes;
        let mut sizes = old;
        let what = match self.focus {
            Focus::Plan | Focus::Activity => {
                sizes.left = step(sizes.left, STEP_PCT);
                "the left column"
            }
            Focus::Sources => {
                sizes.sources = step(sizes.sources, STEP_PCT);
                "Sources"
            }
            Focus::Answer | Focus::Prompt | Focus::Timeline => {
                // The answer grows into the Sources column and may take longer lines.
                sizes.answer_max = step(sizes.answer_max, STEP_COLS);
                sizes.sources = if grow {
                    sizes.sources.saturating_sub(STEP_PCT)
                } else {
                    sizes.sources.saturating_add(STEP_PCT)
                };
                "the answer"
            }
        };
        let sizes = sizes.clamped();
        if sizes == old {
            let edge = if grow { "widest" } else { "narrowest" };
            self.set_message(format!("{what} is as {edge} as it gets"), Severity::Info);
            return None;
        }
        self.pane_sizes = sizes;
        let zoom = self.keys.fill(&[Context::Panes], " · {zoom} zooms");
        self.set_message(
            format!(
                "{} {what} (remembered){zoom}",
                if grow { "widened" } else { "narrowed" }
            ),
            Severity::Info,
        );
        Some(Effect::SaveLayout(sizes))
    }

    /// `=`: every pane back to its default size (and remembered so); a zoom ends too.
    pub fn reset_sizes(&mut self, narrow: bool) -> Option<Effect> {
        let zoomed = std::mem::take(&mut self.zoom);
        let defaults = PaneSizes::default();
        if self.pane_sizes == defaults {
            let text = match (zoomed, narrow) {
                (true, _) => "all panes again · their sizes are the defaults",
                (false, true) => "one pane at a time here: it has the whole width",
                (false, false) => "the panes already have their default sizes",
            };
            self.set_message(text, Severity::Info);
            return None;
        }
        self.pane_sizes = defaults;
        self.set_message(
            "pane sizes back to the defaults (remembered)",
            Severity::Info,
        );
        Some(Effect::SaveLayout(defaults))
    }

    /// `z`: the focused pane alone on the screen, or back to all of them.
    pub fn toggle_zoom(&mut self) {
        self.zoom = !self.zoom;
        if self.zoom {
            self.tab = match self.focus {
                Focus::Prompt => self.tab,
                focus => focus,
            };
            self.set_message(
                "zoomed: Tab switches pane, z shows them all again",
                Severity::Info,
            );
        }
    }
}

/// Column widths of the wide layout for `width` columns: the left column (Plan, Activity), the
/// answer and the sources. The answer's text stops at `answer_max` columns (a readable line); the
/// Sources column takes the rest, so it grows on wide screens.
pub fn column_widths(width: u16, sizes: PaneSizes) -> (u16, u16, u16) {
    // A pane's border and padding.
    const FRAME: u16 = 4;
    const MIN_SIDE: u16 = 24;
    const MIN_ANSWER: u16 = 40;
    let share = |pct: u16| (width as u32 * pct as u32 / 100) as u16;
    let left = share(sizes.left).max(MIN_SIDE).min(width / 3);
    let rest = width.saturating_sub(left);
    let mut sources = share(sizes.sources).max(MIN_SIDE + 4);
    let mut answer = rest.saturating_sub(sources);
    let answer_most = sizes.answer_max.saturating_add(FRAME);
    if answer > answer_most {
        answer = answer_most;
    } else if answer < MIN_ANSWER {
        answer = MIN_ANSWER.min(rest.saturating_sub(MIN_SIDE));
    }
    sources = rest.saturating_sub(answer);
    (left, answer, sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_stops_at_a_readable_width_and_sources_take_the_rest() {
        let sizes = PaneSizes::default();
        for width in [100u16, 120, 140, 160, 200, 300] {
            let (left, answer, sources) = column_widths(width, sizes);
            assert_eq!(left + answer + sources, width, "{width}");
            assert!(answer <= sizes.answer_max + 4, "{width}: {answer}");
            assert!(sources >= 28, "{width}: sources {sources}");
            assert!(answer >= 40, "{width}: answer {answer}");
        }
        let (_, answer, sources) = column_widths(300, sizes);
        assert_eq!(answer, 104, "100 columns of text");
        assert!(sources >= 120, "{sources}");
        let (_, answer, sources) = column_widths(200, sizes);
        assert!(answer >= 96 && sources >= 50, "{answer} {sources}");
        let (_, _, narrow_sources) = column_widths(140, sizes);
        assert!(narrow_sources >= 38, "{narrow_sources}");
    }
}
