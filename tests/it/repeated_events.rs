//! Events a resumed OpenAI stream sends again (a `sequence_number` already decoded) are dropped
//! and said everywhere the stream is shown: `render --format json`'s stats, `--format text`'s
//! trailer and the app's Activity title. The stream is a real Azure OpenAI recording with six of
//! its events sent again, as a stream resumed from an earlier `starting_after` would.

use serde_json::Value;

use crate::support;

const RECORDING: &str = "tests/fixtures/real/azure-web-search.sse";

/// The recording with its events 25 to 30 sent again after 30, in a file.
fn resumed_stream() -> tempfile::NamedTempFile {
    let bytes = std::fs::read_to_string(RECORDING).unwrap();
    let frames: Vec<&str> = bytes
        .split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .collect();
    let mut resumed: Vec<&str> = frames[..=30].to_vec();
    resumed.extend(&frames[25..=30]);
    resumed.extend(&frames[31..]);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), resumed.join("\n\n") + "\n\n").unwrap();
    file
}

/// The answer the recording's expectations (computed apart from our code) give.
fn expected_answer() -> String {
    let expected = std::fs::read_to_string(RECORDING.replace(".sse", ".expected.json")).unwrap();
    let expected: Value = serde_json::from_str(&expected).unwrap();
    expected["answer"].as_str().unwrap().to_owned()
}

fn render(path: &std::path::Path, format: &str) -> String {
    let output = support::cli(support::scratch())
        .args(["render", path.to_str().unwrap(), "--format", format])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn repeated_events_are_dropped_with_the_answer_intact_and_counted_in_json_and_text() {
    let stream = resumed_stream();
    let doc: Value = serde_json::from_str(&render(stream.path(), "json")).unwrap();
    assert_eq!(doc["answer"].as_str().unwrap(), expected_answer());
    assert_eq!(doc["stats"]["repeated"], 6);
    let text = render(stream.path(), "text");
    assert!(
        text.contains("\nDropped: 6 repeated events (a resumed stream sent them again)\n"),
        "{text}"
    );
    // The untouched recording has nothing to say about it.
    let plain = render(std::path::Path::new(RECORDING), "text");
    assert!(!plain.contains("Dropped:"), "{plain}");
}

#[test]
fn the_apps_activity_title_says_how_many_repeated_events_were_dropped() {
    let stream = resumed_stream();
    let mut app = support::app();
    support::play(&mut app, stream.path().to_str().unwrap(), Some("Q"), None);
    let terminal = support::draw(&mut app, 140, 42);
    let buffer = terminal.backend().buffer();
    let screen: String = (0..buffer.area.height)
        .map(|y| {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            row + "\n"
        })
        .collect();
    assert!(
        screen.contains("Activity 2 · 6 repeats dropped"),
        "{screen}"
    );
}
