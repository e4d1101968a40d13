//! Build script: the commit the binary is built from, for `--version` (`research-tui 0.1.0
//! (1a2b3c4)`). Outside a git checkout of this package (a crates.io tarball, no `git`), the version
//! is the bare package version: nothing fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env!("CARGO_PKG_VERSION");
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let full = match commit(&manifest_dir) {
        Some(hash) => format!("{version} ({hash})"),
        None => version.to_owned(),
    };
    println!("cargo:rustc-env=RESEARCH_TUI_VERSION={full}");
}

/// The short hash of HEAD, when `dir` is the top of a git checkout; and rerun triggers on the files
/// that move when HEAD does (HEAD itself, the branch's ref, packed refs).
fn commit(dir: &Path) -> Option<String> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    // A checkout that merely contains this package (vendored into another repository) is not ours.
    if Path::new(&top).canonicalize().ok()? != dir.canonicalize().ok()? {
        return None;
    }
    let git_dir = absolute(dir, git(dir, &["rev-parse", "--git-dir"])?);
    let common_dir = absolute(dir, git(dir, &["rev-parse", "--git-common-dir"])?);
    let mut watched = vec![git_dir.join("HEAD"), common_dir.join("packed-refs")];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        let reference = common_dir.join(branch);
        // A packed branch has no file of its own until the next commit writes one: watch the
        // folder it appears in, or that commit would never rerun this script.
        match (reference.exists(), reference.parent()) {
            (false, Some(folder)) => watched.push(folder.to_path_buf()),
            _ => watched.push(reference),
        }
    }
    // A missing path would make cargo rerun the script on every build.
    for path in watched.iter().filter(|path| path.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    git(dir, &["rev-parse", "--short", "HEAD"])
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (output.status.success() && !text.is_empty()).then(|| text.to_owned())
}

fn absolute(dir: &Path, path: String) -> PathBuf {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        path
    } else {
        dir.join(path)
    }
}
