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
//!   empty entry) and those inside the linted tree (the current directory, the named paths, and
//!   the work tree or workspace around them, after resolving links), and run with that `PATH`;
//!   `cargo` is `$CARGO` when cargo runs this tool as its subcommand. When no such program
//!   exists, nothing is run.
//! - `git` runs only at the top of the real work tree (the outermost `.git` around a path),
//!   never inside a repository nested in the tree, and never looks into submodules.

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
    // Never look into a nested repository or submodule (`git status` would run there, under its
    // own configuration: the tree's filters).
    "submodule.recurse=false",
    "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false",
];

/// The `PATH` entries a program may come from: absolute ones outside the linted tree (see
/// [`crate::tree::tops`]: the current directory, the named paths, and the work tree or cargo
/// workspace around each), compared after resolving links.
fn safe_path_entries() -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let tops = crate::tree::tops();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| !crate::tree::inside(&crate::tree::real(dir), &tops))
        .collect()
}

/// The `PATH` given to every program this tool runs: its entries that lie outside the tree, so
/// that neither it nor what it runs in turn (cargo's `rustc`, git's helpers) finds a program the
/// tree ships.
pub fn safe_path() -> std::ffi::OsString {
    std::env::join_paths(safe_path_entries()).unwrap_or_default()
}

/// The program `name` as `PATH` finds it, skipping the entries the tree could fill: relative
/// ones (`.`, an empty entry) and those inside the linted tree. `None` when no other entry
/// holds it: then nothing is run.
pub fn find_program(name: &str) -> Option<PathBuf> {
    safe_path_entries()
        .into_iter()
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
/// its own path), else the one `PATH` finds outside the tree; `None` when there is none (the
/// workspace is then read from its manifests).
pub fn cargo() -> Option<PathBuf> {
    std::env::var_os("CARGO")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| find_program("cargo"))
}

/// A `git -C dir` command that nothing in the tree can make run another program; `None` when
/// no `git` lies outside the tree. `dir` must be the top of a real work tree
/// ([`repository_root`]): git is never run inside a repository nested in the tree.
pub fn git(dir: &Path) -> Option<Command> {
    // Looked up once: a run asks for git once per work tree.
    static GIT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let program = GIT.get_or_init(|| find_program("git")).as_ref()?;
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
        .env("PATH", safe_path())
        .env_remove("GIT_EXTERNAL_DIFF");
    Some(command)
}

/// The git work tree holding `dir`, if any: the outermost directory at or above it that holds a
/// `.git` ([`crate::tree::work_tree`]), confirmed by git run there. A repository nested in the
/// tree (`vendor/lib/.git`, a bare repository committed into it) is never taken for the
/// repository of its files, and git never runs inside one.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    let top = crate::tree::work_tree(dir)?;
    let output = git(&top)?
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let shown = PathBuf::from(
        String::from_utf8(output.stdout)
            .ok()?
            .trim_end_matches(['\n', '\r']),
    );
    let shown = std::fs::canonicalize(&shown).unwrap_or(shown);
    // git agrees that `top` is the top of its work tree (not, say, a `.git` file pointing
    // elsewhere that makes some other directory the top).
    (shown == top).then_some(top)
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
        let Some(command) = git(Path::new("/x")) else {
            return;
        };
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
