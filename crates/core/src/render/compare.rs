//! A comparison of several agents' answers to one question, rendered: JSON for scripts
//! (`{"question", "answers", "overlap"}`), Markdown (each answer, then the overlap tables) and text.
//! Reads sessions and the [`Comparison`] only; every piece of agent text is sanitised.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use crate::model::compare::{AgentRun, Comparison, MergedSource};
use crate::render::markdown::{escape_inline, escape_url};
use crate::render::sanitize::sanitize_line;

/// One agent's answer as the renderers take it.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    pub run: AgentRun<'a>,
    /// The status and error to report instead of the session's own, when the caller knows better
    /// (the stream ended before the agent finished: `incomplete`, or `error` for HTTP failures).
    pub outcome: Option<(&'static str, &'a str)>,
    /// The saved session holding this agent's conversation.
    pub session_id: Option<&'a str>,
}

impl Answer<'_> {
    fn status(&self) -> &str {
        self.outcome
            .map_or(self.run.session.status().as_str(), |(status, _)| status)
    }
}

fn runs<'a>(answers: &[Answer<'a>]) -> Vec<AgentRun<'a>> {
    answers.iter().map(|a| a.run).collect()
}

/// `{"question", "answers": [{"provider", "status", "answer", "sources", "citations", "timings", …}],
/// "overlap": {"sources": [{"url", "cited_by", "consulted_by"}], "jaccard": {"a|b": x}}}`.
pub fn to_json(question: &str, answers: &[Answer<'_>]) -> Value {
    let comparison = Comparison::build(&runs(answers));
    let answers_out: Vec<Value> = answers.iter().map(answer_json).collect();
    json!({
        "question": question,
        "answers": answers_out,
        "overlap": overlap_json(&comparison),
    })
}

fn answer_json(answer: &Answer<'_>) -> Value {
    let run = &answer.run;
    let mut out = Map::new();
    out.insert("provider".into(), run.provider.into());
    let document = crate::render::json::to_value(run.session, run.attribution);
    if let Value::Object(fields) = document {
        out.extend(fields);
    }
    if let Some((status, error)) = answer.outcome {
        out.insert("status".into(), status.into());
        out.insert("error".into(), error.into());
    }
    out.insert(
        "timings".into(),
        json!({"first_text_ms": run.timings.first_text_ms, "total_ms": run.timings.total_ms}),
    );
    let tokens = run
        .session
        .completion
        .as_ref()
        .filter(|c| !c.consumption.is_empty())
        .map(|c| c.total_tokens());
    out.insert(
        "tokens".into(),
        tokens.map_or(Value::Null, |(i, o)| json!({"input": i, "output": o})),
    );
    out.insert("session_id".into(), answer.session_id.into());
    Value::Object(out)
}

fn overlap_json(comparison: &Comparison) -> Value {
    let names = |agents: &[usize]| -> Vec<&str> {
        agents
            .iter()
            .map(|&a| comparison.agents[a].provider.as_str())
            .collect()
    };
    let sources: Vec<Value> = comparison
        .sources
        .iter()
        .map(|s| {
            json!({
                "url": s.url.as_ref().map(|_| &s.key),
                "site": s.site,
                "title": s.title,
                "cited_by": names(&s.cited_by),
                "consulted_by": names(&s.consulted_by),
            })
        })
        .collect();
    let mut jaccard = Map::new();
    for (a, b, x) in comparison.jaccard() {
        let key = format!(
            "{}|{}",
            comparison.agents[a].provider, comparison.agents[b].provider
        );
        jaccard.insert(key, x.map_or(Value::Null, Value::from));
    }
    json!({"sources": sources, "jaccard": jaccard})
}

/// One agent's figures on one line: `complete · 5 cited / 6 consulted · first text 1.2 s · total 9.8 s`.
pub fn figures_line(comparison: &Comparison, agent: usize, status: &str) -> String {
    let figures = &comparison.agents[agent];
    let mut line = format!(
        "{status} · {} cited / {} consulted",
        figures.cited, figures.consulted
    );
    if let Some(ms) = figures.timings.first_text_ms {
        let _ = write!(line, " · first text {}", seconds(ms));
    }
    if let Some(ms) = figures.timings.total_ms {
        let _ = write!(line, " · total {}", seconds(ms));
    }
    if let Some((input, output)) = figures.tokens {
        let _ = write!(line, " · {input} in / {output} out tokens");
    }
    line
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// The answers one after another, each under a heading with its figures, then the overlap tables.
pub fn to_markdown(question: &str, answers: &[Answer<'_>]) -> String {
    let comparison = Comparison::build(&runs(answers));
    let mut out = format!("# {}\n\n", escape_inline(&sanitize_line(question)));
    for (agent, answer) in answers.iter().enumerate() {
        let run = &answer.run;
        let _ = writeln!(
            out,
            "## {}\n\n*{}*\n",
            run.provider,
            figures_line(&comparison, agent, answer.status())
        );
        if let Some((_, why)) = answer.outcome {
            let _ = writeln!(out, "> {}\n", escape_inline(&sanitize_line(why)));
        }
        out.push_str(&crate::render::markdown::render_part(
            run.session,
            run.attribution,
            agent + 1,
        ));
        out.push('\n');
    }
    out.push_str("## Sources compared\n\n| Source | Cited by | Consulted by |\n|---|---|---|\n");
    for source in &comparison.sources {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            markdown_cell(source),
            agent_names(&comparison, &source.cited_by),
            agent_names(&comparison, &source.consulted_by)
        );
    }
    out.push_str("\n| Agents | Overlap of cited sources (Jaccard) |\n|---|---|\n");
    for (a, b, x) in comparison.jaccard() {
        let _ = writeln!(
            out,
            "| {} · {} | {} |",
            comparison.agents[a].provider,
            comparison.agents[b].provider,
            x.map_or("–".to_owned(), |x| format!("{x:.2}"))
        );
    }
    out
}

fn markdown_cell(source: &MergedSource) -> String {
    let title = escape_inline(&sanitize_line(&source.title)).replace('|', "\\|");
    match &source.url {
        Some(_) => format!(
            "[{title}]({})",
            escape_url(&sanitize_line(&source.key)).replace('|', "%7C")
        ),
        None => title,
    }
}

fn agent_names(comparison: &Comparison, agents: &[usize]) -> String {
    if agents.is_empty() {
        return "–".into();
    }
    agents
        .iter()
        .map(|&a| comparison.agents[a].provider.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// For people: each answer as text under its agent's line, then the merged sources with who cited
/// (`●`) or only consulted (`○`) each, then the overlap per pair.
pub fn to_text(question: &str, answers: &[Answer<'_>], width: usize) -> String {
    let comparison = Comparison::build(&runs(answers));
    let rule = "═".repeat(width.clamp(20, 100));
    let mut out = format!("{}\n", sanitize_line(question));
    for (agent, answer) in answers.iter().enumerate() {
        let run = &answer.run;
        let _ = writeln!(
            out,
            "\n{rule}\n{} — {}\n{rule}\n",
            run.provider,
            figures_line(&comparison, agent, answer.status())
        );
        if let Some((_, why)) = answer.outcome {
            let _ = writeln!(out, "({})\n", sanitize_line(why));
        }
        out.push_str(&crate::render::text::render_sized(
            run.session,
            run.attribution,
            width,
        ));
    }
    let names: Vec<&str> = comparison
        .agents
        .iter()
        .map(|a| a.provider.as_str())
        .collect();
    let _ = writeln!(
        out,
        "\n{rule}\nSources compared: one mark per agent ({}), ● cites, ○ consulted\n{rule}",
        names.join(", ")
    );
    for source in &comparison.sources {
        let marks = source.marks(names.len());
        let place = source
            .url
            .as_ref()
            .map_or(source.title.as_str(), |_| &source.key);
        let _ = writeln!(out, "{marks}  {}", sanitize_line(place));
    }
    out.push('\n');
    for (a, b, x) in comparison.jaccard() {
        let _ = writeln!(
            out,
            "overlap {} · {}: {}",
            names[a],
            names[b],
            x.map_or("–".to_owned(), |x| format!("{x:.2}"))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::citations::Attribution;
    use crate::model::compare::Timings;
    use crate::model::event::{AgentEvent, Reference, SourceDoc};
    use crate::model::session::Session;

    /// An agent whose one citation names a page with a hostile title.
    fn session(url: &str, title: &str) -> Session {
        let mut session = Session::new();
        session.apply(AgentEvent::AnswerDelta {
            message_id: None,
            text: "Cited text.".into(),
        });
        session.apply(AgentEvent::Grounding(vec![Reference {
            start: Some(0),
            end: Some(5),
            tool_name: None,
            audit_id: None,
            source: Some(SourceDoc {
                url: Some(url.into()),
                headline: Some(title.into()),
                ..Default::default()
            }),
            marker: false,
            unplaced: false,
        }]));
        session.apply(AgentEvent::Complete {
            checkpoint_id: None,
            consumption: vec![],
        });
        session
    }

    #[test]
    fn titles_cannot_break_the_table_or_reach_the_terminal_as_escapes() {
        let a = session("https://a.com/x?utm_source=z", "Evil | title \u{1b}[31m");
        let b = session("https://A.com/x#frag", "Other");
        let (ra, rb) = (
            Attribution::resolve(&a, true),
            Attribution::resolve(&b, true),
        );
        let answer = |provider, session, attribution| Answer {
            run: AgentRun {
                provider,
                session,
                attribution,
                timings: Timings::default(),
                ended: None,
            },
            outcome: None,
            session_id: None,
        };
        let answers = [answer("a", &a, &ra), answer("b", &b, &rb)];
        let markdown = to_markdown("Q?", &answers);
        let row = markdown
            .lines()
            .find(|l| l.starts_with("| [") && l.contains("a.com/x"))
            .expect("a row for the page");
        assert_eq!(row.matches(" | ").count(), 2, "{row}");
        assert!(!markdown.contains('\u{1b}'));
        assert!(!to_text("Q?", &answers, 80).contains('\u{1b}'));
        let json = to_json("Q?", &answers);
        assert_eq!(json["overlap"]["sources"][0]["url"], "https://a.com/x");
        assert_eq!(json["overlap"]["jaccard"]["a|b"], 1.0);
        assert_eq!(json["answers"][1]["provider"], "b");
    }
}
