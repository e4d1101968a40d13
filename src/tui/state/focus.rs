//! Which pane has the keyboard ([`Focus`]) and the order Tab cycles through them.

/// Panes that can have the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Focus {
    Plan,
    Activity,
    Answer,
    Sources,
    Prompt,
    /// The Timeline tab of the narrow layout (wide, the timeline is the `T` popup).
    Timeline,
}

impl Focus {
    pub const CYCLE: [Focus; 5] = [
        Focus::Plan,
        Focus::Activity,
        Focus::Answer,
        Focus::Sources,
        Focus::Prompt,
    ];

    /// The narrow layout's order: its tabs, then the prompt.
    pub const NARROW_CYCLE: [Focus; 6] = [
        Focus::Answer,
        Focus::Plan,
        Focus::Activity,
        Focus::Sources,
        Focus::Timeline,
        Focus::Prompt,
    ];

    /// The next (or previous) focus in the layout's order; the Plan left out when it is not shown.
    pub fn step(self, forward: bool, narrow: bool, plan: bool) -> Focus {
        let cycle: Vec<Focus> = if narrow {
            Focus::NARROW_CYCLE.to_vec()
        } else {
            Focus::CYCLE.to_vec()
        }
        .into_iter()
        .filter(|f| plan || *f != Focus::Plan)
        .collect();
        let i = cycle.iter().position(|f| *f == self).unwrap_or(0);
        let n = cycle.len();
        cycle[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    pub fn title(self) -> &'static str {
        match self {
            Focus::Plan => "Plan",
            Focus::Activity => "Activity",
            Focus::Answer => "Answer",
            Focus::Sources => "Sources",
            Focus::Prompt => "Prompt",
            Focus::Timeline => "Timeline",
        }
    }
}
