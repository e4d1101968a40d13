//! What a request to a provider's streaming endpoint asked, read back from its query and JSON body:
//! the question, what ties it to earlier turns ([`Ask`]) and the options a follow-up sends again.
//! The inverse of each provider's request builder, for the recording proxy, which saves requests
//! other programs built. Each provider's row names its reader
//! ([`ProviderSpec::read_request`](super::spec::ProviderSpec::read_request)).

use percent_encoding::percent_decode_str;

use super::request::{Ask, ProviderOptions};
use super::{anthropic, bigdata, gemini, perplexity, responses, zeta};

/// What one request asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asked {
    pub ask: Ask,
    pub options: ProviderOptions,
}

/// Bigdata.com: a research question (`chat_id` continues it, `from_checkpoint_id` resumes it), or
/// a workflow run (asked as its template id).
pub fn bigdata(_query: &str, body: &[u8]) -> Option<Asked> {
    if let Ok(request) = bigdata::request::ResearchRequest::parse(body) {
        let charts = request.wants_charts();
        let ask = Ask {
            chat_id: request.chat_id,
            checkpoint_id: request.from_checkpoint_id,
            ..Ask::new(request.message)
        };
        return Some(Asked {
            ask,
            options: ProviderOptions {
                charts,
                ..ProviderOptions::default()
            },
        });
    }
    let workflow = bigdata::request::WorkflowRequest::parse(body).ok()?;
    let question = match workflow.template.as_str() {
        Some(id) => format!("workflow {id}"),
        None => "workflow (inline template)".to_owned(),
    };
    Some(Asked {
        ask: Ask::new(question),
        options: ProviderOptions::default(),
    })
}

/// xAI and OpenAI Responses: the question, the model, and `previous_response_id` as the
/// checkpoint it continues from.
pub fn responses(_query: &str, body: &[u8]) -> Option<Asked> {
    let request = responses::ResponsesRequest::parse(body).ok()?;
    let question = request.question();
    let ask = Ask {
        checkpoint_id: request.previous_response_id,
        ..Ask::new(question)
    };
    Some(Asked {
        ask,
        options: ProviderOptions {
            model: request.model,
            ..ProviderOptions::default()
        },
    })
}

/// Zeta Alpha: the session, the earlier turns the conversation carries, the agent, and the tenant
/// from the query.
pub fn zeta(query: &str, body: &[u8]) -> Option<Asked> {
    let request = zeta::request::ChatRequest::parse(body).ok()?;
    let turns = request
        .conversation
        .iter()
        .map(|m| (m.sender.as_str(), m.content.as_str()));
    let ask = Ask {
        chat_id: request.session_id.clone(),
        history: earlier_turns(turns, "bot"),
        ..Ask::new(request.question())
    };
    Some(Asked {
        ask,
        options: ProviderOptions {
            tenant: query_value(query, "tenant"),
            agent: request.agent_identifier,
            ..ProviderOptions::default()
        },
    })
}

/// Perplexity: the earlier turns the messages carry, and the model.
pub fn perplexity(_query: &str, body: &[u8]) -> Option<Asked> {
    let request = perplexity::request::ChatCompletionRequest::parse(body).ok()?;
    let turns = request
        .messages
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()));
    let ask = Ask {
        history: earlier_turns(turns, "assistant"),
        ..Ask::new(request.question())
    };
    Some(Asked {
        ask,
        options: ProviderOptions {
            model: Some(request.model),
            ..ProviderOptions::default()
        },
    })
}

/// Anthropic: the question and the conversation's earlier turns (their answers as text: the
/// blocks the API needs back are in the saved turns' streams). A request that continues a paused
/// turn asks nothing new: its [`Ask::paused`] holds the turn's content so far.
pub fn anthropic(_query: &str, body: &[u8]) -> Option<Asked> {
    let request = anthropic::request::MessagesRequest::parse(body).ok()?;
    let paused = match request.messages.last() {
        Some(last) if request.continues_paused_turn() => match &last.content {
            serde_json::Value::Array(blocks) => blocks.clone(),
            other => vec![other.clone()],
        },
        _ => Vec::new(),
    };
    let ask = Ask {
        history: request.earlier_turns(),
        paused,
        ..Ask::new(request.question())
    };
    let thinking = request
        .thinking
        .as_ref()
        .and_then(|t| t.get("budget_tokens"))
        .and_then(serde_json::Value::as_u64)
        .and_then(|b| u32::try_from(b).ok());
    Some(Asked {
        ask,
        options: ProviderOptions {
            model: Some(request.model),
            thinking,
            ..ProviderOptions::default()
        },
    })
}

