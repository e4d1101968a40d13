//! A document holding several answers — the app's export of a conversation, `ask --provider a,b
//! --format markdown` — defines each footnote once, and every answer's footnote markers lead to
//! the definitions written under that answer. A Markdown renderer takes a label's first
//! definition, so a second answer reusing `[^1]` would link its citations to the first answer's
//! sources. Read with `pulldown-cmark`, as a renderer reads it.

use std::collections::BTreeMap;
use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag};

use crate::compare_ask::ask;
use crate::support;

/// Where each answer's `##` section begins (a heading named in `answers`: an answer may hold `##`
/// headings of its own), each footnote definition (label → byte offset) and each footnote
/// reference (label, byte offset), as a renderer parses `markdown`.
struct Parsed {
    sections: Vec<usize>,
    definitions: BTreeMap<String, Vec<usize>>,
    references: Vec<(String, usize)>,
}

fn parse(markdown: &str, answers: &[&str]) -> Parsed {
    let mut parsed = Parsed {
        sections: Vec::new(),
        definitions: BTreeMap::new(),
        references: Vec::new(),
    };
    let parser = Parser::new_ext(markdown, Options::ENABLE_FOOTNOTES).into_offset_iter();
    let mut heading = None;
    for (event, Range { start, .. }) in parser {
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => heading = Some(start),
            Event::Text(text) if heading.is_some() && answers.contains(&text.as_ref()) => {
                parsed.sections.extend(heading.take())
            }
            Event::End(_) => heading = None,
            Event::Start(Tag::FootnoteDefinition(label)) => parsed
                .definitions
                .entry(label.to_string())
                .or_default()
                .push(start),
            Event::FootnoteReference(label) => parsed.references.push((label.to_string(), start)),
            _ => {}
        }
    }
    parsed
}

/// The `##` section holding byte `at`.
fn section_of(sections: &[usize], at: usize) -> usize {
    sections.partition_point(|&start| start <= at)
}

/// Every label defined once, every reference defined, in its own section; how many references
/// each section holds.
fn assert_each_answers_footnotes_are_its_own(markdown: &str, answers: &[&str]) -> Vec<usize> {
    let parsed = parse(markdown, answers);
    assert_eq!(parsed.sections.len(), answers.len(), "{markdown}");
    for (label, at) in &parsed.definitions {
        assert_eq!(
            at.len(),
            1,
            "[^{label}] defined {} times:\n{markdown}",
            at.len()
        );
    }
    let mut per_section = vec![0; parsed.sections.len() + 1];
    for (label, at) in &parsed.references {
        let defined = parsed
            .definitions
            .get(label)
            .unwrap_or_else(|| panic!("[^{label}] is not defined:\n{markdown}"))[0];
        let section = section_of(&parsed.sections, *at);
        assert_eq!(
            section,
            section_of(&parsed.sections, defined),
            "[^{label}] at byte {at} is defined under another answer:\n{markdown}"
        );
        per_section[section] += 1;
    }
    per_section
}

#[test]
fn an_exported_two_turn_conversation_links_each_turns_citations_to_its_own_sources() {
    let mut app = support::app();
    support::play(
        &mut app,
        support::EARNINGS,
        Some(support::DEMO_QUESTION),
        None,
    );
    support::play(
        &mut app,
        support::FOLLOW_UP,
        Some("What about gaming?"),
        None,
    );
    let export = research_tui::tui::export::conversation_markdown(&app.turns, &Default::default());
    let questions = [support::DEMO_QUESTION, "What about gaming?"];
    let per_turn = assert_each_answers_footnotes_are_its_own(&export, &questions);
    // Before the first `##` is the title; then one section a turn, both citing.
    assert_eq!(per_turn.len(), 3, "{export}");
    assert!(per_turn[1] > 0 && per_turn[2] > 0, "{per_turn:?}\n{export}");
    // The first turn keeps the plain numbers an export of one turn has.
    assert!(export.contains("[^1]: "), "{export}");
}

#[test]
fn ask_comparing_agents_in_markdown_links_each_agents_citations_to_its_own_sources() {
    let home = tempfile::tempdir().unwrap();
    let output = ask(home.path(), &["--demo", "--format", "markdown"]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let agents = ["bigdata", "openai", "perplexity", "Sources compared"];
    let per_agent = assert_each_answers_footnotes_are_its_own(&text, &agents);
    // Three agents, then the overlap tables' section; every agent cites.
    assert_eq!(per_agent.len(), 5, "{text}");
    assert!(
        per_agent[1..4].iter().all(|&n| n > 0),
        "{per_agent:?}\n{text}"
    );
}
