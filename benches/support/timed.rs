//! What GNU time (`/usr/bin/time -f TIME_FORMAT -o FILE`) reports for one run of the binary.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

/// What GNU time reported for one run.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    pub peak_rss: u64,
    pub cpu: Duration,
    pub wall: Duration,
}

pub const TIME_FORMAT: &str = "%M %U %S %e";

pub fn parse_usage(path: &Path) -> Option<Usage> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let fields: Vec<f64> = line
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let [kb, user, sys, wall] = fields[..] else {
        return None;
    };
    Some(Usage {
        peak_rss: kb as u64 * 1024,
        cpu: Duration::from_secs_f64(user + sys),
        wall: Duration::from_secs_f64(wall),
    })
}
