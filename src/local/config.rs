//! Configuration: the API key, the base URL, the theme, and the directories research-tui uses.
//!
//! The key comes from `BIGDATA_API_KEY`, or from `$XDG_CONFIG_HOME/research-tui/config.toml` only
//! when that file is private to its owner; never from the command line. It is held in
//! [`ApiKey`], whose `Debug`/`Display` never show it.

use std::fmt;
use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;
use etcetera::base_strategy::Xdg;
use serde::Deserialize;

use crate::agent::client::ApiKey;
use crate::wire::provider::Provider;

pub const DEFAULT_BASE_URL: &str = "https://agents.bigdata.com";
pub const API_KEY_ENV: &str = "BIGDATA_API_KEY";
pub const BASE_URL_ENV: &str = "BIGDATA_AGENTS_URL";

/// What `config.toml` may hold, read by [`read_file_config`] for the key loader and the TUI's theme
/// alike. Other keys in the file are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct FileConfig {
    /// Held redacted from the moment it is read; a blank key counts as none.
    #[serde(deserialize_with = "nonblank_key")]
    pub api_key: Option<ApiKey>,
    pub base_url: Option<String>,
    pub theme: Option<String>,
    /// `charts = true`: the app asks the Bigdata.com agent for charts (as `--charts` does).
    pub charts: bool,
    /// `[keys]`: the app's keys by action name (`open_source = "O"`), read by the key map.
    pub keys: toml::Table,
}

impl FileConfig {
    /// The `[keys]` entries in the file's order: each action's name and its keys (`None` when
    /// the value is neither a string nor a list of strings).
    pub fn key_entries(&self) -> Vec<(String, Option<Vec<String>>)> {
        self.keys
            .iter()
            .map(|(name, value)| {
                let keys = match value {
                    toml::Value::String(key) => Some(vec![key.clone()]),
                    toml::Value::Array(keys) => keys
                        .iter()
                        .map(|key| key.as_str().map(str::to_owned))
                        .collect(),
                    _ => None,
                };
                (name.clone(), keys)
            })
            .collect()
    }
}

fn nonblank_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ApiKey>, D::Error> {
    let key = Option::<String>::deserialize(d)?;
    Ok(key
        .map(|k| k.trim().to_owned())
        .filter(|k| !k.is_empty())
        .map(ApiKey::new))
}

/// Where the key came from (shown to the user, never the key itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    Environment,
    ConfigFile,
}

#[derive(Clone)]
pub struct Config {
    pub api_key: Option<ApiKey>,
    pub key_source: Option<KeySource>,
    pub base_url: String,
    pub theme: Option<String>,
    pub config_file: PathBuf,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("key_source", &self.key_source)
            .field("base_url", &self.base_url)
            .field("theme", &self.theme)
            .field("config_file", &self.config_file)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// The file holds a key but others may read it.
    KeyFileTooOpen {
        path: PathBuf,
        mode: u32,
    },
    Unreadable {
        path: PathBuf,
        reason: String,
    },
    /// Not TOML (or a setting of the wrong type), at this line and column (from 1). Never quotes
    /// the file, which may hold the key.
    InvalidToml {
        path: PathBuf,
        at: Option<(usize, usize)>,
    },
}

