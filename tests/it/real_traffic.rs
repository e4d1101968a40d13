//! Real recorded provider traffic (tests/fixtures/real/, provenance in SOURCES.md) through the
//! whole pipeline, compared with expectations computed from the wire alone by
//! tests/fixtures/real/expect.py: answer, citation spans, source numbering, consulted sources,
//! tool calls, traces, reasoning, payload count and status, exactly. Then what users see of it:
//! Markdown, text, JSON, and the app's panes.
//!
//! Responses API streams (OpenAI, Azure OpenAI, xAI) are read with the Responses dialect that
//! `--provider xai` uses; the expectations name no provider.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::citations::Attribution;
use research_tui::model::session::{Activity, Session};
use research_tui::model::stream_end::StreamEnd;
use research_tui::render::{Format, render};
use research_tui::styled::theme::Theme;

use research_tui::tui::state::{AppConfig, Mode};
use research_tui::tui::ui::Ui;
use research_tui::wire::input::read_session;
use research_tui::wire::provider::{EventPipeline, Provider};
use serde_json::{Value, json};

const DIR: &str = "tests/fixtures/real";

fn path(name: &str) -> String {
    format!("{}/{DIR}/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Every stream of the corpus, with the dialect it is read with.
fn corpus() -> Vec<(String, Provider)> {
    let mut streams: Vec<(String, Provider)> = std::fs::read_dir(path(""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".sse"))
        .map(|name| {
            let provider = if name.starts_with("zeta-") {
                Provider::Zeta
            } else if name.starts_with("bigdata-") {
                Provider::Bigdata
            } else if name.starts_with("gemini-") {
                Provider::Gemini
            } else if name.starts_with("anthropic-") {
                Provider::Anthropic
            } else {
                Provider::Xai
            };
            (name, provider)
        })
        .collect();
    streams.sort_by(|a, b| a.0.cmp(&b.0));
    streams
}

fn session(name: &str, provider: Option<Provider>) -> Session {
    let file = std::fs::File::open(path(name)).unwrap();
    let (session, errors) = read_session(file, provider).unwrap();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    session
}

fn expected(name: &str) -> Value {
    let file = path(&name.replace(".sse", ".expected.json"));
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// What the app made of a stream, in the expectation files' terms.
fn observed(session: &Session) -> Value {
    let attribution = Attribution::resolve(session, true);
    let answer = session.answer.as_str();
    let mut citations: Vec<Value> = attribution
        .citations
        .iter()
        .map(
            |c| json!({"start": c.start, "end": c.end, "text": c.text(answer), "source": c.source}),
        )
        .collect();
    citations.sort_by_key(|c| {
        let n = |key: &str| c[key].as_u64().unwrap_or(0);
        (n("start"), n("end"), n("source"))
    });
    let sources: Vec<Value> = attribution
        .numbered()
        .map(|s| {
            json!({"n": s.n, "key": s.key, "url": s.url, "positioned": !s.citations.is_empty()})
        })
        .collect();
    let consulted: Vec<&str> = attribution
        .sources
        .iter()
        .filter(|s| s.consulted_only)
        .map(|s| s.key.as_str())
        .collect();
    let tool_calls: Vec<Value> = session
        .activity
        .iter()
        .filter_map(|a| match a {
            Activity::ToolCall {
                tool_name,
                arguments,
                ..
            } => Some(json!({"name": tool_name, "arguments": arguments})),
            _ => None,
        })
        .collect();
    let traces: Vec<Value> = session
        .audits
        .iter()
        .map(|t| json!({"query": t.query, "results": t.result_count}))
        .collect();
    let reasoning: Vec<&str> = session
        .activity
        .iter()
        .filter_map(|a| match a {
            Activity::Thinking { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    json!({
        "status": session.status().as_str(),
        "answer": answer,
        "citations": citations,
        "sources": sources,
        "consulted": consulted,
        "tool_calls": tool_calls,
        "traces": traces,
        "reasoning": reasoning,
        "payloads": session.stats.events,
    })
}

#[test]
fn the_corpus_has_every_provider_with_and_without_positions() {
    let names: Vec<String> = corpus().into_iter().map(|(name, _)| name).collect();
    assert!(names.len() >= 8, "{names:?}");
    for prefix in [
        "openai-",
        "azure-",
        "xai-",
        "zeta-",
        "bigdata-",
        "gemini-",
        "anthropic-",
    ] {
        assert!(names.iter().any(|n| n.starts_with(prefix)), "{prefix}");
    }
    let mut positioned = 0;
    let mut unplaced = 0;
    for name in &names {
        for source in expected(name)["sources"].as_array().unwrap() {
            match source["positioned"].as_bool().unwrap() {
                true => positioned += 1,
                false => unplaced += 1,
            }
        }
    }
    assert!(positioned > 0 && unplaced > 0);
}

#[test]
fn every_real_stream_gives_exactly_the_independently_computed_attribution() {
    for (name, provider) in corpus() {
        let expected = expected(&name);
        let observed = observed(&session(&name, Some(provider)));
        for field in [
            "status",
            "payloads",
            "answer",
            "citations",
            "sources",
            "consulted",
            "tool_calls",
            "reasoning",
        ] {
            assert_eq!(observed[field], expected[field], "{name}: {field}");
        }
        if !expected["traces"].is_null() {
            assert_eq!(observed["traces"], expected["traces"], "{name}: traces");
        }
    }
}

#[test]
fn every_real_stream_is_recognised_without_naming_its_provider() {
    for (name, provider) in corpus() {
        let named = render(&session(&name, Some(provider)), Format::Json);
        let detected = render(&session(&name, None), Format::Json);
        assert_eq!(named, detected, "{name}");
    }
}

fn rendered(name: &str, format: Format) -> String {
    render(&session(name, Some(Provider::Xai)), format)
}

#[test]
fn sources_cited_without_a_position_are_numbered_in_every_output() {
    // xAI: nine url_citation annotations, all 0/0 with the URL as title, on the answer "**xAI**".
    let markdown = rendered("xai-zero-positions.sse", Format::Markdown);
    let refs: String = (1..=9).map(|n| format!(" [^{n}]")).collect();
    assert!(
        markdown.starts_with(&format!("**xAI**\n\n*Cited without a position:*{refs}\n")),
        "{markdown}"
    );
    assert!(
        markdown.contains("[^1]: [x.ai](https://x.ai/)\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("[^9]: [x.ai](https://x.ai/legal/terms-of-service)"),
        "{markdown}"
    );
    let text = rendered("xai-zero-positions.sse", Format::Text);
    assert!(
        text.contains("\nSources\n  [1] x.ai (cited without a position)\n      https://x.ai/\n"),
        "{text}"
    );
    assert!(!text.contains("Also consulted"), "{text}");
    let doc: Value =
        serde_json::from_str(&rendered("xai-zero-positions.sse", Format::Json)).unwrap();
    let sources = doc["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 9);
    assert!(sources.iter().all(|s| s["without_position"] == true));
    assert_eq!(doc["stats"]["invalid_references"], 0);
    assert!(doc.get("consulted_sources").is_none());
}

#[test]
fn openai_citation_spans_over_markdown_links_get_markers_and_tracked_urls_are_one_source() {
    let markdown = rendered("openai-web-search-actions.sse", Format::Markdown);
    assert!(
        markdown.contains(
            "lapse. ([techcrunch.com](https://techcrunch.com/2025/12/05/petco-confirms-security-lapse-exposed-customers-personal-data/?utm_source=openai))[^1]"
        ),
        "{markdown}"
    );
    // The page the search found without `utm_source` and cited with it is one source, shown with
    // the cited URL.
    assert!(markdown.contains(
        "[^5]: [wired.com](https://www.wired.com/story/the-big-interview-2025-recap?utm_source=openai)"
    ));
    assert!(!markdown.contains("[^8]"), "seven sources");
    let doc: Value =
        serde_json::from_str(&rendered("openai-web-search-actions.sse", Format::Json)).unwrap();
    let consulted: Vec<&str> = doc["consulted_sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert!(!consulted.iter().any(|u| u.contains("wired.com")));
    assert_eq!(doc["stats"]["events"], 185, "every payload once");
}

#[test]
fn a_final_answer_listed_at_another_position_is_not_appended_twice() {
    // The final answer streams at output_index 2, and `response.completed` lists it second.
    let session = session("openai-phase-reordered.sse", Some(Provider::Xai));
    let answer = session.answer.as_str();
    assert_eq!(answer.matches("Here are a few").count(), 1, "{answer}");
    assert_eq!(answer.matches("Got it").count(), 1, "{answer}");
}

fn app_after(name: &str) -> Ui {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    app.fixed_elapsed = Some(Duration::from_secs(42));
    app.begin_turn(Some("question".into()));
    app.apply_update(StreamUpdate::Connected);
    let mut pipeline = EventPipeline::new(Provider::Xai);
    let mut events = Vec::new();
    pipeline
        .feed(&std::fs::read(path(name)).unwrap(), &mut events)
        .unwrap();
    pipeline.finish(&mut events).unwrap();
    app.apply_update(StreamUpdate::Events(events));
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    app
}

fn screen_of(app: &mut Ui) -> String {
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal.backend().to_string()
}

#[test]
fn the_sidebar_lists_sources_cited_without_a_position() {
    let screen = screen_of(&mut app_after("xai-zero-positions.sse"));
    for n in 1..=9 {
        assert!(screen.contains(&format!("[{n}] ")), "[{n}] in\n{screen}");
    }
    assert!(screen.contains("no position"), "{screen}");
    assert!(!screen.contains("pending"), "{screen}");
}

#[test]
fn x_search_activity_shows_real_arguments_and_no_empty_web_searches() {
    let screen = screen_of(&mut app_after("xai-x-search.sse"));
    // The Activity pane is narrow: rows are cut with an ellipsis (the selected, newest one wraps).
    assert!(
        screen.contains("⚙ x_keyword_search \"from:xai fi"),
        "{screen}"
    );
    assert!(screen.contains("⌕ \"from:xai filter:media\""), "{screen}");
    assert!(
        screen.contains("⚙ view_x_video") && screen.contains("video_url=https://video.twim"),
        "{screen}"
    );
    assert!(screen.contains("Activity 3 "), "{screen}");
    assert!(!screen.contains("⚙ web_search"), "{screen}");
    assert!(!screen.contains("⌕ 0 results"), "{screen}");
}

#[test]
fn web_search_actions_and_reasoning_summaries_show_in_the_activity_pane() {
    let screen = screen_of(&mut app_after("openai-web-search-actions.sse"));
    for row in [
        "⚙ web_search \"tech news today D",
        "⌕ 10 results \"tech news today",
        "⚙ open_page url=https://techcru",
        "⚙ find_in_page pattern=vercel u",
    ] {
        assert!(screen.contains(row), "{row} in\n{screen}");
    }
    let screen = screen_of(&mut app_after("openai-web-search-reasoning.sse"));
    for row in [
        "▸ I'll search for today's tech",
        // The summary's Markdown title reads as words, not `**` marks.
        "▸ Summarizing Tokyo tech",
        "⚙ web_search \"Tokyo tech news",
    ] {
        assert!(screen.contains(row), "{row} in\n{screen}");
    }
    assert!(!screen.contains("**"), "{screen}");
}

#[test]
fn gemini_grounding_byte_offsets_cite_the_sentences_after_degree_signs_and_name_domains() {
    let session = session("gemini-web-search.sse", None);
    let attribution = Attribution::resolve(&session, true);
    let answer = session.answer.as_str();
    let first = &attribution.citations[0];
    // 235..375 in UTF-8 bytes of the text; the `°` before it makes that 235..371 in code points.
    assert_eq!((first.start, first.end), (235, 371));
    assert!(
        first
            .text(answer)
            .starts_with("As of Tuesday afternoon, the temperature is around 69°F")
    );
    let publishers: Vec<(&str, Option<&str>)> = attribution
        .numbered()
        .map(|s| (s.publisher.as_str(), s.headline.as_deref()))
        .collect();
    assert_eq!(
        publishers,
        [
            (
                "google.com",
                Some("Weather information for San Francisco, CA, US")
            ),
            ("timeanddate.com", None),
            ("weather.gov", None),
            ("wunderground.com", None),
            ("accuweather.com", None),
        ]
    );
    let markdown = render(&session, Format::Markdown);
    assert!(
        markdown.contains("grounding-api-redirect/AUZIYQE9XF"),
        "links open as given"
    );
    let thought = self::session("gemini-thinking.sse", None);
    assert!(!thought.answer.as_str().contains("Clarifying User Goals"));
    assert!(
        thought
            .answer
            .as_str()
            .starts_with("This is a great question!")
    );
}
