//! `research-tui sessions --export-otlp [ID…]`: saved sessions sent to the configured OpenTelemetry
//! collector (a backfill), one trace per turn; how many traces and spans went, or one line saying
//! why the collector did not take them (exit 1).

use std::io::Write;
use std::process::ExitCode;

use crate::local::store::SessionStore;
use crate::otel::{OtlpArgs, TurnRef};

/// Send every saved session, or those `ids` name (whole ids or unique prefixes).
pub fn run(ids: &[String], otlp: &OtlpArgs) -> ExitCode {
    let fail = |message: String| {
        eprintln!("research-tui: {message}");
        ExitCode::from(2)
    };
    let config = match otlp.config() {
        Ok(Some(config)) => config,
        Ok(None) => {
            return fail(
                "no OpenTelemetry collector: set OTEL_EXPORTER_OTLP_ENDPOINT or give \
                 --otlp-endpoint URL (docs/opentelemetry.md)"
                    .into(),
            );
        }
        Err(message) => return fail(message),
    };
    let store = SessionStore::default();
    let chosen: Vec<String> = if ids.is_empty() {
        store.list().into_iter().map(|meta| meta.id).collect()
    } else {
        match ids.iter().map(|typed| store.session_id(typed)).collect() {
            Ok(ids) => ids,
            Err(message) => return fail(message),
        }
    };
    let turns: Vec<TurnRef> = chosen
        .iter()
        .filter_map(|id| store.load(id).ok())
        .flat_map(|saved| {
            let dir = saved.dir().to_path_buf();
            (0..saved.meta.turns.len()).map(move |index| TurnRef {
                dir: dir.clone(),
                index,
                key: Default::default(),
            })
        })
        .collect();
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let secret = crate::local::summary::configured_keys();
    crate::otel::open_log();
    let tally = runtime.block_on(async {
        let exporter = crate::otel::Exporter::start_backfill(&config, secret)?;
        for turn in turns {
            exporter.turn_waiting(turn).await;
        }
        Ok::<_, String>(exporter.finish(None).await)
    });
    let tally = match tally {
        Ok(tally) => tally,
        Err(message) => return fail(message),
    };
    let endpoint = config.endpoint_label();
    match &tally.error {
        None => {
            // Said whatever became of stdout (`println!` panics on a closed pipe).
            let _ = writeln!(
                std::io::stdout(),
                "Sent {} ({} spans) to {endpoint}",
                crate::otel::export::traces(tally.traces),
                tally.spans
            );
            ExitCode::SUCCESS
        }
        Some(error) => {
            eprintln!(
                "research-tui: the OpenTelemetry collector at {endpoint} failed: {error} \
                 ({} sent, {} not)",
                crate::otel::export::traces(tally.traces),
                tally.failed
            );
            ExitCode::from(1)
        }
    }
}
