//! The only programs this tool runs, `git` and `cargo`, set up so that nothing in the linted tree
//! can choose or configure what runs (see `docs/security.md`).
//!
//! - `git` runs with the command-line configuration (which outranks every configuration file)
//!   turning off what can start another program: the file-system monitor, hooks, external diff
//!   and pager; and with `safe.bareRepository=explicit`, so that a bare repository committed into
//!   the tree is never taken for the repository around a file.
//! - `cargo metadata` runs from a fresh empty directory outside the tree, so that neither
//!   rustup's toolchain files (`rust-toolchain.toml`, which can name a toolchain by path) nor
//!   cargo's configuration files (`.cargo/config.toml`: aliases, `[build]`, `[env]`) of the tree
//!   apply; both are looked up from the current directory, never from the manifest's.
//! - Both are found on `PATH` skipping the entries the tree could choose: relative ones (`.`, an
//!   empty entry) and those inside the current directory; `cargo` is `$CARGO` when cargo runs
//!   this tool as its subcommand.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Configuration given to every `git` this tool runs.
const GIT_SAFETY: &[&str] = &[
    "core.fsmonitor=false",
    "safe.bareRepository=explicit",
    "core.hooksPath=/dev/null",
    "diff.external=",
    "core.pager=cat",
    "core.untrackedCache=false",
];

/// The program `name` as `PATH` finds it, skipping the entries that the current directory could
/// choose: relative ones (`.`, an empty entry) and those inside the current directory (the tree).
/// `None` when no other entry holds it.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| std::fs::canonicalize(&d).unwrap_or(d));
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| {
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            !cwd.as_ref().is_some_and(|cwd| real.starts_with(cwd))
        })
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file() || path.with_extension("exe").is_file()
}

/// The `cargo` to run: the one that runs this tool as a subcommand (`$CARGO`, set by cargo to
/// its own path), else the one `PATH` finds outside the tree.
pub fn cargo() -> PathBuf {
    std::env::var_os("CARGO")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| find_program("cargo"))
        .unwrap_or_else(|| PathBuf::from("cargo"))
}

/// A `git -C dir` command that nothing in the tree can make run another program.
pub fn git(dir: &Path) -> Command {
    // Looked up once: a run asks for git once per directory of the files it fixes.
    static GIT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let program = GIT.get_or_init(|| find_program("git").unwrap_or_else(|| PathBuf::from("git")));
    let mut command = Command::new(program);
    for setting in GIT_SAFETY {
        command.arg("-c").arg(setting);
    }
    command
        .arg("--no-pager")
        .arg("-C")
        .arg(dir)
        // Reading the status never writes the index (no lock, nothing left by a kill).
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_EXTERNAL_DIFF");
    command
}

/// The git work tree holding `dir`, if any: git runs only in the nearest directory at or above
/// `dir` that holds a `.git`, so that a bare repository committed into the tree (a directory
/// holding `HEAD`, `objects` and `refs`) is never taken for the repository of its files.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).ok()?;
    let top = absolute
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())?;
    let output = git(top)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let top = PathBuf::from(
        String::from_utf8(output.stdout)
            .ok()?
            .trim_end_matches(['\n', '\r']),
    );
    Some(std::fs::canonicalize(&top).unwrap_or(top))
}

/// The directory `cargo metadata` runs from: a fresh empty one, outside any tree it lints.
pub fn neutral_directory() -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix("mcp-lint-cargo-").tempdir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_git_gets_the_safety_settings_before_its_subcommand() {
        let command = git(Path::new("/x"));
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(args.iter().any(|a| a == "core.fsmonitor=false"), "{args:?}");
        assert!(args.iter().any(|a| a == "safe.bareRepository=explicit"));
        let dash_c = args.iter().position(|a| a == "-C");
        assert_eq!(dash_c, Some(args.len() - 2), "{args:?}");
    }
}
