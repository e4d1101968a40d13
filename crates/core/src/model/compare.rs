//! Comparing several agents' answers to one question: their sources merged by canonical URL (which
//! agents cited, which consulted each), per-agent figures, and how much their cited sources overlap
//! (Jaccard, per pair). Pure: it reads finished or streaming sessions and their attributions, knows
//! no provider and does no I/O.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::citations::{Attribution, Source};
use crate::model::session::{Session, Status};

/// Query parameters that only say where a click came from (besides every `utm_*`).
const CLICK_IDS: [&str; 8] = [
    "gclid", "fbclid", "msclkid", "dclid", "gbraid", "wbraid", "yclid", "mc_eid",
];

/// One agent's run as the comparison reads it: who it is, its session and attribution, and the
/// timings its driver measured (the session itself carries no clock).
#[derive(Debug, Clone, Copy)]
pub struct AgentRun<'a> {
    pub provider: &'a str,
    pub session: &'a Session,
    pub attribution: &'a Attribution,
    pub timings: Timings,
    /// How the stream feeding the session ended, when it ended without the session hearing of
    /// it (cancelled here, cut, failed): `None` while it runs, or when the session says.
    pub ended: Option<Status>,
}

/// Milliseconds from the question being sent, when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timings {
    /// Until the first answer text arrived.
    pub first_text_ms: Option<u64>,
    /// Until the stream ended.
    pub total_ms: Option<u64>,
}

/// One agent's header figures.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentFigures {
    pub provider: String,
    pub status: Status,
    /// Still streaming (the session has not ended).
    pub streaming: bool,
    /// Distinct sources it cited or consulted.
    pub consulted: usize,
    /// Distinct sources its answer cites.
    pub cited: usize,
    /// Input and output tokens, when the provider reported usage.
    pub tokens: Option<(u64, u64)>,
    pub timings: Timings,
}

/// One source across agents: the same page however each agent wrote its URL.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedSource {
    /// The canonical URL ([`canonical_url`]), or for a source without a URL its key prefixed by
    /// the agent's index (such a source cannot be matched across agents).
    pub key: String,
    /// The URL as the first agent that listed it wrote it.
    pub url: Option<String>,
    /// The host without `www.`; empty without a URL.
    pub site: String,
    /// The first headline or publisher an agent gave it.
    pub title: String,
    /// Indices of the agents whose answers cite it, ascending.
    pub cited_by: Vec<usize>,
    /// Indices of the agents that consulted it (cited or not), ascending: citing implies consulting.
    pub consulted_by: Vec<usize>,
    /// Per agent citing it: that agent's source number, for highlighting its spans.
    pub numbers: Vec<(usize, usize)>,
}

/// How the merged Sources list is ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SourceOrder {
    /// Most agents citing first, then most consulting, then by site and URL.
    #[default]
    Agreement,
    /// Grouped by site (sites with the most agreement first), by agreement within a site.
    Site,
}

/// The comparison of several agents' runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Comparison {
    pub agents: Vec<AgentFigures>,
    pub sources: Vec<MergedSource>,
}

impl Comparison {
    /// Merge the runs' sources and figure each agent. Agent indices are positions in `runs`.
    pub fn build(runs: &[AgentRun<'_>]) -> Comparison {
        let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
        let mut sources: Vec<MergedSource> = Vec::new();
        for (agent, run) in runs.iter().enumerate() {
            for source in &run.attribution.sources {
                let key = merge_key(agent, source);
                let index = *by_key.entry(key.clone()).or_insert_with(|| {
                    sources.push(MergedSource::first(key, source));
                    sources.len() - 1
                });
                let merged = &mut sources[index];
                if !merged.consulted_by.contains(&agent) {
                    merged.consulted_by.push(agent);
                }
                if cites(source) && !merged.cited_by.contains(&agent) {
                    merged.cited_by.push(agent);
                    merged.numbers.push((agent, source.n));
                }
            }
        }
        let agents = runs
            .iter()
            .enumerate()
            .map(|(agent, run)| AgentFigures::of(run, &sources, agent))
            .collect();
        let mut comparison = Comparison { agents, sources };
        comparison.sort(SourceOrder::Agreement);
        comparison
    }

    /// Reorder [`Comparison::sources`].
    pub fn sort(&mut self, order: SourceOrder) {
        let agreement = |s: &MergedSource| (s.cited_by.len(), s.consulted_by.len());
        match order {
            SourceOrder::Agreement => self.sources.sort_by(|a, b| {
                agreement(b)
                    .cmp(&agreement(a))
                    .then_with(|| (&a.site, &a.key).cmp(&(&b.site, &b.key)))
            }),
            SourceOrder::Site => {
                let mut best: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
                for source in &self.sources {
                    let entry = best.entry(&source.site).or_default();
                    *entry = (*entry).max(agreement(source));
                }
                let best: BTreeMap<String, (usize, usize)> =
                    best.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                self.sources.sort_by(|a, b| {
                    best[&b.site]
                        .cmp(&best[&a.site])
                        .then_with(|| a.site.cmp(&b.site))
                        .then_with(|| agreement(b).cmp(&agreement(a)))
                        .then_with(|| a.key.cmp(&b.key))
                });
            }
        }
    }

    /// Sites in list order, each with the indices of its sources in [`Comparison::sources`]
    /// (consecutive after [`SourceOrder::Site`]).
    pub fn sites(&self) -> Vec<(&str, Vec<usize>)> {
        let mut out: Vec<(&str, Vec<usize>)> = Vec::new();
        for (index, source) in self.sources.iter().enumerate() {
            match out.iter_mut().find(|(site, _)| *site == source.site) {
                Some((_, rows)) => rows.push(index),
                None => out.push((&source.site, vec![index])),
            }
        }
        out
    }

    /// The canonical keys of the sources agent `agent` cites.
    pub fn cited_set(&self, agent: usize) -> BTreeSet<&str> {
        self.sources
            .iter()
            .filter(|s| s.cited_by.contains(&agent))
            .map(|s| s.key.as_str())
            .collect()
    }

    /// Jaccard overlap of the cited-source sets of every pair `(a, b)` with `a < b`:
    /// |A ∩ B| / |A ∪ B|, or `None` when neither cites anything.
    pub fn jaccard(&self) -> Vec<(usize, usize, Option<f64>)> {
        let sets: Vec<BTreeSet<&str>> = (0..self.agents.len()).map(|a| self.cited_set(a)).collect();
        let mut out = Vec::new();
        for a in 0..sets.len() {
            for b in a + 1..sets.len() {
                let union = sets[a].union(&sets[b]).count();
                let both = sets[a].intersection(&sets[b]).count();
                out.push((a, b, (union > 0).then(|| both as f64 / union as f64)));
            }
        }
        out
    }
}

impl MergedSource {
    fn first(key: String, source: &Source) -> MergedSource {
        let url = source.url.clone();
        let site = url.as_deref().map(site_of).unwrap_or_default();
        let title = source
            .headline
            .clone()
            .filter(|h| !h.trim().is_empty())
            .unwrap_or_else(|| source.publisher.clone());
        MergedSource {
            key,
            url,
            site,
            title,
            cited_by: Vec::new(),
            consulted_by: Vec::new(),
            numbers: Vec::new(),
        }
    }

