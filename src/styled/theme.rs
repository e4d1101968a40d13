//! Color themes: TOML files with named colors for roles, compiled in; `NO_COLOR` keeps modifiers only.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::local::config::{ConfigError, FileConfig, config_file, read_file_config};

/// The built-in themes, by name.
pub const BUILTIN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub fg: Color,
    pub bg: Color,
    pub accent: Color,
    pub muted: Color,
    pub border: Color,
    pub border_focused: Color,
    pub title: Color,
    pub marker: Color,
    pub highlight_fg: Color,
    pub highlight_bg: Color,
    pub selection_bg: Color,
    pub success: Color,
    pub warning: Color,
    pub error: Color,
    pub heading: Color,
    pub code: Color,
    pub code_bg: Color,
    pub you: Color,
    /// `NO_COLOR`: every color is the terminal default; roles differ by modifiers only.
    pub no_color: bool,
}

#[derive(Debug, Deserialize)]
struct ThemeFile {
    name: Option<String>,
    colors: HashMap<String, String>,
}

impl Default for Theme {
    fn default() -> Self {
        Theme::builtin("dark").expect("the dark theme is valid")
    }
}

impl Theme {
    /// A built-in theme by name (`dark`, `light`, `high-contrast`).
    pub fn builtin(name: &str) -> Option<Theme> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Theme::from_toml(text).ok()
    }

    pub fn names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|(n, _)| *n)
    }

    /// Parse a theme file; colors missing from it keep the dark theme's values.
    pub fn from_toml(text: &str) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut theme = Theme::fallback();
        if let Some(name) = file.name {
            theme.name = name;
        }
        for (role, value) in &file.colors {
            let color = Color::from_str(value)
                .map_err(|_| format!("theme color `{role}`: `{value}` is not a color"))?;
            let slot = match role.as_str() {
                "fg" => &mut theme.fg,
                "bg" => &mut theme.bg,
                "accent" => &mut theme.accent,
                "muted" => &mut theme.muted,
                "border" => &mut theme.border,
                "border_focused" => &mut theme.border_focused,
                "title" => &mut theme.title,
                "marker" => &mut theme.marker,
                "highlight_fg" => &mut theme.highlight_fg,
                "highlight_bg" => &mut theme.highlight_bg,
                "selection_bg" => &mut theme.selection_bg,
                "success" => &mut theme.success,
                "warning" => &mut theme.warning,
                "error" => &mut theme.error,
                "heading" => &mut theme.heading,
                "code" => &mut theme.code,
                "code_bg" => &mut theme.code_bg,
                "you" => &mut theme.you,
                _ => continue,
            };
            *slot = color;
        }
        Ok(theme)
    }

    fn fallback() -> Theme {
        Theme {
            name: "dark".into(),
            fg: Color::Reset,
            bg: Color::Reset,
            accent: Color::Cyan,
            muted: Color::DarkGray,
            border: Color::DarkGray,
            border_focused: Color::Cyan,
            title: Color::White,
            marker: Color::LightBlue,
            highlight_fg: Color::Black,
            highlight_bg: Color::Yellow,
            selection_bg: Color::DarkGray,
            success: Color::Green,
            warning: Color::Yellow,
            error: Color::Red,
            heading: Color::LightCyan,
            code: Color::LightRed,
            code_bg: Color::Reset,
            you: Color::Magenta,
            no_color: false,
        }
    }

    /// Every color as a terminal of `depth` shows it (no 24-bit color where none was announced).
    pub fn for_depth(mut self, depth: crate::styled::colors::ColorDepth) -> Theme {
        for slot in [
            &mut self.fg,
            &mut self.bg,
            &mut self.accent,
            &mut self.muted,
            &mut self.border,
            &mut self.border_focused,
            &mut self.title,
            &mut self.marker,
            &mut self.highlight_fg,
            &mut self.highlight_bg,
            &mut self.selection_bg,
            &mut self.success,
            &mut self.warning,
            &mut self.error,
            &mut self.heading,
            &mut self.code,
            &mut self.code_bg,
            &mut self.you,
        ] {
            *slot = depth.fit(*slot);
        }
        self
    }

    /// Strip colors (for `NO_COLOR`).
    pub fn without_colors(mut self) -> Theme {
        self.no_color = true;
        self
    }

    fn fg_style(&self, color: Color) -> Style {
        if self.no_color {
            Style::new()
        } else {
            Style::new().fg(color)
        }
    }

    pub fn base(&self) -> Style {
        if self.no_color {
            Style::new()
        } else {
            Style::new().fg(self.fg).bg(self.bg)
        }
    }
    pub fn text(&self) -> Style {
        self.fg_style(self.fg)
    }
    pub fn muted(&self) -> Style {
        if self.no_color {
            Style::new().add_modifier(Modifier::DIM)
        } else {
            self.fg_style(self.muted)
        }
    }
    pub fn accent(&self) -> Style {
        self.fg_style(self.accent)
    }
    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg_style(self.border_focused)
                .add_modifier(Modifier::BOLD)
        } else {
            self.fg_style(self.border)
        }
    }
    pub fn title(&self, focused: bool) -> Style {
        let style = self.fg_style(if focused {
            self.border_focused
        } else {
            self.title
        });
        style.add_modifier(Modifier::BOLD)
    }
    pub fn marker(&self) -> Style {
        if self.no_color {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            self.fg_style(self.marker)
        }
    }
    /// Spans supported by the selected source, and its markers.
    pub fn highlight(&self) -> Style {
        if self.no_color {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().fg(self.highlight_fg).bg(self.highlight_bg)
        }
    }
    /// The span `n`/`N` jumped to: highlighted and underlined.
    pub fn focus_span(&self) -> Style {
        self.highlight()
            .add_modifier(Modifier::UNDERLINED | Modifier::BOLD)
    }
    /// A hit of the search (`/`).
    pub fn search_hit(&self) -> Style {
        if self.no_color {
            Style::new().add_modifier(Modifier::UNDERLINED)
        } else {
            Style::new().fg(self.highlight_fg).bg(self.warning)
        }
    }
    /// The search hit shown now: it stands out from the others.
    pub fn search_current(&self) -> Style {
        if self.no_color {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            Style::new()
                .fg(self.highlight_fg)
                .bg(self.accent)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        }
    }
    /// The selected row of a list.
    pub fn selection(&self, focused: bool) -> Style {
        if self.no_color {
            if focused {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new().add_modifier(Modifier::UNDERLINED)
            }
        } else if focused {
            Style::new()
                .bg(self.selection_bg)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().bg(self.selection_bg)
        }
    }
    /// Series `i` of a chart: a color each (cycling); without colors the charts tell series
    /// apart by their fill pattern or marker, so this is plain.
    pub fn series(&self, i: usize) -> Style {
        let palette = [
            self.accent,
            self.warning,
            self.success,
            self.marker,
            self.error,
            self.heading,
        ];
        self.fg_style(palette[i % palette.len()])
    }
    pub fn success(&self) -> Style {
        self.fg_style(self.success)
    }
    pub fn warning(&self) -> Style {
        self.fg_style(self.warning).add_modifier(Modifier::BOLD)
    }
    pub fn error(&self) -> Style {
        self.fg_style(self.error).add_modifier(Modifier::BOLD)
    }
    pub fn heading(&self, level: u8) -> Style {
        let style = self.fg_style(self.heading).add_modifier(Modifier::BOLD);
        if level <= 1 {
            style.add_modifier(Modifier::UNDERLINED)
        } else {
            style
        }
    }
    pub fn code(&self) -> Style {
        if self.no_color {
            Style::new()
        } else {
            Style::new().fg(self.code).bg(self.code_bg)
        }
    }
    pub fn you(&self) -> Style {
        self.fg_style(self.you).add_modifier(Modifier::BOLD)
    }
}

