//! Where citation markers go in the answer and which raw bytes (provider-written markers) are left out:
//! the input the Markdown renderer and the block cache take besides the text.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// Where citation markers go, and which raw bytes are provider-written markers to leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `(byte position, source numbers)`, sorted by position (see `Attribution::markers`).
    pub markers: Vec<(usize, Vec<usize>)>,
    /// Sorted, disjoint byte ranges not to display (see `Attribution::marker_spans`): the `[n]` at
    /// their end stands in for them.
    pub hidden: Vec<Range<usize>>,
}

impl Annotations {
    pub(super) fn markers_in(&self, range: &Range<usize>) -> &[(usize, Vec<usize>)] {
        &self.markers[markers_in(&self.markers, range)]
    }

    pub(super) fn hidden_in(&self, range: &Range<usize>) -> &[Range<usize>] {
        let lo = self.hidden.partition_point(|h| h.end <= range.start);
        let hi = self.hidden.partition_point(|h| h.start < range.end);
        &self.hidden[lo..hi.max(lo)]
    }

    /// A hash of the markers and hidden ranges inside `range` (a block's: did they change?).
    pub(super) fn signature(&self, range: &Range<usize>) -> u64 {
        let mut h = DefaultHasher::new();
        self.markers_in(range).hash(&mut h);
        self.hidden_in(range).hash(&mut h);
        h.finish()
    }

    /// The first byte position where `self` and `other` differ.
    pub(super) fn first_difference(&self, other: &Annotations) -> Option<usize> {
        let m = first_diff(&self.markers, &other.markers, |(p, _)| *p);
        let h = first_diff(&self.hidden, &other.hidden, |r| r.start);
        [m, h].into_iter().flatten().min()
    }
}

fn first_diff<T: PartialEq>(a: &[T], b: &[T], pos: impl Fn(&T) -> usize) -> Option<usize> {
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    [a.get(i), b.get(i)].into_iter().flatten().map(pos).min()
}

fn markers_in(markers: &[(usize, Vec<usize>)], range: &Range<usize>) -> Range<usize> {
    // A marker belongs to the block whose range holds it: start < p <= end (p = 0 goes to the first).
    let lo = if range.start == 0 {
        0
    } else {
        markers.partition_point(|(p, _)| *p <= range.start)
    };
    let hi = markers.partition_point(|(p, _)| *p <= range.end);
    lo..hi.max(lo)
}
