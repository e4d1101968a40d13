//! A tiny non-cryptographic random source for ids and retry jitter: a per-process random hasher
//! (std's `RandomState` is seeded from the OS) over the clock and a counter. Never use it for secrets.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// 64 random-looking bits; successive calls differ even within the same clock tick.
pub(crate) fn next_u64() -> u64 {
    static STATE: OnceLock<RandomState> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    STATE.get_or_init(RandomState::new).hash_one((count, nanos))
}

/// `prefix-` followed by 16 lowercase hex digits, e.g. `chat-3f9a0c1d2e4b5a67`.
pub(crate) fn id(prefix: &str) -> String {
    format!("{prefix}-{:016x}", next_u64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_prefix_sixteen_hex_digits_and_differ() {
        let a = id("ckpt");
        let b = id("ckpt");
        assert_ne!(a, b);
        let hex = a.strip_prefix("ckpt-").unwrap();
        assert_eq!(hex.len(), 16);
        assert!(
            hex.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }
}