/// Read the config file, if there is one. A broken file is reported, not fatal.
pub fn read_config() -> (FileConfig, Option<String>) {
    read_config_from(&config_file())
}

/// Read a config file for its theme (the key in it is not used here, so its mode does not matter).
/// Missing or unreadable: defaults, no warning.
pub fn read_config_from(path: &Path) -> (FileConfig, Option<String>) {
    match read_file_config(path) {
        Ok(config) => (config, None),
        Err(error @ ConfigError::InvalidToml { .. }) => (
            FileConfig::default(),
            Some(format!("ignoring {}: {}", path.display(), error.problem())),
        ),
        Err(_) => (FileConfig::default(), None),
    }
}

/// Pick the theme: `--theme` first, then the config file, then dark; `NO_COLOR` strips colors.
/// Returns the theme and a warning to show (unknown name, bad config).
pub fn select(cli: Option<&str>, config: &FileConfig, no_color: bool) -> (Theme, Option<String>) {
    let wanted = cli.or(config.theme.as_deref());
    let mut warning = None;
    let theme = match wanted {
        Some(name) => Theme::builtin(name).unwrap_or_else(|| {
            warning = Some(format!(
                "unknown theme `{name}` (have: {}); using dark",
                Theme::names().collect::<Vec<_>>().join(", ")
            ));
            Theme::default()
        }),
        None => Theme::default(),
    };
    let theme = if no_color {
        theme.without_colors()
    } else {
        theme
    };
    (theme, warning)
}

/// `NO_COLOR` is set to something non-empty.
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_theme_parses_and_sets_every_role() {
        for (name, text) in BUILTIN {
            let theme = Theme::from_toml(text).unwrap();
            assert_eq!(theme.name, name);
        }
        assert_eq!(Theme::default().name, "dark");
        assert_ne!(
            Theme::builtin("light").unwrap().fg,
            Theme::builtin("dark").unwrap().fg
        );
    }

    #[test]
    fn the_config_file_sets_the_theme_and_a_broken_one_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "theme = \"light\"\n[other]\nkey = 1\n").unwrap();
        let (config, warning) = read_config_from(&path);
        assert_eq!(config.theme.as_deref(), Some("light"));
        assert!(warning.is_none());
        std::fs::write(&path, "api_key = \"sk-secret-123\"\ntheme = [").unwrap();
        let (config, warning) = read_config_from(&path);
        assert!(config.theme.is_none());
        let warning = warning.unwrap();
        assert!(warning.contains("config.toml"));
        assert!(
            !warning.contains("sk-secret"),
            "the key never reaches the screen"
        );
        let (config, warning) = read_config_from(&dir.path().join("missing.toml"));
        assert!(config.theme.is_none() && warning.is_none());
    }

    #[test]
    fn selection_prefers_the_flag_then_the_config_and_no_color_strips_colors() {
        let config = FileConfig {
            theme: Some("light".into()),
            ..FileConfig::default()
        };
        assert_eq!(select(None, &config, false).0.name, "light");
        assert_eq!(
            select(Some("high-contrast"), &config, false).0.name,
            "high-contrast"
        );
        let (theme, warning) = select(Some("neon"), &config, false);
        assert_eq!(theme.name, "dark");
        assert!(warning.unwrap().contains("neon"));
        let plain = select(None, &FileConfig::default(), true).0;
        assert_eq!(plain.text(), Style::new());
        assert_eq!(
            plain.highlight(),
            Style::new().add_modifier(Modifier::REVERSED)
        );
    }
}
