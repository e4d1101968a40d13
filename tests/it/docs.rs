//! The documentation as a reader meets it: the README stays short, every topic it moved out has its
//! file under docs/ and a link from the README, and every relative link in the README,
//! ARCHITECTURE.md, CHANGELOG.md and docs/*.md leads to a file that exists and, when it names a
//! heading (`#anchor`), to that heading as GitHub spells its anchor.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The README's length limit (issue 23: a README of ~150–200 lines, at most 220).
const README_MAX_LINES: usize = 220;

/// The topics moved out of the README, one file each.
const DOCS: [&str; 9] = [
    "docs/app.md",
    "docs/keys.md",
    "docs/commands.md",
    "docs/providers.md",
    "docs/sessions.md",
    "docs/proxy-and-watching.md",
    "docs/configuration.md",
    "docs/security.md",
    "docs/performance.md",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The README, ARCHITECTURE.md, CHANGELOG.md and every Markdown file under docs/.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![
        root().join("README.md"),
        root().join("ARCHITECTURE.md"),
        root().join("CHANGELOG.md"),
    ];
    let mut under: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("a docs/ folder")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    under.sort();
    docs.extend(under);
    docs
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES)
}

/// Every link and image destination in a Markdown document, as written.
fn links(text: &str) -> Vec<String> {
    parser(text)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.into_string())
            }
            _ => None,
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, every other character that is not
/// a letter, a digit, `-` or `_` dropped; a repeated heading gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let h = heading.take().unwrap_or_default();
                let slug: String = h
                    .to_lowercase()
                    .chars()
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect();
                let mut unique = slug.clone();
                let mut n = 0;
                while anchors.contains(&unique) {
                    n += 1;
                    unique = format!("{slug}-{n}");
                }
                anchors.insert(unique);
            }
            _ => {}
        }
    }
    anchors
}

/// What is wrong with one relative link of `doc`, if anything.
fn broken(doc: &Path, link: &str) -> Option<String> {
    let (path, anchor) = match link.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (link, None),
    };
    let target = if path.is_empty() {
        doc.to_path_buf()
    } else {
        doc.parent().expect("a folder").join(path)
    };
    if !target.exists() {
        return Some(format!("{link}: {} does not exist", target.display()));
    }
    let anchor = anchor?;
    if target.extension().is_none_or(|ext| ext != "md") {
        return Some(format!(
            "{link}: an anchor into a file that is not Markdown"
        ));
    }
    let known = anchors(&read(&target));
    (!known.contains(anchor)).then(|| format!("{link}: no heading #{anchor}; there are {known:?}"))
}

#[test]
fn the_readme_is_at_most_220_lines() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES} (move detail into docs/)"
    );
}

#[test]
fn every_topic_moved_out_of_the_readme_has_its_file_and_a_link_from_the_readme() {
    let readme_links = links(&read(&root().join("README.md")));
    for doc in DOCS
        .iter()
        .chain(&["ARCHITECTURE.md", "CHANGELOG.md", "LICENSE"])
    {
        assert!(root().join(doc).is_file(), "{doc} is missing");
        assert!(
            readme_links.iter().any(|l| l == doc),
            "README.md does not link {doc}; its links are {readme_links:?}"
        );
    }
    let linked: Vec<&String> = readme_links
        .iter()
        .filter(|l| l.starts_with("docs/"))
        .collect();
    for path in documents()
        .iter()
        .filter(|p| p.starts_with(root().join("docs")))
    {
        let name = format!(
            "docs/{}",
            path.file_name().expect("a name").to_string_lossy()
        );
        assert!(
            linked
                .iter()
                .any(|l| l.split('#').next() == Some(name.as_str())),
            "{name} is not reachable from README.md"
        );
    }
}

#[test]
fn every_relative_link_in_the_docs_resolves_to_a_file_and_heading() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        for link in links(&read(&doc)) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            if let Some(problem) = broken(&doc, &link) {
                let name = doc
                    .strip_prefix(root())
                    .unwrap_or(&doc)
                    .display()
                    .to_string();
                problems.push(format!("{name}: {problem}"));
            }
        }
    }
    assert!(
        checked >= 30,
        "only {checked} relative links found: is the parser reading the docs?"
    );
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_broken_link_or_anchor_is_reported() {
    let readme = root().join("README.md");
    assert!(broken(&readme, "docs/keys.md").is_none());
    assert!(broken(&readme, "docs/keys.md#every-key").is_none());
    assert!(broken(&readme, "docs/wire-notes.md").is_some());
    assert!(broken(&readme, "docs/keys.md#no-such-heading").is_some());
    assert!(broken(&readme, "#the-ten-keys-that-matter").is_none());
    assert!(broken(&readme, "#nowhere").is_some());
}
