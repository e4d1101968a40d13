//! The UTC timestamps research-tui writes and reads back: RFC 3339 in saved sessions and the log,
//! a compact sortable stamp in file and directory names.

use std::time::SystemTime;

use jiff::Timestamp;

/// `time` to whole seconds; a clock before 1970 counts as 1970.
fn utc(time: SystemTime) -> Timestamp {
    Timestamp::try_from(time).map_or(Timestamp::UNIX_EPOCH, |t| t.max(Timestamp::UNIX_EPOCH))
}

/// `2026-11-23T02:06:15Z`.
pub fn rfc3339(time: SystemTime) -> String {
    utc(time).strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `20261123-020615`, sortable and safe in file names.
pub fn compact_stamp(time: SystemTime) -> String {
    utc(time).strftime("%Y%m%d-%H%M%S").to_string()
}

/// `2026-11-23T02:06:15Z` (as [`rfc3339`] writes it) → whole seconds since 1970.
pub fn unix_seconds(stamp: &str) -> Option<u64> {
    let time: Timestamp = stamp.parse().ok()?;
    u64::try_from(time.as_second()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        let t = at(1_795_399_575);
        assert_eq!(rfc3339(t), "2026-11-23T02:06:15Z");
        assert_eq!(compact_stamp(t), "20261123-020615");
        assert_eq!(rfc3339(at(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(compact_stamp(at(0)), "19700101-000000");
        assert_eq!(compact_stamp(at(1_779_900_000)), "20260527-164000");
        assert_eq!(compact_stamp(at(951_782_400)), "20000229-000000");
    }

    #[test]
    fn fractions_are_dropped_and_times_before_1970_are_1970() {
        let t = at(1_795_399_575) + Duration::from_millis(999);
        assert_eq!(rfc3339(t), "2026-11-23T02:06:15Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_secs(5)),
            "1970-01-01T00:00:00Z"
        );
    }

    #[test]
    fn saved_timestamps_read_back_as_seconds() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_seconds("2026-11-23T02:06:15Z"), Some(1_795_399_575));
        assert_eq!(unix_seconds("2000-02-29T00:00:00Z"), Some(951_782_400));
        assert_eq!(
            unix_seconds(&rfc3339(at(1_779_900_000))),
            Some(1_779_900_000)
        );
        assert_eq!(unix_seconds("1969-12-31T23:59:59Z"), None);
        assert_eq!(unix_seconds("yesterday"), None);
    }
}