impl ConfigError {
    /// What is wrong with the file, without its path.
    pub fn problem(&self) -> String {
        match self {
            ConfigError::KeyFileTooOpen { mode, .. } => {
                format!("mode {:o}: other users can read it", mode & 0o777)
            }
            ConfigError::Unreadable { reason, .. } => reason.clone(),
            ConfigError::InvalidToml { at, .. } => match at {
                Some((line, column)) => format!("invalid TOML at line {line}, column {column}"),
                None => "invalid TOML".to_owned(),
            },
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::KeyFileTooOpen { path, mode } => write!(
                f,
                "refusing to read the API key from {} (mode {:o}): other users can read it; run `chmod 600 {}`, or set {API_KEY_ENV} instead",
                path.display(),
                mode & 0o777,
                path.display()
            ),
            ConfigError::Unreadable { path, .. } => {
                write!(f, "cannot read {}: {}", path.display(), self.problem())
            }
            // Every command that reads the file stops on it: going on with the defaults could send
            // the question (and a key from the environment) to an agent the file does not name.
            ConfigError::InvalidToml { path, .. } => write!(
                f,
                "cannot read {}: {}: fix it, or move it aside to use the defaults",
                path.display(),
                self.problem()
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

/// `$XDG_<kind>_HOME/research-tui` when that variable is an absolute path, else the XDG default under
/// the home directory (`~/.config`, `~/.local/share`, `~/.cache`), on every platform. With no home
/// directory at all: the temp dir.
fn app_dir(kind: fn(&Xdg) -> PathBuf) -> PathBuf {
    Xdg::new()
        .map_or_else(|_| std::env::temp_dir(), |xdg| kind(&xdg))
        .join("research-tui")
}

pub fn config_dir() -> PathBuf {
    app_dir(Xdg::config_dir)
}

pub fn data_dir() -> PathBuf {
    app_dir(Xdg::data_dir)
}

pub fn cache_dir() -> PathBuf {
    app_dir(Xdg::cache_dir)
}

/// The diagnostic log file ([`crate::log`]).
pub fn log_file() -> PathBuf {
    cache_dir().join("research-tui.log")
}

/// `config.toml` in [`config_dir`].
pub fn config_file() -> PathBuf {
    config_dir().join("config.toml")
}

impl Config {
    /// Load from the environment and the config file. `base_url_flag` (from `--base-url`) wins over
    /// `BIGDATA_AGENTS_URL`, which wins over the file and the default.
    pub fn load(base_url_flag: Option<&str>) -> Result<Config, ConfigError> {
        Self::load_from(&config_file(), base_url_flag)
    }

    pub fn load_from(path: &Path, base_url_flag: Option<&str>) -> Result<Config, ConfigError> {
        let env_key = std::env::var(API_KEY_ENV)
            .ok()
            .filter(|k| !k.trim().is_empty());
        // With the key in the environment, a broken config file only loses its other settings.
        let file = match read_file_config(path) {
            Ok(file) => file,
            Err(_) if env_key.is_some() => FileConfig::default(),
            Err(e) => return Err(e),
        };
        let (api_key, key_source) = match env_key {
            Some(key) => (Some(ApiKey::new(key.trim())), Some(KeySource::Environment)),
            None => match file.api_key {
                Some(key) => {
                    check_private(path)?;
                    (Some(key), Some(KeySource::ConfigFile))
                }
                None => (None, None),
            },
        };
        let base_url = base_url_flag
            .map(str::to_owned)
            .or_else(|| std::env::var(BASE_URL_ENV).ok().filter(|v| !v.is_empty()))
            .or(file.base_url)
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        Ok(Config {
            api_key,
            key_source,
            base_url: base_url.trim_end_matches('/').to_owned(),
            theme: file.theme,
            config_file: path.to_owned(),
        })
    }
}

/// Where one provider's requests go and the key they carry, by the user's configuration: the shared
/// config for Bigdata.com, the provider's environment variable for the others. `base_url_flag`
/// (`--base-url`) wins over everything.
#[derive(Debug, Clone)]
pub struct LiveTarget {
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    /// Where the user can put a key (for "no API key" messages).
    pub key_hint: String,
}

pub fn live_target(
    provider: Provider,
    base_url_flag: Option<&str>,
) -> Result<LiveTarget, ConfigError> {
    let spec = provider.spec();
    if spec.shared_config {
        let config = Config::load(base_url_flag)?;
        return Ok(LiveTarget {
            base_url: config.base_url,
            api_key: config.api_key,
            key_hint: format!(
                "set {API_KEY_ENV}, or put api_key in {} (mode 600)",
                config.config_file.display()
            ),
        });
    }
    let var = spec.api_key_env;
    let base_url = base_url_flag.unwrap_or(spec.base_url);
    Ok(LiveTarget {
        base_url: base_url.trim_end_matches('/').to_owned(),
        api_key: std::env::var(var)
            .ok()
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty())
            .map(ApiKey::new),
        key_hint: format!("set {var}"),
    })
}

/// Read `config.toml`; a missing file is all defaults. Neither the key's privacy nor the environment
/// is checked here: [`Config::load_from`] does that before it uses a key from the file.
pub fn read_file_config(path: &Path) -> Result<FileConfig, ConfigError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileConfig::default()),
        Err(e) => {
            return Err(ConfigError::Unreadable {
                path: path.to_owned(),
                reason: e.to_string(),
            });
        }
    };
    // TOML is UTF-8: a file that is not is invalid TOML from its first bad byte, said as any other.
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        ConfigError::InvalidToml {
            path: path.to_owned(),
            at: Some(line_and_column(valid, valid.len())),
        }
    })?;
    // Not toml's message: it quotes the offending line, which could be the key itself.
    toml::from_str(&text).map_err(|e: toml::de::Error| ConfigError::InvalidToml {
        path: path.to_owned(),
        at: e.span().map(|span| line_and_column(&text, span.start)),
    })
}

