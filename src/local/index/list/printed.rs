//! The listing as `sessions` prints it: each fresh line of the list made into its printed bytes
//! on the threads that read the list, into one buffer per share of a block (no allocation, no
//! map entry per row), the sessions without a fresh line read from their `meta.json`, and all of
//! them put in order, newest first, by index.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use super::super::{MAX_INDEX_BYTES, MetaStamp, NewLines, for_each_block, scan, threads};
use super::{Listed, Row, newest_order, path, read_raw};
use crate::local::search::in_shares;
use crate::local::session_files::open_regular;

/// Rows made by one share of a block of lines (or from the raw files): each row's time and
/// printed bytes, one after the other in `bytes`.
#[derive(Default)]
struct Share {
    bytes: Vec<u8>,
    rows: Vec<Made>,
}

/// A row made: of which session (its place in the scan), from which line (offset and length;
/// none for a session read raw), and where its time and printed bytes end in its share's bytes
/// (the time starts where the share's row before it ends).
struct Made {
    session: u32,
    offset: u64,
    len: usize,
    start: usize,
    time_end: usize,
    end: usize,
}

impl Share {
    fn push(
        &mut self,
        session: u32,
        at: (u64, usize),
        row: &Row,
        print: &impl Fn(&Row, &mut Vec<u8>),
    ) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(row.updated_at.as_bytes());
        let time_end = self.bytes.len();
        print(row, &mut self.bytes);
        self.rows.push(Made {
            session,
            offset: at.0,
            len: at.1,
            start,
            time_end,
            end: self.bytes.len(),
        });
    }
}

/// Every session's printed row, newest first.
pub struct Printed {
    shares: Vec<Share>,
    /// Share and row within it, in printing order.
    order: Vec<(u32, u32)>,
}

impl Printed {
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The rows as printed, in order.
    pub fn rows(&self) -> impl Iterator<Item = &[u8]> {
        self.order.iter().map(|&(share, nth)| {
            let share = &self.shares[share as usize];
            let made = &share.rows[nth as usize];
            &share.bytes[made.time_end..made.end]
        })
    }
}

/// Every session of `root` as `print` writes its row (with its meta as JSON when `json`), newest
/// first by time and id (as [`crate::local::meta::newest_first`] orders metas): from the list's
/// fresh lines, and from `meta.json` for sessions it has none for (those recorded on the way).
pub fn printed(root: &Path, json: bool, print: impl Fn(&Row, &mut Vec<u8>) + Sync) -> Printed {
    let disk = scan(root);
    let sessions: Vec<(&str, MetaStamp)> = disk.iter().map(|(id, s)| (id.as_str(), *s)).collect();
    let by_id: HashMap<&str, u32> = (sessions.iter().enumerate())
        .map(|(i, (id, _))| (*id, i as u32))
        .collect();
    let mut shares: Vec<Share> = Vec::new();
    // Per session, its last fresh line's row (share, row): the last line of a session wins.
    let mut taken: Vec<Option<(u32, u32)>> = vec![None; sessions.len()];
    let (mut lines, mut too_large) = (0, false);
    let list = path(root);
    match open_regular(&list, MAX_INDEX_BYTES) {
        Ok(mut file) => {
            let threads = threads();
            let _ = for_each_block(&mut file, |block| {
                lines += block.len();
                let share = block.len().div_ceil(threads).max(64);
                let made = in_shares(block, share, |block| {
                    vec![rows_of(block, &sessions, &by_id, json, &print)]
                });
                for share in made {
                    let at = shares.len() as u32;
                    for (nth, made) in share.rows.iter().enumerate() {
                        taken[made.session as usize] = Some((at, nth as u32));
                    }
                    shares.push(share);
                }
            });
        }
        Err(e) => {
            too_large = e.kind() == io::ErrorKind::InvalidData
                && std::fs::symlink_metadata(&list).is_ok_and(|m| m.is_file());
        }
    }
    let fresh = taken.iter().flatten().count();
    let mut new_lines = NewLines::after_lines(&list, lines, fresh, too_large, || {
        (taken.iter().flatten())
            .map(|&(share, nth)| {
                let made = &shares[share as usize].rows[nth as usize];
                (made.offset, made.len)
            })
            .collect()
    });
    let mut raw = Share::default();
    for (session, (id, stamp)) in sessions.iter().enumerate() {
        if taken[session].is_some() {
            continue;
        }
        if let Some((meta, line)) = read_raw(root, id, *stamp) {
            new_lines.push(line);
            raw.push(session as u32, (0, 0), &Row::of(&meta, json), &print);
        }
    }
    new_lines.finish();
    let at = shares.len() as u32;
    for (nth, made) in raw.rows.iter().enumerate() {
        taken[made.session as usize] = Some((at, nth as u32));
    }
    shares.push(raw);
    let rows: Vec<(u32, u32)> = taken.into_iter().flatten().collect();
    let row = |i: usize| &shares[rows[i].0 as usize].rows[rows[i].1 as usize];
    let order = newest_order(
        rows.len(),
        |i| {
            let made = row(i);
            &shares[rows[i].0 as usize].bytes[made.start..made.time_end]
        },
        |i| sessions[row(i).session as usize].0.as_bytes(),
    );
    let order = order.into_iter().map(|i| rows[i]).collect();
    Printed { shares, order }
}

/// The rows made of the fresh lines of `block` (each with its offset): a line is fresh while its
/// session is on disk with the stamp the line records.
fn rows_of(
    block: &[(u64, &[u8])],
    sessions: &[(&str, MetaStamp)],
    by_id: &HashMap<&str, u32>,
    json: bool,
    print: &impl Fn(&Row, &mut Vec<u8>),
) -> Share {
    let bytes: usize = block.iter().map(|(_, line)| line.len()).sum();
    let mut share = Share {
        bytes: Vec::with_capacity(if json { bytes } else { bytes / 3 }),
        rows: Vec::with_capacity(block.len()),
    };
    for (offset, line) in block {
        let Some(listed) = Listed::parse(line) else {
            continue;
        };
        let Some(&session) = by_id.get(listed.id) else {
            continue;
        };
        if sessions[session as usize].1 != listed.stamp {
            continue;
        }
        if let Some(row) = Row::of_listed(&listed, json) {
            share.push(session, (*offset, line.len()), &row, print);
        }
    }
    share
}
