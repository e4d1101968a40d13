//! A pane's scroll position ([`Scroll`]): the first row shown, or following the bottom as rows arrive.

/// Scroll position of a pane that can follow its bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scroll {
    /// First row shown (when not following).
    pub top: usize,
    pub follow: bool,
    /// From the last frame: rows in total and rows visible.
    pub total: usize,
    pub viewport: usize,
}

impl Default for Scroll {
    fn default() -> Self {
        Scroll {
            top: 0,
            follow: true,
            total: 0,
            viewport: 0,
        }
    }
}

impl Scroll {
    pub fn max_top(&self) -> usize {
        self.total.saturating_sub(self.viewport)
    }

    /// The first row to draw, given this frame's total and viewport.
    pub fn resolve(&mut self, total: usize, viewport: usize) -> usize {
        self.total = total;
        self.viewport = viewport;
        if self.follow {
            self.top = self.max_top();
        } else {
            self.top = self.top.min(self.max_top());
        }
        self.top
    }

    pub fn by(&mut self, delta: isize) {
        let top = self.top.saturating_add_signed(delta).min(self.max_top());
        self.top = top;
        self.follow = top >= self.max_top();
    }

    pub fn to_top(&mut self) {
        self.top = 0;
        self.follow = false;
    }

    pub fn to_bottom(&mut self) {
        self.top = self.max_top();
        self.follow = true;
    }
}
