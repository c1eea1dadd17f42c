//! Applying fixes: pick non-overlapping edits, apply them in memory, verify that the file still
//! parses, re-lint, and repeat until nothing applicable is left (or the round cap is hit). Only
//! then are files written, each atomically and only if it did not change on disk meanwhile.

pub mod apply;
pub mod edits;
pub mod vcs;
pub mod write;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::config::Settings;
use crate::diagnostic::{Applicability, Diagnostic, Edit};
use crate::engine::{lint_with, Overlay};
use crate::result::LintResult;
use crate::unit::LintUnit;

/// The most rounds of apply, re-parse and re-lint before giving up (ruff's cap).
pub const MAX_ROUNDS: usize = 100;

#[derive(Debug, Clone, Copy, Default)]
pub struct FixOptions {
    /// Apply unsafe fixes too.
    pub unsafe_fixes: bool,
}

impl FixOptions {
    pub fn applies(&self, applicability: Applicability) -> bool {
        match applicability {
            Applicability::Safe => true,
            Applicability::Unsafe => self.unsafe_fixes,
            Applicability::DisplayOnly => false,
        }
    }
}

/// A file the fixes changed.
#[derive(Debug, Clone)]
pub struct FixedFile {
    pub path: PathBuf,
    pub display_path: String,
    /// The text as read before the first fix.
    pub original: String,
    pub fixed: String,
    /// How many fixes were applied to it.
    pub applied: usize,
    /// The rules whose fixes were applied.
    pub rules: BTreeSet<&'static str>,
}

/// What a fix run did.
#[derive(Debug)]
pub struct FixRun {
    /// The lint of the fixed texts: what is left.
    pub remaining: LintResult,
    /// The files that changed, sorted by path.
    pub files: Vec<FixedFile>,
    /// Fixes that could not be applied: a fix that would break the file, or rules whose fixes did
    /// not converge. Each is an internal error naming the rule.
    pub problems: Vec<String>,
}

impl FixRun {
    pub fn applied(&self) -> usize {
        self.files.iter().map(|f| f.applied).sum()
    }
}

/// Whether a text parses as a Rust file.
pub fn parses(text: &str) -> bool {
    let start = crate::analysis::code_start(text);
    if crate::analysis::nesting::too_deep(&text[start..]).is_some() {
        return false;
    }
    let parsed = syn::parse_file(&text[start..]).is_ok();
    proc_macro2::extra::invalidate_current_thread_spans();
    parsed
}

/// The fixes of this round: every applicable fix whose edits overlap none chosen before it.
fn choose<'r>(
    result: &'r LintResult,
    options: FixOptions,
    frozen: &HashSet<PathBuf>,
) -> Vec<&'r Diagnostic> {
    let mut chosen: Vec<&Diagnostic> = Vec::new();
    let mut edits_so_far: Vec<&Edit> = Vec::new();
    for diagnostic in &result.diagnostics {
        let Some(fix) = &diagnostic.fix else { continue };
        if !options.applies(fix.applicability) || fix.edits.iter().all(|e| is_no_op(result, e)) {
            // A fix that changes nothing would be chosen again in every round.
            continue;
        }
        let blocked = fix.edits.iter().any(|e| {
            result
                .sources
                .get(e.file)
                .is_none_or(|s| frozen.contains(&s.path))
                || edits_so_far.iter().any(|c| edits::overlaps(c, e))
        });
        if !blocked {
            edits_so_far.extend(fix.edits.iter());
            chosen.push(diagnostic);
        }
    }
    chosen
}

/// Whether an edit leaves its file as it is (it replaces a text by the same text).
fn is_no_op(result: &LintResult, edit: &Edit) -> bool {
    result
        .sources
        .get(edit.file)
        .and_then(|s| s.text().get(edit.span.start..edit.span.end))
        .is_some_and(|replaced| replaced == edit.replacement)
}

/// Apply fixes in memory until no applicable fix is left. Nothing is written.
pub fn fix(units: &[LintUnit], cwd: &Path, options: FixOptions) -> FixRun {
    fix_from(units, cwd, options, Overlay::new(), &Settings::default())
}

