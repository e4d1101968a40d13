//! `research-tui proxy`: the recording proxy ([`crate::proxy`]) on 127.0.0.1 until Ctrl-C.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use crate::agent::client::check_base_url;
use crate::local::store::SessionStore;
use crate::proxy::{ProxyConfig, spawn};
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::Provider;

/// `research-tui proxy` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ProxyArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8788)]
    pub port: u16,
    /// Address to listen on. Anything but loopback lets other machines send requests through it
    /// (and into your saved sessions): a warning says so.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Send one provider's requests to this base URL instead of its API (repeatable), e.g.
    /// bigdata=http://127.0.0.1:8787 for the demo agent.
    #[arg(long, value_name = "NAME=URL", value_parser = parse_upstream)]
    pub upstream: Vec<(Provider, String)>,
    /// Serve requests a web page at this origin sends (repeatable), e.g. http://localhost:3000.
    /// Requests carrying any other `Origin` header are refused: a page could spend your key.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    #[command(flatten)]
    pub otlp: crate::otel::OtlpArgs,
}

/// `NAME=URL`: a provider's name and an http(s) base URL.
fn parse_upstream(s: &str) -> Result<(Provider, String), String> {
    let names: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
    let (name, url) = s.split_once('=').ok_or_else(|| {
        format!(
            "takes NAME=URL (NAME one of {}), not {s:?}",
            names.join(", ")
        )
    })?;
    let provider = Provider::ALL
        .into_iter()
        .find(|p| p.as_str() == name.trim())
        .ok_or_else(|| {
            format!(
                "{name:?} is not a provider: use one of {}",
                names.join(", ")
            )
        })?;
    let url = without_credentials(url.trim());
    check_base_url(&url).map_err(|why| format!("{url:?} is not a base URL: {why}"))?;
    Ok((provider, url))
}

/// `url` without a user name and password (`https://user:pass@host` → `https://host`): they
/// would be saved with every session and printed; a client sends its own credentials.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

/// `research-tui proxy`: run the recording proxy until Ctrl-C.
pub fn run_cli(args: ProxyArgs) -> ExitCode {
    if let Err(message) = args.otlp.config() {
        eprintln!("research-tui: {message}");
        return ExitCode::from(2);
    }
    crate::proxy::keep_freed_memory();
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let store = SessionStore::default();
    let root = store.root().to_owned();
    let config = args
        .upstream
        .iter()
        .fold(ProxyConfig::new(store), |config, (provider, url)| {
            config.with_upstream(*provider, url)
        });
    let mut config = config;
    config.allowed_origins = args.allow_origin.clone();
    let exit = runtime.block_on(async move {
        // Each client's own key is masked in its turns' traces besides the configured ones.
        config.exporter = match args.otlp.start(None) {
            Ok(exporter) => exporter,
            Err(message) => {
                eprintln!("research-tui: {message}");
                return ExitCode::from(2);
            }
        };
        let wanted = SocketAddr::new(args.bind, args.port);
        let (addr, task) = match spawn(config.clone(), wanted).await {
            Ok(bound) => bound,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                eprintln!(
                    "research-tui: cannot start the proxy on {wanted}: port {} is already in use \
                     (another proxy?): choose another with --port N, or --port 0 for a free one",
                    args.port
                );
                return ExitCode::from(1);
            }
            Err(e) => {
                eprintln!(
                    "research-tui: cannot start the proxy on {wanted}: {e} (--port 0 picks a free \
                     port)"
                );
                return ExitCode::from(1);
            }
        };
        eprintln!("research-tui proxy listening on http://{addr}");
        if !args.bind.is_loopback() {
            eprintln!(
                "research-tui proxy: warning: {} is not a loopback address: anyone who can reach it can send requests through this proxy, and every session they start is saved here",
                args.bind
            );
        }
        for provider in Provider::ALL {
            eprintln!(
                "  http://{addr}/{:<10} → {}",
                provider.as_str(),
                sanitize_line(config.upstream(provider))
            );
        }
        eprintln!("sessions are saved in {}", root.display());
        if let Some(exporter) = &config.exporter {
            eprintln!("each turn is sent as a trace to {}", exporter.endpoint());
        }
        let exit = tokio::select! {
            _ = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
            _ = task => ExitCode::from(1),
        };
        crate::otel::finish(config.exporter.as_ref()).await;
        exit
    });
    // Recorders still saving a turn get a moment to write down how it ended.
    runtime.shutdown_timeout(Duration::from_secs(2));
    exit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_keeps_no_user_name_or_password() {
        assert_eq!(
            without_credentials("https://user:pa@ss@api.example/v1?x=@"),
            "https://api.example/v1?x=@"
        );
        assert_eq!(
            without_credentials("http://127.0.0.1:8787"),
            "http://127.0.0.1:8787"
        );
        let (_, url) = parse_upstream("openai=https://me:SECRET@api.openai.com").unwrap();
        assert_eq!(url, "https://api.openai.com");
    }
}
