//! What happens to the rules' diagnostics before they are reported: suppression comments
//! (reporting unused and invalid ones), rule levels from the configuration and the command line,
//! and the name of the enclosing function, which keys baselines.

use std::collections::HashMap;
use std::path::Path;

use crate::analysis::facts::FileFacts;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::rules::{self, invalid_suppression, unused_suppression};
use crate::settings::{Level, Settings};
use crate::source::{FileId, SourceFile, SourceMap};
use crate::suppression::{self, Suppression};

/// Whether a suppression's rule name (a code or a name) means `code`.
fn names(name: &str, code: &str) -> bool {
    rules::find(name).is_some_and(|r| r.meta().code == code)
}

fn report(
    meta: &'static rules::RuleMeta,
    file: FileId,
    span: crate::source::ByteSpan,
    message: String,
) -> Diagnostic {
    Diagnostic::new(meta, file, span, message)
}

/// The suppressions of every file that has any.
type Suppressions = HashMap<FileId, Vec<Suppression>>;

/// Which rule of which suppression suppressed something: `used[file][suppression][rule]`.
type Used = HashMap<FileId, Vec<Vec<bool>>>;

/// Apply suppressions and levels, and name each diagnostic's enclosing function.
pub fn apply(
    settings: &Settings,
    sources: &SourceMap,
    facts: &[Option<FileFacts>],
    diagnostics: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let suppressions = file_suppressions(sources, facts);
    let mut used: Used = suppressions
        .iter()
        .map(|(id, list)| {
            (
                *id,
                list.iter().map(|s| vec![false; s.rules.len()]).collect(),
            )
        })
        .collect();
    let mut kept = unsuppressed(diagnostics, sources, &suppressions, &mut used);
    kept.extend(suppression_findings(
        settings,
        sources,
        &suppressions,
        &used,
    ));
    // Levels, then the enclosing function's name.
    kept.into_iter()
        .filter_map(|mut d| {
            let path = sources.get(d.file).map(|s| s.path.as_path())?;
            d.severity = level_severity(settings, &d, path)?;
            d.context = enclosing_function(facts, &d);
            Some(d)
        })
        .collect()
}

/// The suppressions of every file that has any.
fn file_suppressions(sources: &SourceMap, facts: &[Option<FileFacts>]) -> Suppressions {
    let mut suppressions = HashMap::new();
    for (id, source) in sources.iter() {
        // Only analysed files: in a file that does not parse, what a suppression would
        // suppress is unknown.
        let Some(items) = facts
            .get(id)
            .and_then(|f| f.as_ref())
            .map(|f| f.items.as_slice())
        else {
            continue;
        };
        // A text the engine let go holds no suppression comment: it keeps those that do.
        if !source.is_resident() {
            continue;
        }
        let found = suppression::parse(source, items);
        if !found.is_empty() {
            suppressions.insert(id, found);
        }
    }
    suppressions
}

/// The diagnostics no suppression covers; marks in `used` the suppressions that cover one.
fn unsuppressed(
    diagnostics: Vec<Diagnostic>,
    sources: &SourceMap,
    suppressions: &Suppressions,
    used: &mut Used,
) -> Vec<Diagnostic> {
    let mut kept = Vec::with_capacity(diagnostics.len());
    for diagnostic in diagnostics {
        let line = sources
            .get(diagnostic.file)
            .map(|s| s.line_index(s.clamp_offset(diagnostic.span.start)))
            .unwrap_or(0);
        let mut suppressed = false;
        if let Some(list) = suppressions.get(&diagnostic.file) {
            for (index, s) in list.iter().enumerate() {
                if line < s.lines.0 || line > s.lines.1 {
                    continue;
                }
                for (rule, named) in s.rules.iter().enumerate() {
                    if names(&named.name, diagnostic.code) {
                        suppressed = true;
                        if let Some(flags) = used.get_mut(&diagnostic.file) {
                            flags[index][rule] = true;
                        }
                    }
                }
            }
        }
        if !suppressed {
            kept.push(diagnostic);
        }
    }
    kept
}

/// Unused and invalid suppressions, by file.
fn suppression_findings(
    settings: &Settings,
    sources: &SourceMap,
    suppressions: &Suppressions,
    used: &Used,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut files: Vec<&FileId> = suppressions.keys().collect();
    files.sort();
    for &file in files {
        let Some(source) = sources.get(file) else {
            continue;
        };
        for (index, s) in suppressions[&file].iter().enumerate() {
            found.extend(invalid_suppressions(settings, file, s));
            found.extend(unused_suppression(
                settings,
                source,
                file,
                s,
                &used[&file][index],
            ));
        }
    }
    found
}