    /// One mark per agent of `agents`, in order: `●` cites it, `○` consulted it, `·` neither.
    pub fn marks(&self, agents: usize) -> String {
        (0..agents)
            .map(|a| {
                if self.cited_by.contains(&a) {
                    '●'
                } else if self.consulted_by.contains(&a) {
                    '○'
                } else {
                    '·'
                }
            })
            .collect()
    }
}

impl AgentFigures {
    fn of(run: &AgentRun<'_>, sources: &[MergedSource], agent: usize) -> AgentFigures {
        let count = |keep: fn(&MergedSource, usize) -> bool| {
            sources.iter().filter(|s| keep(s, agent)).count()
        };
        AgentFigures {
            provider: run.provider.to_owned(),
            status: match run.ended {
                Some(ended) if !run.session.is_finished() => ended,
                _ => run.session.status(),
            },
            streaming: !run.session.is_finished() && run.ended.is_none(),
            consulted: count(|s, a| s.consulted_by.contains(&a)),
            cited: count(|s, a| s.cited_by.contains(&a)),
            tokens: run
                .session
                .completion
                .as_ref()
                .filter(|c| !c.consumption.is_empty())
                .map(|c| c.total_tokens()),
            timings: run.timings,
        }
    }
}

/// The answer cites it: a span, or a reference without a position.
fn cites(source: &Source) -> bool {
    !source.consulted_only && (!source.citations.is_empty() || source.cited_without_position)
}

fn merge_key(agent: usize, source: &Source) -> String {
    match source.url.as_deref().filter(|u| !u.trim().is_empty()) {
        Some(url) => canonical_url(url),
        None => format!("agent{agent}:{}", source.key),
    }
}

/// `url` as one page, however it was linked: no fragment, no `utm_*` or click-id parameters
/// (`gclid`, `fbclid`, …), scheme and host in lower case, an empty path as `/`.
///
/// ```
/// use research_tui_core::model::compare::canonical_url;
/// assert_eq!(
///     canonical_url("HTTPS://WWW.Example.com/A?utm_source=x&id=1&gclid=z#top"),
///     "https://www.example.com/A?id=1"
/// );
/// ```
pub fn canonical_url(url: &str) -> String {
    let url = url.trim();
    let url = url.split('#').next().unwrap_or_default();
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let mut out = match head.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let (user, host) = match authority.rsplit_once('@') {
                Some((user, host)) => (format!("{user}@"), host),
                None => (String::new(), authority),
            };
            let path = if path.is_empty() { "/" } else { path };
            format!(
                "{}://{user}{}{path}",
                scheme.to_ascii_lowercase(),
                host.to_ascii_lowercase()
            )
        }
        None => head.to_owned(),
    };
    let kept: Vec<&str> = query
        .unwrap_or_default()
        .split('&')
        .filter(|param| !param.is_empty() && !is_tracking(param))
        .collect();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out
}

fn is_tracking(param: &str) -> bool {
    let name = param.split('=').next().unwrap_or_default();
    name.get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("utm_"))
        || CLICK_IDS.iter().any(|id| name.eq_ignore_ascii_case(id))
}

/// The host of `url` in lower case without `www.` (empty when it has none).
pub fn site_of(url: &str) -> String {
    let canonical = canonical_url(url);
    let Some((_, rest)) = canonical.split_once("://") else {
        return String::new();
    };
    let authority = rest.split('/').next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next().unwrap_or_default();
    host.strip_prefix("www.").unwrap_or(host).to_owned()
}

#[cfg(test)]
mod tests;
