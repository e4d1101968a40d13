//! `research-tui serve`: the built-in demo agent on 127.0.0.1 until Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::demo::{Fault, ServerConfig, spawn};

/// `research-tui serve` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    /// Directory of `*.sse` recordings to play instead of the built-in ones (same file names).
    #[arg(long, value_name = "DIR")]
    pub recordings: Option<PathBuf>,
    /// Playback speed factor (2 = twice as fast as recorded; `max`: no pauses, as `replay` takes it).
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    pub speed: f64,
    /// Misbehave on every request: cut, stall or status=N.
    #[arg(long, value_name = "cut|stall|status=N")]
    pub fault: Option<Fault>,
    /// The provider clients will use (only changes the announcement: every route is served).
    #[arg(long, value_enum)]
    pub provider: Option<crate::wire::provider::Provider>,
    #[command(flatten)]
    pub unused: crate::cmd::app::GlobalsUnused,
}

fn parse_speed(s: &str) -> Result<f64, String> {
    if s == "max" {
        // Every pause divided by it is no pause (`Duration::try_from_secs_f64` of 0).
        return Ok(f64::INFINITY);
    }
    match s.parse::<f64>() {
        Ok(speed) if speed > 0.0 => Ok(speed),
        _ => Err(format!("`{s}` is not a positive number or max")),
    }
}

/// `research-tui serve`: run the demo agent until Ctrl-C.
pub fn run_cli(args: ServeArgs) -> ExitCode {
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let config = ServerConfig {
        speed: args.speed,
        recordings_dir: args.recordings,
        fault: args.fault,
        ..ServerConfig::default()
    };
    runtime.block_on(async move {
        let (addr, task) = match spawn(config, args.port).await {
            Ok(bound) => bound,
            Err(e) => {
                eprintln!(
                    "research-tui: cannot start the demo agent on 127.0.0.1:{}: {e} (--port 0 \
                     picks a free port)",
                    args.port
                );
                return ExitCode::from(1);
            }
        };
        eprintln!("research-tui demo agent listening on http://{addr}");
        if let Some(provider) = args.provider {
            let path = provider.spec().endpoint().path;
            eprintln!("{} demo: POST {path}", provider.label());
        }
        tokio::select! {
            _ = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
            _ = task => ExitCode::from(1),
        }
    })
}
