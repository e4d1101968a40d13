//! OpenTelemetry export: each ended turn of `ask`, the app and the proxy, and saved sessions on
//! request (`sessions --export-otlp`), sent as one trace to an OTLP/HTTP collector when one is
//! configured ([`config`]). The spans are decided by the pure [`crate::render::trace`]; this module
//! reads the saved turns ([`spans`]) and sends them without ever holding a session up
//! ([`export`]). See docs/opentelemetry.md.

pub mod config;
pub mod export;
pub mod spans;

pub use config::Config;
pub use export::{ANSWERED_EXIT_BUDGET, EXIT_BUDGET, Exporter, Tally, TurnRef};

/// The export's flags, shared by `ask`, the app and `proxy`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OtlpArgs {
    /// Send each turn as an OpenTelemetry trace to this OTLP/HTTP collector (a base URL such as
    /// http://localhost:4318, `/v1/traces` appended); also OTEL_EXPORTER_OTLP_ENDPOINT, and
    /// OTEL_EXPORTER_OTLP_HEADERS for its credentials (docs/opentelemetry.md).
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// Also send the question and the answer text in the traces (left out unless asked for).
    #[arg(long)]
    pub otlp_content: bool,
}

impl OtlpArgs {
    /// The export these flags and the environment ask for: `Ok(None)` when none is.
    pub fn config(&self) -> Result<Option<Config>, String> {
        config::resolve(self.otlp_endpoint.as_deref(), self.otlp_content, |name| {
            std::env::var(name).ok()
        })
    }

    /// Start the exporter these flags ask for (on the current runtime), every configured key and
    /// `key` masked in its spans; `Ok(None)` when export is off.
    pub fn start(&self, key: Option<&str>) -> Result<Option<Exporter>, String> {
        let Some(config) = self.config()? else {
            return Ok(None);
        };
        open_log();
        let mut secret = crate::local::summary::configured_keys();
        if let Some(key) = key {
            secret = secret.and(key);
        }
        Exporter::start(&config, secret).map(Some)
    }
}

/// Export failures go to the diagnostic log: opened here for the commands that do not open it
/// themselves (`ask`, `proxy`, `sessions`; the app has).
pub fn open_log() {
    let _ = crate::log::init(&crate::local::config::log_file());
}

/// Send the rest within the exit budget ([`Exporter::finish_at_exit`]); what failed is in the log.
pub async fn finish(exporter: Option<&Exporter>) {
    if let Some(exporter) = exporter {
        exporter.finish_at_exit().await;
    }
}
