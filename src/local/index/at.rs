//! `stat`s of names inside the sessions folder, relative to one open handle of it (`fstatat`), so
//! checking 100,000 sessions' freshness walks two path components per file, not the whole path,
//! and allocates no path.

use std::ffi::CStr;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::MetaStamp;

/// The sessions folder, open.
pub(super) struct Folder(File);

/// The longest relative name `stat`ed (session ids and turn file names are far shorter).
const NAME: usize = 512;

impl Folder {
    pub fn open(root: &Path) -> Option<Folder> {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(root)
            .ok()
            .map(Folder)
    }

    /// `stat` of `dir/name` in the folder, following a final link when `follow`.
    fn stat(&self, dir: &str, name: &str, follow: bool) -> Option<libc::stat> {
        let mut path = [0u8; NAME];
        let len = dir.len() + 1 + name.len();
        if len >= NAME || dir.contains('\0') || name.contains('\0') {
            return None;
        }
        path[..dir.len()].copy_from_slice(dir.as_bytes());
        path[dir.len()] = b'/';
        path[dir.len() + 1..len].copy_from_slice(name.as_bytes());
        let path = CStr::from_bytes_until_nul(&path).ok()?;
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        // SAFETY: a zeroed stat is a valid value for fstatat to fill in.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the folder's descriptor is open while `self` lives; `path` is NUL-terminated.
        let done = unsafe { libc::fstatat(self.0.as_raw_fd(), path.as_ptr(), &mut stat, flags) };
        (done == 0).then_some(stat)
    }

    /// The stamp of session `id`'s `meta.json`, if it is a regular file (not followed as a link).
    pub fn meta_stamp(&self, id: &str) -> Option<MetaStamp> {
        let stat = self.stat(id, "meta.json", false)?;
        (stat.st_mode & libc::S_IFMT == libc::S_IFREG).then(|| MetaStamp {
            ino: stat.st_ino,
            size: stat.st_size as u64,
            mtime_ns: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
        })
    }

    /// The size of file `name` of session `id` (a link followed, as `std::fs::metadata` does).
    pub fn size(&self, id: &str, name: &str) -> Option<u64> {
        self.stat(id, name, true).map(|stat| stat.st_size as u64)
    }
}
