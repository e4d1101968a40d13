//! Deleting saved sessions (`research-tui sessions --delete ID…`): a session's folder goes whole,
//! never through a link, and never while a live process still writes one of its turns.

use super::SessionStore;
use crate::render::sanitize::sanitize_line;

impl SessionStore {
    /// Delete the saved session `id` (a whole id); the line that says why not when it is not.
    pub fn delete(&self, id: &str) -> Result<(), String> {
        let dir = self.root().join(id);
        let shown = sanitize_line(id);
        // The folder itself, not a link to one elsewhere (whose files are not ours to delete).
        if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            return Err(format!("{shown} is not a session folder: not deleted"));
        }
        let saved = self
            .load(id)
            .map_err(|e| format!("cannot read session {shown}: {e}"))?;
        if let Some(at) = saved.meta.turns.iter().position(|t| saved.writer_alive(t)) {
            return Err(format!(
                "session {shown} is still being written (turn {}) by another process: not deleted",
                at + 1
            ));
        }
        std::fs::remove_dir_all(&dir).map_err(|e| format!("cannot delete session {shown}: {e}"))
    }
}
