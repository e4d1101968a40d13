//! One pass over a JSON string's bytes for the skim ([`super::Scanner::string_counted`]): where
//! the run of plain bytes ends (at a quote, a backslash or a control character) and how many of
//! its bytes continue a character. Three passes did this before (finding the quote or backslash,
//! then the control characters and the continuation bytes), a tenth of the recording proxy's CPU
//! on a flood; on x86-64 the pass reads 16 bytes at a time with SSE2 (part of every x86-64 CPU),
//! elsewhere memchr and one vectorised pass ([`run_portable`]). Both held equal to the byte-at-a-time
//! [`run_plain`] by the tests below.

/// Where `bytes` stop being a string's plain text — the offset of the first `"`, `\` or control
/// character (none: `None`) — and how many bytes before it continue a UTF-8 character.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) fn run(bytes: &[u8]) -> (Option<usize>, usize) {
    // SAFETY: the function needs only SSE2, which this build targets (the `cfg` above), so the CPU
    // it runs on has it. It reads `bytes` through safe slices only.
    unsafe { run_sse2(bytes) }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) fn run(bytes: &[u8]) -> (Option<usize>, usize) {
    run_portable(bytes)
}

/// Whether a string's byte ends its plain run.
fn stops(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// Whether a byte continues a UTF-8 character (`0b10xx_xxxx`).
fn continues(b: u8) -> bool {
    (b as i8) < -0x40
}

/// [`run`], a byte at a time (the plain reading the fast one is held to).
pub(super) fn run_plain(bytes: &[u8]) -> (Option<usize>, usize) {
    let end = bytes.iter().position(|&b| stops(b));
    let run = &bytes[..end.unwrap_or(bytes.len())];
    (end, run.iter().filter(|&&b| continues(b)).count())
}

/// [`run`] without SSE2, as the skim read strings before: memchr finds the quote or backslash (it
/// has its own SIMD on most machines), then one pass over the run looks for control characters
/// and counts continuation bytes, in blocks whose counts fit a byte so the compiler vectorises it.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn run_portable(bytes: &[u8]) -> (Option<usize>, usize) {
    let end = memchr::memchr2(b'"', b'\\', bytes);
    let run = &bytes[..end.unwrap_or(bytes.len())];
    let (mut control, mut continuing) = (0u8, 0usize);
    for block in run.chunks(255) {
        let mut count = 0u8;
        for &b in block {
            control |= u8::from(b < 0x20);
            count += u8::from(continues(b));
        }
        continuing += usize::from(count);
    }
    match control {
        0 => (end, continuing),
        // A control character comes first (rare: the skim then leaves the payload to serde).
        _ => run_plain(run),
    }
}

/// [`run`] 16 bytes at a time: each block is compared with `"`, `\` and the control range at once,
/// and its continuation bytes are counted in byte lanes (summed every 255 blocks, before a lane
/// can overflow). The block with a stop in it is finished from its masks.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn run_sse2(bytes: &[u8]) -> (Option<usize>, usize) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_cvtsi64_si128, _mm_cvtsi128_si64,
        _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_sad_epu8, _mm_set1_epi8,
        _mm_setzero_si128, _mm_sub_epi8, _mm_unpackhi_epi64, _mm_unpacklo_epi64,
    };
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let last_control = _mm_set1_epi8(0x1f);
    let first_non_continuing = _mm_set1_epi8(-0x40);
    let zero = _mm_setzero_si128();
    // The lanes' counts, summed.
    let sum = |lanes: __m128i| {
        let halves = _mm_sad_epu8(lanes, zero);
        let high = _mm_unpackhi_epi64(halves, halves);
        (_mm_cvtsi128_si64(halves) + _mm_cvtsi128_si64(high)) as usize
    };
    let (mut continuing, mut lanes, mut counted) = (0, zero, 0u8);
    let mut blocks = bytes.chunks_exact(16);
    let mut at = 0;
    for block in &mut blocks {
        // Two 8-byte loads (safe), joined into one register.
        let low = i64::from_le_bytes(block[..8].try_into().unwrap_or_default());
        let high = i64::from_le_bytes(block[8..].try_into().unwrap_or_default());
        let v = _mm_unpacklo_epi64(_mm_cvtsi64_si128(low), _mm_cvtsi64_si128(high));
        let stop = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
            // `min(v, 0x1f) == v` exactly when v ≤ 0x1f (unsigned).
            _mm_cmpeq_epi8(_mm_min_epu8(v, last_control), v),
        );
        let continuing_here = _mm_cmplt_epi8(v, first_non_continuing);
        let stops = _mm_movemask_epi8(stop) as u32;
        if stops != 0 {
            let first = stops.trailing_zeros();
            let before = _mm_movemask_epi8(continuing_here) as u32 & ((1 << first) - 1);
            let total = continuing + sum(lanes) + before.count_ones() as usize;
            return (Some(at + first as usize), total);
        }
        // A matching lane is all ones (-1): subtracting it adds one.
        lanes = _mm_sub_epi8(lanes, continuing_here);
        counted += 1;
        if counted == u8::MAX {
            continuing += sum(lanes);
            (lanes, counted) = (zero, 0);
        }
        at += 16;
    }
    let (end, rest) = run_plain(blocks.remainder());
    (end.map(|end| at + end), continuing + sum(lanes) + rest)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Bytes where every kind the pass tells apart is common: plain ASCII, the stops, control
    /// characters, UTF-8 lead and continuation bytes, and the bytes at each range's edge.
    fn byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            4 => b'a'..=b'z',
            1 => prop::sample::select(vec![b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f]),
            2 => 0x80u8..=0xbf,
            2 => 0xc0u8..=0xff,
            1 => any::<u8>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Runs of every length around the 16-byte blocks, stop or no stop, at every place.
        #[test]
        fn the_fast_pass_finds_the_same_stop_and_count_as_the_plain_one(
            bytes in prop::collection::vec(byte(), 0..80),
        ) {
            prop_assert_eq!(run(&bytes), run_plain(&bytes));
            prop_assert_eq!(run_portable(&bytes), run_plain(&bytes));
        }

        /// Long plain runs of continuation-heavy text (past 255 blocks, where the lanes are summed)
        /// with at most one stop somewhere in them.
        #[test]
        fn long_runs_count_every_continuation_byte(
            len in 0usize..9000,
            stop in prop::option::of((0usize..9000, prop::sample::select(vec![b'"', b'\\', 0x0a]))),
            seed in any::<u64>(),
        ) {
            let mut bytes: Vec<u8> = "Müller 東京 📈 €2.1bn ".bytes().cycle().skip((seed % 23) as usize).take(len).collect();
            if let Some((at, b)) = stop && at < len {
                bytes[at] = b;
            }
            prop_assert_eq!(run(&bytes), run_plain(&bytes));
            prop_assert_eq!(run_portable(&bytes), run_plain(&bytes));
        }
    }

    #[test]
    fn a_run_of_all_continuation_bytes_past_the_lanes_limit_is_counted_whole() {
        // 255 blocks fill a lane to 255: one more would overflow it.
        for len in [16 * 255 - 1, 16 * 255, 16 * 255 + 1, 16 * 256, 16 * 600 + 7] {
            let bytes = vec![0x80; len];
            assert_eq!(run(&bytes), (None, len), "{len}");
        }
    }
}
