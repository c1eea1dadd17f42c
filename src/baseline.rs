//! Baselines: record the current findings (`--write-baseline`) and later report only the findings
//! that are not in the record (`--baseline`), so a gate can be turned on in an old code base.
//! Entries are keyed by rule, path and fingerprint (the offending code's text and the enclosing
//! function), so lines inserted above a finding do not make it new.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::fingerprint::fingerprint;
use crate::report::Report;
use crate::result::LintResult;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    pub code: String,
    pub path: String,
    pub fingerprint: String,
    /// For readers of the file; not part of the key.
    #[serde(default)]
    pub message: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct BaselineFile {
    version: u32,
    tool: String,
    findings: Vec<Entry>,
}

fn entry(report: &Report<'_>, d: &Diagnostic) -> Entry {
    let path = report.repository_path(d.file);
    Entry {
        code: d.code.to_string(),
        fingerprint: fingerprint(d, &report.result.sources, &path),
        path,
        message: d.message.clone(),
    }
}

/// Write the report's findings as a baseline. Returns how many were written.
pub fn write(path: &Path, report: &Report<'_>) -> Result<usize, String> {
    let mut findings: Vec<Entry> = report
        .result
        .diagnostics
        .iter()
        .map(|d| entry(report, d))
        .collect();
    findings.sort_by(|a, b| {
        (&a.path, &a.code, &a.fingerprint).cmp(&(&b.path, &b.code, &b.fingerprint))
    });
    let file = BaselineFile {
        version: 1,
        tool: format!("{} {}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
        findings,
    };
    let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
    crate::tree::write_file(path, (text + "\n").as_bytes()).map_err(|e| {
        format!(
            "cannot write the baseline `{}`: {e}",
            crate::escape::inline(&path.display().to_string())
        )
    })?;
    Ok(file.findings.len())
}

/// A loaded baseline.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    counts: HashMap<(String, String, String), usize>,
}

/// The largest baseline read (a finding's entry is about 200 bytes).
const MAX_BASELINE_SIZE: u64 = 64 << 20;

/// Load a baseline file.
pub fn load(path: &Path) -> Result<Baseline, String> {
    let shown = crate::escape::inline(&path.display().to_string()).into_owned();
    let bytes = crate::tree::read_regular(path, MAX_BASELINE_SIZE)
        .map_err(|e| format!("cannot read the baseline: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("the baseline `{shown}` is not UTF-8 text"))?;
    let file: BaselineFile = serde_json::from_str(&text).map_err(|e| {
        format!(
            "`{shown}` is not a baseline written by --write-baseline: {}",
            crate::escape::inline(&e.to_string())
        )
    })?;
    let mut counts = HashMap::new();
    for e in file.findings {
        *counts.entry((e.code, e.path, e.fingerprint)).or_insert(0) += 1;
    }
    Ok(Baseline { counts })
}

/// What applying a baseline did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// Findings hidden because the baseline has them.
    pub hidden: usize,
    /// Baseline entries that matched no finding (fixed since, or changed beyond recognition).
    pub stale: usize,
}

/// Keep the diagnostics the baseline does not hold.
pub fn apply(baseline: &Baseline, report: &Report<'_>) -> (Vec<Diagnostic>, Applied) {
    let mut left = baseline.counts.clone();
    let mut kept = Vec::new();
    let mut hidden = 0;
    for d in &report.result.diagnostics {
        let e = entry(report, d);
        match left.get_mut(&(e.code, e.path, e.fingerprint)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                hidden += 1;
            }
            _ => kept.push(d.clone()),
        }
    }
    let stale = left.values().sum();
    (kept, Applied { hidden, stale })
}

/// `--write-baseline`: record the result's findings in the baseline `path` (file paths relative
/// to `root`). Returns the line that tells the user so.
pub fn record(path: &Path, result: &LintResult, root: Option<PathBuf>) -> Result<String, String> {
    let count = write(path, &Report { result, root })?;
    Ok(format!(
        "Wrote {count} findings to the baseline `{}`.",
        path.display()
    ))
}

/// `--baseline`: drop the result's findings that the baseline `path` holds. Returns a note for the
/// user when it hid findings or holds entries that no longer match.
pub fn filter(
    path: &Path,
    result: &mut LintResult,
    root: Option<PathBuf>,
) -> Result<Option<String>, String> {
    let baseline = load(path)?;
    let (kept, applied) = apply(&baseline, &Report { result, root });
    result.diagnostics = kept;
    Ok((applied.hidden > 0 || applied.stale > 0).then(|| {
        let hidden = match applied.hidden {
            1 => "1 finding".to_string(),
            n => format!("{n} findings"),
        };
        let stale = match applied.stale {
            0 => "none of its entries is stale".to_string(),
            1 => "1 of its entries no longer matches (write it again with --write-baseline to prune it)".to_string(),
            n => format!("{n} of its entries no longer match (write it again with --write-baseline to prune them)"),
        };
        format!("The baseline hid {hidden}; {stale}.")
    }))
}