/// `(question, answer)` pairs from a conversation's `(sender, text)` messages, the last one (the
/// question being asked) left out: each `user` message followed by the `answerer`'s reply.
fn earlier_turns<'a>(
    messages: impl DoubleEndedIterator<Item = (&'a str, &'a str)>,
    answerer: &str,
) -> Vec<(String, String)> {
    let mut messages: Vec<_> = messages.collect();
    messages.pop();
    let mut turns = Vec::new();
    let mut question: Option<&str> = None;
    for (sender, text) in messages {
        match sender {
            "user" => question = Some(text),
            _ if sender == answerer => {
                if let Some(question) = question.take() {
                    turns.push((question.to_owned(), text.to_owned()));
                }
            }
            _ => {}
        }
    }
    turns
}

/// The percent-decoded value of `key` in a query string (`a=1&tenant=acme%20labs`).
pub fn query_value(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name == key).then(|| percent_decode_str(value).decode_utf8_lossy().into_owned())
    })
}

/// Gemini: a Deep Research interaction (the agent as the model, `previous_interaction_id` as the
/// checkpoint), or a grounded model's conversation (its model is in the path, which the proxy
/// adds: [`Endpoint::model_in_path`](super::request::Endpoint::model_in_path)).
pub fn gemini(_query: &str, body: &[u8]) -> Option<Asked> {
    if let Some(request) = gemini::request::InteractionRequest::parse(body) {
        let ask = Ask {
            checkpoint_id: request.previous_interaction_id.clone(),
            ..Ask::new(request.question())
        };
        let options = ProviderOptions {
            model: Some(request.agent),
            ..ProviderOptions::default()
        };
        return Some(Asked { ask, options });
    }
    let request = gemini::request::GenerateRequest::parse(body)?;
    let ask = Ask {
        history: request.history(),
        ..Ask::new(request.question())
    };
    Some(Asked {
        ask,
        options: ProviderOptions::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::provider::Provider;

    /// Each provider reads back what its own builder made.
    #[test]
    fn every_provider_reads_back_the_follow_up_its_builder_makes() {
        for provider in Provider::ALL {
            let spec = provider.spec();
            let ask = Ask {
                chat_id: Some("c-1".into()),
                checkpoint_id: Some("ck-1".into()),
                history: vec![("What is it?".into(), "A thing.".into())],
                ..Ask::new("Since when?")
            };
            let options = ProviderOptions {
                tenant: Some("acme labs".into()),
                ..ProviderOptions::default()
            };
            let request = spec.request(&ask, &options);
            let query = request.path.split_once('?').map_or("", |(_, q)| q);
            let asked = (spec.read_request)(query, &request.body_bytes())
                .unwrap_or_else(|| panic!("{provider:?} reads its own request"));
            assert_eq!(asked.ask.question, "Since when?", "{provider:?}");
            let continued = asked.ask.chat_id.is_some() || asked.ask.checkpoint_id.is_some();
            let carried = asked.ask.history == ask.history;
            assert!(continued || carried, "{provider:?}: {asked:?}");
            if provider == Provider::Zeta {
                assert_eq!(asked.options.tenant.as_deref(), Some("acme labs"));
                assert!(carried && asked.ask.chat_id.as_deref() == Some("c-1"));
            }
        }
    }

    #[test]
    fn a_request_that_is_not_the_providers_reads_as_nothing() {
        assert_eq!(perplexity("", b"{\"message\":\"hi\"}"), None);
        assert_eq!(bigdata("", b"not json"), None);
    }
}
