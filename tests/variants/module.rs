//! A fixture's code moved into a module of its own file: `pub mod moved;` with the code in
//! `src/moved.rs`, or behind `#[path = "code/moved_impl.rs"]`.
//!
//! The fixture becomes a package (a `Cargo.toml` with no dependencies), linted as path mode
//! finds it, twice: once with the code as the crate root (`src/lib.rs`), once with the code in
//! the module's file; the two must give the same findings on the same lines. (The package is the
//! baseline rather than the loose fixture file: a package and a loose file differ in ways that
//! are not the move, a root's `main` for one.) Only single-file fixtures move: a directory
//! fixture's files are modules of their own already.

use std::path::{Path, PathBuf};

use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine::{self, Overlay};

use super::{compared, Fixture, Outcome};

/// Where the module's file is.
#[derive(Clone, Copy)]
pub enum Placement {
    /// `pub mod moved;` and `src/moved.rs`.
    File,
    /// `#[path = "code/moved_impl.rs"] pub mod moved;`.
    Path,
}

impl Placement {
    fn root(self) -> &'static str {
        match self {
            Placement::File => "pub mod moved;\n",
            Placement::Path => "#[path = \"code/moved_impl.rs\"]\npub mod moved;\n",
        }
    }

    fn file(self) -> &'static str {
        match self {
            Placement::File => "src/moved.rs",
            Placement::Path => "src/code/moved_impl.rs",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Placement::File => "file",
            Placement::Path => "path",
        }
    }
}

const MANIFEST: &str = "[package]\nname = \"variant\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// Why a fixture's code cannot move into a module, if it cannot.
fn unmovable(fixture: &Fixture) -> Option<&'static str> {
    if fixture.path.is_dir() {
        return Some("a directory fixture: its files are modules of their own already");
    }
    let text = &fixture.files.first()?.text;
    let Ok(syntax) = syn::parse_file(text) else {
        return Some("does not parse");
    };
    let has_main = syntax
        .items
        .iter()
        .any(|item| matches!(item, syn::Item::Fn(f) if f.sig.ident == "main"));
    if has_main {
        return Some("a program: its `main` stays at the crate root");
    }
    if text.contains("crate::") {
        return Some("names paths from the crate root");
    }
    None
}

/// A package in a fresh directory under the system's temporary one: its files, written.
struct Package(PathBuf);

impl Package {
    fn new(name: &str, files: &[(&str, &str)]) -> Option<Package> {
        let dir = std::env::temp_dir().join(format!(
            "mcp-lint-variant-{}-{}",
            std::process::id(),
            name.replace('/', "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent()?).ok()?;
            std::fs::write(&path, text).ok()?;
        }
        Some(Package(dir))
    }

    /// The compared findings: line -> codes, in the file at `path` (relative); findings in any
    /// other file keyed by line 0 with the file's name in the code.
    fn findings(&self, rule_dir: &str, path: &str) -> Option<Vec<(usize, String)>> {
        let units = path_mode::discover(std::slice::from_ref(&self.0)).ok()?;
        let mut settings = cargo_mcp_lint::config::Settings::default();
        settings.preview = true;
        let result = engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings);
        let mut found = Vec::new();
        for d in result
            .diagnostics
            .iter()
            .filter(|d| compared(rule_dir, d.code))
        {
            let source = result.sources.get(d.file)?;
            if source.path == self.0.join(path) {
                found.push((source.line_column(d.span.start).line, d.code.to_string()));
            } else {
                found.push((0, format!("{} in {}", d.code, source.path.display())));
            }
        }
        found.sort();
        Some(found)
    }
}

impl Drop for Package {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(fixture: &Fixture, placement: Placement) -> Outcome {
    if let Some(reason) = unmovable(fixture) {
        return Outcome::Skipped(reason);
    }
    let Some(text) = fixture.files.first().map(|f| f.text.as_str()) else {
        return Outcome::Skipped("no file");
    };
    let key = format!("{}-{}", fixture.key, placement.name());
    let base = Package::new(
        &format!("{key}-base"),
        &[("Cargo.toml", MANIFEST), ("src/lib.rs", text)],
    );
    let moved = Package::new(
        &format!("{key}-moved"),
        &[
            ("Cargo.toml", MANIFEST),
            ("src/lib.rs", placement.root()),
            (placement.file(), text),
        ],
    );
    let (Some(base), Some(moved)) = (base, moved) else {
        return Outcome::Skipped("the temporary packages could not be written");
    };
    let (Some(before), Some(after)) = (
        base.findings(&fixture.rule_dir, "src/lib.rs"),
        moved.findings(&fixture.rule_dir, placement.file()),
    ) else {
        return Outcome::Skipped("the temporary packages could not be linted");
    };
    if before == after {
        return Outcome::Same;
    }
    let mut report = String::new();
    for finding in before.iter().filter(|f| !after.contains(f)) {
        report += &format!("    lost {} at line {}\n", finding.1, finding.0);
    }
    for finding in after.iter().filter(|f| !before.contains(f)) {
        report += &format!("    new {} at line {}\n", finding.1, finding.0);
    }
    Outcome::Differs(report)
}