/// A suppression's rule names that name no rule, and its missing reason where one is required.
fn invalid_suppressions(settings: &Settings, file: FileId, s: &Suppression) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    if s.malformed {
        let mut d = report(
            &invalid_suppression::META,
            file,
            s.comment,
            "this `mcp-lint:` comment is not a suppression, so it suppresses nothing".into(),
        );
        d.help = Some(
            "write `// mcp-lint: allow(RULE, ..)` or `// mcp-lint: allow-file(RULE, ..)`".into(),
        );
        found.push(d);
        return found;
    }
    for named in &s.rules {
        if rules::find(&named.name).is_none() {
            found.push(report(
                &invalid_suppression::META,
                file,
                named.span,
                format!(
                    "`{}` is not a rule: this suppression does nothing for it",
                    named.name
                ),
            ));
        }
    }
    if settings.require_suppression_reason && s.reason.is_none() {
        let mut d = report(
            &invalid_suppression::META,
            file,
            s.comment,
            "this suppression gives no reason".into(),
        );
        d.help = Some("add `-- <why the rule does not apply here>` after the rule list".into());
        found.push(d);
    }
    found
}

/// The finding for a suppression whose rules (all, or some: `flags` says which suppressed
/// something) suppress nothing, if any.
fn unused_suppression(
    settings: &Settings,
    source: &SourceFile,
    file: FileId,
    s: &Suppression,
    flags: &[bool],
) -> Option<Diagnostic> {
    let valid: Vec<(usize, &crate::suppression::NamedRule)> = s
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| rules::find(&r.name).is_some())
        .collect();
    // A rule that is off for this file (allowed, or in preview without preview mode) makes its
    // suppression moot, not unused.
    let enabled = |name: &str| {
        rules::find(name).is_some_and(|r| {
            rules::runs(r.meta(), settings)
                && settings.level(r.meta().code, &source.path) != Some(Level::Allow)
        })
    };
    let unused: Vec<&str> = valid
        .iter()
        .filter(|(i, r)| !flags[*i] && enabled(&r.name))
        .map(|(_, r)| r.name.as_str())
        .collect();
    if unused.is_empty() {
        return None;
    }
    let whole = unused.len() == valid.len() && valid.len() == s.rules.len();
    let message = if whole {
        "this suppression suppresses nothing".to_string()
    } else {
        format!(
            "this suppression does not suppress `{}`",
            unused.join("`, `")
        )
    };
    let mut d = report(&unused_suppression::META, file, s.comment, message);
    if whole {
        d.fix = Some(Fix {
            applicability: Applicability::Safe,
            message: "remove the unused suppression".into(),
            edits: vec![Edit {
                file,
                span: suppression::removal_span(source, s),
                replacement: String::new(),
            }],
        });
    } else {
        d.help = Some(format!("remove `{}` from the list", unused.join("`, `")));
    }
    Some(d)
}

/// The severity a diagnostic is reported with in `path`, or `None` when its rule is allowed
/// there, or does not run (a preview rule without preview mode).
fn level_severity(settings: &Settings, d: &Diagnostic, path: &Path) -> Option<Severity> {
    if !rules::code_runs(d.code, settings) {
        return None;
    }
    let default = rules::find(d.code)
        .map(|r| r.meta().default_severity)
        .unwrap_or(d.severity);
    let severity = settings.severity(d.code, default, path)?;
    // A rule may pick a severity below its default (MCP001's further messages under
    // 2025-11-25); only an explicit level overrides it.
    if settings.level(d.code, path).is_some() {
        Some(severity)
    } else {
        Some(d.severity)
    }
}

/// The name of the innermost function around a diagnostic's primary span.
fn enclosing_function(facts: &[Option<FileFacts>], d: &Diagnostic) -> Option<String> {
    facts
        .get(d.file)
        .and_then(|f| f.as_ref())
        .and_then(|f| {
            f.functions
                .iter()
                .filter(|func| {
                    func.item_span.start <= d.span.start && d.span.start < func.item_span.end
                })
                .min_by_key(|func| func.item_span.end - func.item_span.start)
        })
        .map(|func| func.name.clone())
}
