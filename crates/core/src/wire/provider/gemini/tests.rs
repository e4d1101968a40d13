//! Gemini's dialect on hand-made events of both wires (the real recordings are in the crate's
//! integration tests, under tests/fixtures/real/).
