//! Driving the real binary in a detached tmux session (its own tmux server): started with
//! `start`, driven with `send-keys` (keys, pasted text, SGR mouse events), read with `capture-pane`.

use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub use super::BIN;
static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// These tests drive the real binary in tmux; without it they fail rather than pass unseen.
fn require_tmux() {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "tmux is required for the end-to-end tests (apt-get install tmux)"
    );
}

pub struct Tmux {
    socket: String,
    pub session: String,
    pub dir: tempfile::TempDir,
}

impl Tmux {
    pub fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Start the app with `args` in a `width`×`height` window.
    pub fn start(width: u16, height: u16, args: &[&str]) -> Tmux {
        Tmux::start_with_env(width, height, &[], args)
    }

    /// Like [`Tmux::start`], with extra `NAME=value` environment entries.
    pub fn start_with_env(width: u16, height: u16, env: &[&str], args: &[&str]) -> Tmux {
        let t = Tmux::new();
        // Once the app is gone the shell records its exit status, says so on the (main) screen and
        // stays, so the restored terminal can be inspected.
        let status = t.dir.path().join("exit-status");
        let mut command = vec![
            "sh".to_owned(),
            "-c".into(),
            format!(
                "\"$@\"; echo $? > '{}'; echo 'the app exited'; sleep 120",
                status.display()
            ),
            "sh".into(),
            "env".into(),
        ];
        command.extend(t.env_args(env));
        command.push(BIN.into());
        command.extend(args.iter().map(|a| a.to_string()));
        t.new_session(width, height, &command);
        t
    }

    /// An interactive shell with job control (bash, prompt `$ `) in a `width`×`height` window,
    /// isolated as [`Tmux::start`] isolates the app, `$APP` naming the binary: the test types the
    /// command line as a person does.
    pub fn shell(width: u16, height: u16) -> Tmux {
        let t = Tmux::new();
        let mut command = vec!["env".to_owned()];
        command.extend(t.env_args(&[&format!("APP={BIN}"), "PS1=$ "]));
        command.extend(["bash", "--norc", "--noprofile", "-i"].map(str::to_owned));
        t.new_session(width, height, &command);
        t
    }

