//! The comparison's unit tests. The three-agent case's expectations come from
//! `tests/fixtures/compare/compare_expect.py` (urllib, not our code) over the same input.

use serde_json::{Value, json};

use super::*;
use crate::model::event::{AgentEvent, Consumption, Reference, SourceDoc};

const INPUT: &str = include_str!("../../../../../tests/fixtures/compare/input.json");
const EXPECTED: &str = include_str!("../../../../../tests/fixtures/compare/expected.json");

fn doc(url: &str, title: Option<&str>) -> SourceDoc {
    SourceDoc {
        url: Some(url.into()),
        headline: title.map(Into::into),
        ..Default::default()
    }
}

/// A session as the fixture describes it: the answer, its citations, what it consulted, its end.
fn session_of(agent: &Value) -> Session {
    let mut session = Session::new();
    session.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: agent["answer"].as_str().unwrap().into(),
    });
    let references = agent["cited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Reference {
            start: c[0].as_u64(),
            end: c[1].as_u64(),
            tool_name: None,
            audit_id: None,
            source: Some(doc(c[2].as_str().unwrap(), c[3].as_str())),
            marker: false,
            unplaced: false,
        })
        .collect();
    session.apply(AgentEvent::Grounding(references));
    let consulted = agent["consulted"].as_array().unwrap();
    session.apply(AgentEvent::Consulted(
        consulted
            .iter()
            .map(|u| doc(u.as_str().unwrap(), None))
            .collect(),
    ));
    let consumption = match agent["tokens"].as_array() {
        Some(t) => vec![Consumption {
            kind: "total".into(),
            input_tokens: t[0].as_u64().unwrap(),
            output_tokens: t[1].as_u64().unwrap(),
            cached_tokens: 0,
            raw: json!({}),
        }],
        None => vec![],
    };
    session.apply(match agent["status"].as_str().unwrap() {
        "error" => AgentEvent::Error {
            message: "boom".into(),
        },
        _ => AgentEvent::Complete {
            checkpoint_id: None,
            consumption,
        },
    });
    session
}

struct Fixture {
    providers: Vec<String>,
    sessions: Vec<Session>,
    attributions: Vec<Attribution>,
}

impl Fixture {
    fn load() -> Fixture {
        let input: Value = serde_json::from_str(INPUT).unwrap();
        let agents = input["agents"].as_array().unwrap();
        let sessions: Vec<Session> = agents.iter().map(session_of).collect();
        Fixture {
            providers: agents
                .iter()
                .map(|a| a["provider"].as_str().unwrap().to_owned())
                .collect(),
            attributions: sessions
                .iter()
                .map(|s| Attribution::resolve(s, true))
                .collect(),
            sessions,
        }
    }

    fn runs(&self) -> Vec<AgentRun<'_>> {
        (0..self.sessions.len())
            .map(|i| AgentRun {
                provider: &self.providers[i],
                session: &self.sessions[i],
                attribution: &self.attributions[i],
                timings: Timings::default(),
                ended: None,
            })
            .collect()
    }
}

#[test]
fn the_same_page_linked_three_ways_is_one_row_with_the_agents_that_cited_and_consulted_it() {
    let fixture = Fixture::load();
    let comparison = Comparison::build(&fixture.runs());
    let expected: Value = serde_json::from_str(EXPECTED).unwrap();
    let rows: Vec<Value> = comparison
        .sources
        .iter()
        .map(|s| {
            json!({"key": s.key, "site": s.site, "cited_by": s.cited_by, "consulted_by": s.consulted_by})
        })
        .collect();
    assert_eq!(Value::from(rows), expected["sources"]);
}

#[test]
fn jaccard_overlap_per_pair_matches_the_independent_computation() {
    let fixture = Fixture::load();
    let comparison = Comparison::build(&fixture.runs());
    let expected: Value = serde_json::from_str(EXPECTED).unwrap();
    let pairs: Vec<Value> = comparison
        .jaccard()
        .into_iter()
        .map(|(a, b, x)| json!([a, b, x]))
        .collect();
    assert_eq!(Value::from(pairs), expected["jaccard"]);
}

#[test]
fn each_agent_is_figured_with_its_status_counts_and_tokens_when_known() {
    let fixture = Fixture::load();
    let comparison = Comparison::build(&fixture.runs());
    let expected: Value = serde_json::from_str(EXPECTED).unwrap();
    let figures: Vec<Value> = comparison
        .agents
        .iter()
        .map(|a| {
            json!({"provider": a.provider, "status": a.status.as_str(), "consulted": a.consulted,
                   "cited": a.cited, "tokens": a.tokens.map(|(i, o)| [i, o])})
        })
        .collect();
    assert_eq!(Value::from(figures), expected["agents"]);
}

