//! What of the answer the person sees, for the keys that act on "the one on screen": the chart
//! Enter opens and the structured output `J` shows and Enter unfolds, found in a laid-out frame's
//! parts and its window.

use super::layout::Part;

/// The turn whose structured output the person sees: the selected turn's when its rows are in the
/// window, else the one nearest the window's top; with none in view, the turn the top row belongs
/// to when it has one (someone reading its answer). `None`: the selected turn's is meant.
pub(super) fn structured_in_view(
    parts: &[(usize, Part, usize)],
    top: usize,
    height: usize,
    selected: usize,
) -> Option<usize> {
    let mut offset = 0;
    let mut in_view = Vec::new();
    let mut at_top = None;
    for (turn, part, h) in parts {
        let (start, end) = (offset, offset + h);
        offset = end;
        if (start..end).contains(&top) {
            at_top = Some(*turn);
        }
        if let Part::Structured(_) = part
            && end > top
            && start < top + height
        {
            in_view.push(*turn);
        }
    }
    if in_view.contains(&selected) {
        return Some(selected);
    }
    in_view.first().copied().or_else(|| {
        let turn = at_top?;
        let has_one = parts
            .iter()
            .any(|(t, part, _)| *t == turn && matches!(part, Part::Structured(_)));
        has_one.then_some(turn)
    })
}

/// The chart Enter opens: the first one whose rows are in the window.
pub(super) fn chart_in_view(
    parts: &[(usize, Part, usize)],
    top: usize,
    height: usize,
) -> Option<(usize, usize)> {
    let mut offset = 0;
    for (turn, part, h) in parts {
        let (start, end) = (offset, offset + h);
        offset = end;
        if let Part::Chart(chart, _) = part
            && end > top
            && start < top + height
        {
            return Some((*turn, *chart));
        }
    }
    None
}
