//! `ask` on a terminal: the plan and the tool the agent is using on one live line of stderr,
//! replaced as the research moves on and cleared before the result, so the answer reads without
//! progress lines between its paragraphs. Tool errors and the agent's retries stay, as lines above.

use std::io::Write;

use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use crate::model::event::{AgentEvent, Plan, StepStatus};
use crate::render::sanitize::sanitize_line;

/// Erase the cursor's line and go to its start.
const ERASE_LINE: &str = "\r\x1b[2K";

/// The live line: what it says, and whether it is on the screen now.
#[derive(Default)]
pub(super) struct ProgressLine {
    plan: Option<String>,
    activity: Option<String>,
    shown: bool,
}

impl ProgressLine {
    /// Take in `events`: the line changes with the plan and each tool call; a tool error or a
    /// retry is printed above it as a line of its own.
    pub(super) fn update(&mut self, events: &[AgentEvent]) {
        let before = (self.plan.clone(), self.activity.clone());
        for event in events {
            match event {
                AgentEvent::Plan(plan) => self.plan = Some(plan_text(plan)),
                AgentEvent::ToolCall {
                    tool_name,
                    arguments,
                    ..
                } => self.activity = Some(tool_text(tool_name, arguments)),
                AgentEvent::ToolError { tool_name, error } => self.print_above(&format!(
                    "[tool error] {}: {}",
                    sanitize_line(tool_name),
                    sanitize_line(error)
                )),
                AgentEvent::LlmRetry { message } => {
                    self.print_above(&format!("[retry] {}", sanitize_line(message)));
                }
                _ => {}
            }
        }
        if (self.plan.clone(), self.activity.clone()) != before {
            self.show();
        }
    }

    /// Take the line off the screen (before other output, or for good at the end).
    pub(super) fn hide(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{ERASE_LINE}");
            let _ = err.flush();
            self.shown = false;
        }
    }

    /// Put the line (back) on the screen, if it has anything to say.
    pub(super) fn show(&mut self) {
        let text = match (&self.plan, &self.activity) {
            (Some(plan), Some(activity)) => format!("{plan} · {activity}"),
            (Some(one), None) | (None, Some(one)) => one.clone(),
            (None, None) => return,
        };
        let width = crossterm::terminal::size().map_or(80, |(w, _)| usize::from(w));
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{ERASE_LINE}{}", fit(&text, width.saturating_sub(1)));
        let _ = err.flush();
        self.shown = true;
    }

    fn print_above(&mut self, line: &str) {
        let was_shown = self.shown;
        self.hide();
        eprintln!("{line}");
        if was_shown {
            self.show();
        }
    }
}

/// "[plan 2/5] Retrieve reported results": how far the plan is and the step under way (else the
/// next one to start, so the line never reads as a bare count).
fn plan_text(plan: &Plan) -> String {
    let done = plan.steps.iter().filter(|s| s.status.is_settled()).count();
    let step = plan
        .steps
        .iter()
        .find(|s| s.status == StepStatus::InProgress)
        .or_else(|| plan.steps.iter().find(|s| !s.status.is_settled()));
    match step {
        Some(step) => format!(
            "[plan {done}/{}] {}",
            plan.steps.len(),
            sanitize_line(&step.description)
        ),
        None => format!("[plan {done}/{}] steps done", plan.steps.len()),
    }
}

/// "⚙ search “NVIDIA first quarter”": the tool and its query, when it has one.
fn tool_text(tool_name: &str, arguments: &Value) -> String {
    let query = arguments
        .get("query")
        .and_then(Value::as_str)
        .map(|q| format!(" “{}”", sanitize_line(q)))
        .unwrap_or_default();
    format!("⚙ {}{query}", sanitize_line(tool_name))
}

/// `text` in at most `width` columns, `…` where cut.
fn fit(text: &str, width: usize) -> String {
    if unicode_width::UnicodeWidthStr::width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            out.push('…');
            return out;
        }
        used += w;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::PlanStep;

    fn step(description: &str, status: StepStatus) -> PlanStep {
        PlanStep {
            description: description.into(),
            status,
        }
    }

    #[test]
    fn a_plan_not_started_names_its_first_step_not_a_bare_count() {
        let plan = Plan {
            steps: vec![
                step("Confirm the quarter", StepStatus::NotStarted),
                step("Retrieve results", StepStatus::NotStarted),
            ],
            title: None,
        };
        assert_eq!(plan_text(&plan), "[plan 0/2] Confirm the quarter");
    }

    #[test]
    fn a_plan_under_way_names_the_step_in_progress() {
        let plan = Plan {
            steps: vec![
                step("Confirm the quarter", StepStatus::Completed),
                step("Retrieve results", StepStatus::InProgress),
                step("Review guidance", StepStatus::NotStarted),
            ],
            title: None,
        };
        assert_eq!(plan_text(&plan), "[plan 1/3] Retrieve results");
    }

    #[test]
    fn the_line_fits_the_terminal_cut_with_an_ellipsis() {
        assert_eq!(fit("short", 10), "short");
        assert_eq!(fit("exactly8", 8), "exactly8");
        assert_eq!(fit("a longer line", 8), "a longe…");
        assert_eq!(fit("数据中心收入", 7), "数据中…");
    }
}