/// [`fix`], starting from texts that replace some files' contents (the originals of a run are
/// then those texts).
pub fn fix_from(
    units: &[LintUnit],
    cwd: &Path,
    options: FixOptions,
    overlay: Overlay,
    settings: &Settings,
) -> FixRun {
    let mut overlay = overlay;
    let mut files: HashMap<PathBuf, FixedFile> = HashMap::new();
    let mut frozen: HashSet<PathBuf> = HashSet::new();
    let mut problems = Vec::new();
    let mut round = 0;
    loop {
        let result = lint_with(units, cwd, &overlay, settings);
        let chosen = choose(&result, options, &frozen);
        if chosen.is_empty() {
            return finish(result, files, problems);
        }
        if round == MAX_ROUNDS {
            let rules: BTreeSet<&str> = chosen.iter().map(|d| d.code).collect();
            problems.push(format!(
                "internal error: the fixes of {} did not converge after {MAX_ROUNDS} rounds; the files were fixed as far as they got. Please report this.",
                rules.into_iter().collect::<Vec<_>>().join(", ")
            ));
            return finish(result, files, problems);
        }
        round += 1;
        // Per file: its edits, how many fixes touch it, and their rules.
        let mut by_file: HashMap<usize, (Vec<&Edit>, usize, BTreeSet<&'static str>)> =
            HashMap::new();
        for diagnostic in &chosen {
            let Some(fix) = &diagnostic.fix else { continue };
            let mut touched = BTreeSet::new();
            for edit in &fix.edits {
                let entry = by_file.entry(edit.file).or_default();
                entry.0.push(edit);
                entry.2.insert(diagnostic.code);
                touched.insert(edit.file);
            }
            for file in touched {
                if let Some(entry) = by_file.get_mut(&file) {
                    entry.1 += 1;
                }
            }
        }
        let touched = by_file.len();
        crate::timings::phase(
            "apply and verify fixes",
            || {
                for (file_id, (mut file_edits, count, rules)) in by_file {
                    let Some(source) = result.sources.get(file_id) else {
                        continue;
                    };
                    file_edits.sort_by_key(|e| (e.span.start, e.span.end));
                    let joined = crate::edits::join_removals(source.text(), &file_edits);
                    let fixed_text =
                        edits::apply_edits(source.text(), &joined.iter().collect::<Vec<_>>());
                    if !parses(&fixed_text) {
                        frozen.insert(source.path.clone());
                        problems.push(format!(
                            "internal error: the fixes of {} would leave `{}` unparsable, so they were not applied to it. Please report this.",
                            rules.iter().copied().collect::<Vec<_>>().join(", "),
                            source.display_path
                        ));
                        continue;
                    }
                    let entry = files
                        .entry(source.path.clone())
                        .or_insert_with(|| FixedFile {
                            path: source.path.clone(),
                            display_path: source.display_path.clone(),
                            original: source.text().to_string(),
                            fixed: String::new(),
                            applied: 0,
                            rules: BTreeSet::new(),
                        });
                    entry.applied += count;
                    entry.rules.extend(rules);
                    entry.fixed = fixed_text.clone();
                    overlay.insert(source.path.clone(), fixed_text);
                }
            },
            |_| touched,
        );
    }
}

fn finish(
    remaining: LintResult,
    files: HashMap<PathBuf, FixedFile>,
    problems: Vec<String>,
) -> FixRun {
    let mut files: Vec<FixedFile> = files
        .into_values()
        .filter(|f| f.fixed != f.original)
        .collect();
    files.sort_by(|a, b| a.display_path.cmp(&b.display_path));
    FixRun {
        remaining,
        files,
        problems,
    }
}

/// A unified diff of what a fix run changes, `--- a/path` / `+++ b/path` per file, the paths
/// relative to `root` (the repository's top) when the file lies in it, as git writes them, so
/// that `git apply` and `patch -p1` take the diff from there.
pub fn unified_diff(run: &FixRun, root: Option<&Path>) -> String {
    let mut out = String::new();
    for file in &run.files {
        let relative = root
            .and_then(|root| {
                let real = std::fs::canonicalize(&file.path).ok()?;
                let inside = real.strip_prefix(root).ok()?;
                inside.to_str().map(str::to_string)
            })
            .unwrap_or_else(|| file.display_path.trim_start_matches('/').to_string());
        let diff = similar::TextDiff::from_lines(&file.original, &file.fixed);
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(
                    &crate::escape::patch_path(&format!("a/{relative}")),
                    &crate::escape::patch_path(&format!("b/{relative}")),
                )
                .to_string(),
        );
    }
    out
}