#[test]
fn a_shared_source_knows_each_citing_agents_own_number_for_highlighting() {
    let fixture = Fixture::load();
    let comparison = Comparison::build(&fixture.runs());
    let iea = comparison
        .sources
        .iter()
        .find(|s| s.site == "iea.org" && !s.cited_by.is_empty())
        .unwrap();
    // OpenAI cites it third, Perplexity third; Bigdata only consulted it.
    assert_eq!(iea.numbers, vec![(1, 3), (2, 3)]);
}

#[test]
fn sorting_by_site_keeps_each_sites_rows_together_best_agreement_first() {
    let fixture = Fixture::load();
    let mut comparison = Comparison::build(&fixture.runs());
    comparison.sort(SourceOrder::Site);
    let sites: Vec<&str> = comparison.sites().iter().map(|(s, _)| *s).collect();
    assert_eq!(
        sites,
        [
            "about.bnef.com",
            "iea.org",
            "pv-magazine.com",
            "catl.com",
            "reuters.com",
            "en.wikipedia.org"
        ]
    );
    let iea = &comparison.sites()[1].1;
    assert_eq!(iea, &vec![1, 2], "iea.org's two pages are consecutive");
    assert_eq!(
        comparison.sources[2].key,
        "https://www.iea.org/reports/another-report"
    );
}

/// A session whose answer has begun (`So far`) and has not ended.
fn answering_so_far() -> Session {
    let mut session = Session::new();
    session.apply(AgentEvent::AnswerDelta {
        message_id: None,
        text: "So far".into(),
    });
    session
}

#[test]
fn a_still_streaming_agent_is_incomplete_and_counts_what_it_has_so_far() {
    let session = answering_so_far();
    let attribution = Attribution::resolve(&session, false);
    let run = AgentRun {
        provider: "xai",
        session: &session,
        attribution: &attribution,
        timings: Timings {
            first_text_ms: Some(420),
            total_ms: None,
        },
        ended: None,
    };
    let comparison = Comparison::build(&[run]);
    let figures = &comparison.agents[0];
    assert!(figures.streaming);
    assert_eq!(figures.status, Status::Incomplete);
    assert_eq!(
        (figures.cited, figures.consulted, figures.tokens),
        (0, 0, None)
    );
    assert_eq!(figures.timings.first_text_ms, Some(420));
    assert!(comparison.jaccard().is_empty());
}

/// A stream that ended without the session hearing of it (cancelled by the person, cut) no longer
/// reads as streaming: its header said `streaming` for ever after a Ctrl-C in a comparison.
#[test]
fn an_agent_whose_stream_ended_unheard_is_no_longer_streaming_and_says_how_it_ended() {
    let session = answering_so_far();
    let attribution = Attribution::resolve(&session, false);
    let run = |ended| AgentRun {
        provider: "openai",
        session: &session,
        attribution: &attribution,
        timings: Timings::default(),
        ended,
    };
    let figures = |ended| Comparison::build(&[run(ended)]).agents[0].clone();
    let cancelled = figures(Some(Status::Cancelled));
    assert!(!cancelled.streaming);
    assert_eq!(cancelled.status, Status::Cancelled);
    let cut = figures(Some(Status::Incomplete));
    assert!(!cut.streaming);
    assert_eq!(cut.status, Status::Incomplete);
    assert!(figures(None).streaming);
}

#[test]
fn two_agents_citing_nothing_have_no_overlap_figure_rather_than_a_made_up_one() {
    let empty = Session::new();
    let attribution = Attribution::default();
    let run = |provider| AgentRun {
        provider,
        session: &empty,
        attribution: &attribution,
        timings: Timings::default(),
        ended: None,
    };
    let comparison = Comparison::build(&[run("a"), run("b")]);
    assert_eq!(comparison.jaccard(), vec![(0, 1, None)]);
}

#[test]
fn canonical_urls_drop_tracking_and_fragments_and_lower_only_scheme_and_host() {
    let cases = [
        ("https://Example.COM", "https://example.com/"),
        (
            "HTTP://a.com/Path/X?b=2&utm_campaign=c&a=1",
            "http://a.com/Path/X?b=2&a=1",
        ),
        (
            "https://a.com/x?fbclid=1&GCLID=2&msclkid=3#frag",
            "https://a.com/x",
        ),
        (
            "https://User@A.com:8443/x?utm=keep",
            "https://User@a.com:8443/x?utm=keep",
        ),
        ("not a url#x", "not a url"),
    ];
    for (url, canonical) in cases {
        assert_eq!(canonical_url(url), canonical, "{url}");
    }
    assert_eq!(site_of("https://WWW.Reuters.com:443/a"), "reuters.com");
    assert_eq!(site_of("no-scheme"), "");
}
