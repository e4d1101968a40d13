//! `render` writes its document to stdout as it renders it (no second copy of the answer in
//! memory): its output must be, byte for byte, what the String renderer printed before. The
//! digests in `tests/fixtures/render-digests.txt` were taken from that renderer's last build, for
//! every recording in `tests/fixtures` and `assets/recordings`, in every format.

use std::path::Path;

use crate::support;

/// FNV-1a, 64 bits: enough to tell two outputs apart, and written in three lines.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn render_prints_every_recording_in_every_format_exactly_as_before_it_streamed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let digests = std::fs::read_to_string(root.join("tests/fixtures/render-digests.txt")).unwrap();
    let mut checked = 0;
    for line in digests.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.splitn(5, ' ').collect();
        let [format, code, len, digest, file] = fields[..] else {
            panic!("bad line: {line}");
        };
        let output = support::cli(support::scratch())
            .current_dir(root)
            .args(["render", "--format", format, file])
            .output()
            .unwrap();
        let got = format!(
            "{} {} {:016x}",
            output.status.code().unwrap(),
            output.stdout.len(),
            fnv1a(&output.stdout)
        );
        assert_eq!(got, format!("{code} {len} {digest}"), "{format} {file}");
        checked += 1;
    }
    assert_eq!(
        checked, 180,
        "every recording of the build that took the digests"
    );
}