/// The line and column (both from 1, the column in characters) of byte `at` of `text`.
fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// The config file can be read (missing is fine): every command that reads it checks this first,
/// so a broken file is said once, the same way, and stops them all (the app, `open`, `watch`,
/// `replay`, `ask`, with or without `--demo`).
pub fn check_config_file() -> Result<(), ConfigError> {
    read_file_config(&config_file()).map(drop)
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), ConfigError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|e| ConfigError::Unreadable {
            path: path.to_owned(),
            reason: e.to_string(),
        })?
        .permissions()
        .mode();
    // Readable by group or others (write-only bits do not expose the key).
    if mode & 0o044 != 0 {
        return Err(ConfigError::KeyFileTooOpen {
            path: path.to_owned(),
            mode,
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<(), ConfigError> {
    Ok(())
}

/// The pane sizes the app remembers between runs (`+`/`-` change them). They live in their own
/// file next to `config.toml` ([`layout_file`]): the app never rewrites the user's config file, which
/// may hold the key and the user's comments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct PaneSizes {
    /// The Plan and Activity column, in percent of the width.
    pub left: u16,
    /// The Sources column, in percent of the width (it also gets what the answer does not use).
    pub sources: u16,
    /// The answer's text is at most this many columns wide: a comfortable line length.
    pub answer_max: u16,
}

impl PaneSizes {
    pub const LEFT: std::ops::RangeInclusive<u16> = 12..=50;
    pub const SOURCES: std::ops::RangeInclusive<u16> = 15..=60;
    pub const ANSWER_MAX: std::ops::RangeInclusive<u16> = 60..=240;

    /// Within the ranges a layout can use.
    pub fn clamped(self) -> PaneSizes {
        let clamp = |v: u16, r: std::ops::RangeInclusive<u16>| v.clamp(*r.start(), *r.end());
        PaneSizes {
            left: clamp(self.left, Self::LEFT),
            sources: clamp(self.sources, Self::SOURCES),
            answer_max: clamp(self.answer_max, Self::ANSWER_MAX),
        }
    }
}

impl Default for PaneSizes {
    fn default() -> Self {
        PaneSizes {
            left: 24,
            sources: 28,
            answer_max: 100,
        }
    }
}

/// `layout.toml` in [`config_dir`]: the remembered [`PaneSizes`].
pub fn layout_file() -> PathBuf {
    config_dir().join("layout.toml")
}

/// The remembered pane sizes; the defaults when there are none (or the file is not readable).
pub fn read_pane_sizes(path: &Path) -> PaneSizes {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| toml::from_str::<PaneSizes>(&text).ok())
        .unwrap_or_default()
        .clamped()
}

/// Remember `sizes` (written whole to a temporary file, then renamed over the old one).
pub fn write_pane_sizes(path: &Path, sizes: PaneSizes) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = format!(
        "# Pane sizes research-tui remembers (+ and - in the app change them).\n\
         left = {}\nsources = {}\nanswer_max = {}\n",
        sizes.left, sizes.sources, sizes.answer_max
    );
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn write_config(dir: &Path, text: &str, mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("config.toml");
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    // Environment variables are process-wide: these tests only read files and pass the flag.
    #[cfg(unix)]
    #[test]
    fn a_key_in_a_group_readable_config_file_is_refused_with_the_fix() {
        if std::env::var_os(API_KEY_ENV).is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(dir.path(), "api_key = \"sk-secret-123\"\n", 0o640);
        let error = Config::load_from(&path, None).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("chmod 600"), "{message}");
        assert!(!message.contains("sk-secret-123"));
    }

    #[cfg(unix)]
    #[test]
    fn a_key_in_a_private_config_file_is_used_and_never_debug_printed() {
        if std::env::var_os(API_KEY_ENV).is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(
            dir.path(),
            "api_key = \"sk-secret-123\"\ntheme = \"light\"\n",
            0o600,
        );
        let config = Config::load_from(&path, Some("http://127.0.0.1:9/")).unwrap();
        assert_eq!(config.api_key.as_ref().unwrap().expose(), "sk-secret-123");
        assert_eq!(config.key_source, Some(KeySource::ConfigFile));
        assert_eq!(config.base_url, "http://127.0.0.1:9");
        assert_eq!(config.theme.as_deref(), Some("light"));
        assert!(!format!("{config:?}").contains("sk-secret-123"));
    }

    #[cfg(unix)]
    #[test]
    fn group_write_without_read_does_not_expose_the_key() {
        if std::env::var_os(API_KEY_ENV).is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(dir.path(), "api_key = \"k\"\n", 0o620);
        assert!(Config::load_from(&path, None).is_ok());
        let path = write_config(dir.path(), "api_key = \"k\"\n", 0o604);
        assert!(Config::load_from(&path, None).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn charts_in_the_config_file_ask_for_charts_and_default_to_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(dir.path(), "charts = true\n", 0o644);
        assert!(read_file_config(&path).unwrap().charts);
        let path = write_config(dir.path(), "theme = \"dark\"\n", 0o644);
        assert!(!read_file_config(&path).unwrap().charts);
    }

    #[cfg(unix)]
    #[test]
    fn a_world_readable_config_without_a_key_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(dir.path(), "theme = \"dark\"\n", 0o644);
        assert!(Config::load_from(&path, None).is_ok());
    }

    #[test]
    fn the_file_is_read_into_one_struct_with_the_key_trimmed_and_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "api_key = \" sk-secret-123 \"\ntheme = \"light\"\n").unwrap();
        let file = read_file_config(&path).unwrap();
        assert_eq!(file.api_key.as_ref().unwrap().expose(), "sk-secret-123");
        assert_eq!(file.theme.as_deref(), Some("light"));
        assert!(!format!("{file:?}").contains("sk-secret"));
        std::fs::write(&path, "api_key = \"  \"\n").unwrap();
        assert!(read_file_config(&path).unwrap().api_key.is_none());
        std::fs::write(&path, "theme = [").unwrap();
        let message = read_file_config(&path).unwrap_err().to_string();
        let expected = format!(
            "cannot read {}: invalid TOML at line 1, column 10: fix it, or move it aside",
            path.display()
        );
        assert!(message.starts_with(&expected), "{message}");
        std::fs::write(&path, "theme = \"dark\"\n\n[keys]\nhelp = ä").unwrap();
        let message = read_file_config(&path).unwrap_err().to_string();
        assert!(message.contains("at line 4, column 8"), "{message}");
        // Latin-1 `é` on line 2, after two characters (one of them `ä` in UTF-8).
        std::fs::write(&path, b"theme = \"dark\"\n# \xc3\xa4\xe9t\xe9\n").unwrap();
        let message = read_file_config(&path).unwrap_err().to_string();
        assert!(
            message.contains("invalid TOML at line 2, column 4"),
            "{message}"
        );
        let missing = read_file_config(&dir.path().join("missing.toml")).unwrap();
        assert!(missing.api_key.is_none() && missing.theme.is_none());
    }

    #[test]
    fn pane_sizes_are_remembered_in_their_own_file_and_clamped_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("research-tui").join("layout.toml");
        assert_eq!(read_pane_sizes(&path), PaneSizes::default());
        let sizes = PaneSizes {
            left: 30,
            sources: 40,
            answer_max: 120,
        };
        write_pane_sizes(&path, sizes).unwrap();
        assert_eq!(read_pane_sizes(&path), sizes);
        std::fs::write(&path, "left = 99\nsources = 1\n").unwrap();
        let read = read_pane_sizes(&path);
        assert_eq!((read.left, read.sources), (50, 15));
        assert_eq!(read.answer_max, PaneSizes::default().answer_max);
        std::fs::write(&path, "left = [").unwrap();
        assert_eq!(read_pane_sizes(&path), PaneSizes::default());
    }

    #[test]
    fn invalid_toml_errors_do_not_quote_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "api_key = \"sk-secret-123\n").unwrap();
        let message = Config::load_from(&path, None).unwrap_err().to_string();
        assert!(!message.contains("sk-secret"), "{message}");
    }
}