    /// A tmux server of its own and a folder for the app's files.
    fn new() -> Tmux {
        require_tmux();
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        Tmux {
            socket: format!("research-tui-e2e-{}-{n}", std::process::id()),
            session: format!("e2e{n}"),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Run `command` in a detached `width`×`height` session, in the app's folder.
    fn new_session(&self, width: u16, height: u16, command: &[String]) {
        let w = width.to_string();
        let h = height.to_string();
        let cwd = self.dir.path().display().to_string();
        let mut full: Vec<&str> = vec![
            "new-session",
            "-d",
            "-x",
            &w,
            "-y",
            &h,
            "-s",
            &self.session,
            "-c",
            &cwd,
        ];
        full.extend(command.iter().map(String::as_str));
        let out = self.tmux(&full);
        assert!(out.status.success(), "tmux new-session: {out:?}");
    }

    /// The same isolation as `support::cli`, but config, cache and data share the session's
    /// folder, where the tests look for what the app wrote; then `env`'s `NAME=value` entries.
    fn env_args(&self, env: &[&str]) -> Vec<String> {
        let mut args = super::unset_args();
        args.extend([
            format!("XDG_CONFIG_HOME={}", self.dir.path().display()),
            format!("XDG_CACHE_HOME={}", self.dir.path().display()),
            format!("XDG_DATA_HOME={}", self.dir.path().display()),
            format!("XDG_STATE_HOME={}", self.dir.path().display()),
            "TERM=xterm-256color".into(),
        ]);
        args.extend(env.iter().map(|e| e.to_string()));
        args
    }

    pub fn capture(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn send(&self, keys: &[&str]) {
        for (i, key) in keys.iter().enumerate() {
            let before = (*key == "Escape" && i + 1 < keys.len()).then(|| self.capture());
            self.tmux(&["send-keys", "-t", &self.session, key]);
            match before {
                // An Esc and the key after it in one read are Alt-key: before the next key, wait
                // (up to a second) for the app to show it took the Esc alone.
                Some(before) => self.wait_for_change(&before, Duration::from_secs(1)),
                // Keys apart, as typed.
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Poll until the screen differs from `before`, or `limit` passes (some keys change nothing).
    fn wait_for_change(&self, before: &str, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit && self.capture() == before {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Paste `text` as a terminal does: bracketed (the app asked for it), line breaks sent as CR.
    pub fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "-b", "e2e", text]);
        self.tmux(&["paste-buffer", "-p", "-b", "e2e", "-t", &self.session]);
        // Apart from the keys sent after it, as a person's would be.
        std::thread::sleep(Duration::from_millis(50));
    }

    /// Files in the app's working directory whose name starts with `prefix`.
    pub fn files_named(&self, prefix: &str) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(self.dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
            .collect()
    }

    pub fn still_running(&self) -> bool {
        !self.dir.path().join("exit-status").exists()
    }

    pub fn pane(&self, format: &str) -> String {
        let out = self.tmux(&["list-panes", "-t", &self.session, "-F", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Poll the screen until `pred` holds.
    pub fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Poll the screen until it stops changing (the same for 200 ms): events sent in a burst,
    /// such as wheel scrolls, have all been drawn, so positions read from it stay true.
    pub fn wait_still(&self, what: &str, timeout: Duration) -> String {
        let start = Instant::now();
        let mut last = self.capture();
        let mut since = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(25));
            let screen = self.capture();
            if screen != last {
                last = screen;
                since = Instant::now();
            } else if since.elapsed() >= Duration::from_millis(200) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; screen:\n{last}");
            }
        }
    }

    /// Wait for the app to exit; returns its exit status.
    pub fn wait_exit(&self, timeout: Duration) -> String {
        let path = self.dir.path().join("exit-status");
        let start = Instant::now();
        loop {
            if let Ok(status) = std::fs::read_to_string(&path)
                && !status.trim().is_empty()
            {
                return status.trim().to_owned();
            }
            if start.elapsed() > timeout {
                panic!("the app did not exit; screen:\n{}", self.capture());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

pub fn status_line(screen: &str) -> &str {
    screen.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("")
}

/// The app exited with status 0, the alternate screen is left and the app's UI is gone.
pub fn assert_exited_and_restored(t: &Tmux) {
    assert_eq!(t.wait_exit(Duration::from_secs(5)), "0", "exit status");
    let screen = t.wait_for("the shell after the app", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    assert_eq!(t.pane("#{alternate_on}"), "0", "alternate screen left");
    assert!(
        !screen.contains("Sources") && !screen.contains("DEMO") && !screen.contains("╭"),
        "the app's UI is gone:\n{screen}"
    );
}

impl Tmux {
    /// A mouse event as the terminal sends it (SGR, 1-based cells): `button` 0 is a left press,
    /// 64/65 the wheel up/down.
    pub fn mouse(&self, button: u8, x: u16, y: u16) {
        let press = format!("\x1b[<{button};{};{}M", x + 1, y + 1);
        let mut sequences = vec![press];
        if button == 0 {
            sequences.push(format!("\x1b[<0;{};{}m", x + 1, y + 1));
        }
        for sequence in sequences {
            let hex: Vec<String> = sequence.bytes().map(|b| format!("{b:02x}")).collect();
            let mut args = vec!["send-keys", "-t", &self.session, "-H"];
            args.extend(hex.iter().map(String::as_str));
            self.tmux(&args);
        }
        // Apart from the next event, as a hand's would be.
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The prompt box's text rows (inside its border), trimmed.
pub fn prompt_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(top) = lines.iter().rposition(|l| l.contains(" Ask ")) else {
        return Vec::new();
    };
    lines[top + 1..]
        .iter()
        .take_while(|l| !l.starts_with('┗') && !l.starts_with('╰'))
        .map(|l| {
            l.trim_matches(|c| c == '┃' || c == '│' || c == ' ')
                .to_owned()
        })
        .collect()
}

/// Run the binary with `args` (no terminal), isolated as by `support::cli` unless `env` says
/// otherwise; its output.
pub fn run_plain(args: &[&str], env: &[(&str, &str)]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut command = super::cli(home.path());
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// Whether the screen (with its escape sequences) holds any foreground or background colour.
pub fn has_color(t: &Tmux) -> bool {
    let out = t.tmux(&["capture-pane", "-p", "-e", "-t", &t.session]);
    let screen = String::from_utf8_lossy(&out.stdout);
    // Each SGR sequence `ESC [ p;…;p m`: a colour is a parameter 30–38, 40–48, 90–97 or 100–107.
    screen.split("\x1b[").skip(1).any(|rest| {
        let Some(params) = rest.split_once('m').map(|(p, _)| p) else {
            return false;
        };
        params.split(';').any(|p| {
            matches!(
                p.parse::<u16>(),
                Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)
            )
        })
    })
}

/// Whether the screen (with its escape sequences) holds 24-bit colors.
pub fn has_24_bit_color(t: &Tmux) -> bool {
    let out = t.tmux(&["capture-pane", "-p", "-e", "-t", &t.session]);
    let screen = String::from_utf8_lossy(&out.stdout);
    screen.contains("38;2;") || screen.contains("48;2;")
}

/// Where `text` starts on `screen` (0-based cell).
pub fn cell_of(screen: &str, text: &str) -> (u16, u16) {
    screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            let at = line.find(text)?;
            Some((line[..at].chars().count() as u16, y as u16))
        })
        .unwrap_or_else(|| panic!("{text:?} on screen:\n{screen}"))
}
