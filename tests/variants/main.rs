//! Variant families: every fixture again, through rewrites that keep what the code does.
//!
//! A rule that finds a violation in one form must find it in the forms a developer would as
//! well have written: the crate's own names changed, the receiver bound through a clone, an
//! `Arc` or an `Option` local, the send moved into a new function or wrapped in a local
//! `macro_rules!`, the value it writes handed to a generic writer, the cancel future written as an `async` block, a `match` on the method written
//! as an `if`/`else if` chain, a tuple pattern or a handler table, the code moved into a module's own file (also behind `#[path]`,
//! see [`module`]). Each rewrite edits the fixture's text in place and keeps every line
//! where it was, so the rewritten fixture must give the same findings on the same lines (the
//! codes of the fixture's rule, as the fixture tests compare them; messages may name other
//! names); a statement moved into a new function is reported where it now is, so that rewrite's
//! findings are compared by file. Negative fixtures must stay clean.
//!
//! A rewrite that has nothing to rewrite in a fixture skips it and says why; the harness prints
//! how many fixture × rewrite pairs ran and how many were skipped for each reason. A pair whose
//! findings differ fails, unless it is listed in `tests/variants/differences.txt` (known gaps,
//! each with its reason); a listed pair that no longer differs fails too, so that the list only
//! shrinks.
//!
//! `cargo test --test variants` runs it (one test per rewrite); `MCP_LINT_VARIANT=<rewrite>
//! MCP_LINT_VARIANT_FIXTURE=<rule>/<name>` prints the rewritten text of one pair.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cargo_mcp_lint::engine::{self, Overlay};
use cargo_mcp_lint::result::LintResult;
use cargo_mcp_lint::rules;
use libtest_mimic::{Arguments, Failed, Trial};

mod cancel_future;
mod edit;
mod helper;
mod if_chain;
mod module;
mod receiver;
mod rename;
#[path = "../support/mod.rs"]
mod support;
mod table;
mod tuple_match;
mod wrap;
mod writer;

use edit::{Edits, Text};
use support::fixture::{fixtures, relative, rust_files, settings_for, unit};

/// (file relative to the fixture, line) -> codes found there.
type Findings = BTreeMap<(String, usize), Vec<String>>;

/// One file of a fixture, as a rewrite sees it.
pub struct Input<'a> {
    pub text: Text<'a>,
    pub syntax: &'a syn::File,
    /// Every file of the fixture (this one too): a crate's names are defined in one file and
    /// used in another.
    pub fixture: &'a [syn::File],
    /// The byte ranges of the primary spans of the fixture's findings in this file (the codes
    /// its tests compare).
    pub reported: Vec<(usize, usize)>,
}

struct Rewrite {
    name: &'static str,
    /// The rewrite keeps the reported code on its line (findings compared by line), or moves it
    /// (into a new function: findings compared by file and code, a finding reported where the
    /// code now is).
    by_line: bool,
    /// Why a fixture is skipped when the rewrite finds nothing to rewrite in it.
    nothing: &'static str,
    rewrite: fn(&Input<'_>) -> Edits,
    /// Instead of editing the text in place: the fixture's code moved into a module's file
    /// (see [`module`]).
    module: Option<module::Placement>,
}

/// The text rewrite of a rewrite that moves files instead.
fn no_edits(_: &Input<'_>) -> Edits {
    Edits::default()
}

const REWRITES: &[Rewrite] = &[
    Rewrite {
        name: "rename",
        by_line: true,
        nothing: "defines no name that can be renamed",
        rewrite: rename::rewrite,
        module: None,
    },
    Rewrite {
        name: "receiver_clone",
        by_line: true,
        nothing: "no finding on a method call whose receiver is a field or a path",
        rewrite: receiver::clone,
        module: None,
    },
    Rewrite {
        name: "receiver_arc",
        by_line: true,
        nothing: "no finding on a method call whose receiver is a field or a path",
        rewrite: receiver::arc,
        module: None,
    },
    Rewrite {
        name: "receiver_option",
        by_line: true,
        nothing: "no finding on a method call whose receiver is a field or a path",
        rewrite: receiver::option,
        module: None,
    },
    Rewrite {
        name: "helper",
        by_line: false,
        nothing: "no finding in a one-line statement a new function can take",
        rewrite: helper::rewrite,
        module: None,
    },
    Rewrite {
        name: "helper_of_helper",
        by_line: false,
        nothing: "no finding in a one-line statement a new function can take",
        rewrite: helper::rewrite_twice,
        module: None,
    },
    Rewrite {
        name: "generic_writer",
        by_line: true,
        nothing: "no finding on a `writeln!`/`write!` of one value or a channel's `send`",
        rewrite: writer::rewrite,
        module: None,
    },
    Rewrite {
        name: "macro_wrap",
        by_line: true,
        nothing: "no finding in a statement, an arm's value or a closure's body",
        rewrite: wrap::rewrite,
        module: None,
    },
    Rewrite {
        name: "async_cancel_future",
        by_line: true,
        nothing: "no `select!` branch on `.cancelled()`",
        rewrite: cancel_future::rewrite,
        module: None,
    },
    Rewrite {
        name: "tuple_match",
        by_line: true,
        nothing: "no `match` on string literals with a catch-all",
        rewrite: tuple_match::rewrite,
        module: None,
    },
    Rewrite {
        name: "if_chain",
        by_line: true,
        nothing: "no `match` on string literals with a catch-all",
        rewrite: if_chain::rewrite,
        module: None,
    },
    Rewrite {
        name: "handler_table",
        by_line: true,
        nothing: "no `match` on one string literal per arm with a catch-all, whose arms stay in it",
        rewrite: table::rewrite,
        module: None,
    },
    Rewrite {
        name: "module_file",
        by_line: true,
        nothing: "",
        rewrite: no_edits,
        module: Some(module::Placement::File),
    },
    Rewrite {
        name: "module_path",
        by_line: true,
        nothing: "",
        rewrite: no_edits,
        module: Some(module::Placement::Path),
    },
];

/// A fixture and its findings as the fixture tests see them.
struct Fixture {
    rule_dir: String,
    path: PathBuf,
    /// `<rule>/<name>`, as the differences file names it.
    key: String,
    findings: Findings,
    files: Vec<FixtureFile>,
}

/// A file of a fixture: its text, and the primary spans of the compared findings in it.
struct FixtureFile {
    path: PathBuf,
    text: String,
    reported: Vec<(usize, usize)>,
}

fn compared(rule_dir: &str, code: &str) -> bool {
    code == "MCP000" || rule_dir == "mcp000" || code.eq_ignore_ascii_case(rule_dir)
}

fn lint(fixture: &Path, overlay: &Overlay) -> LintResult {
    engine::lint_with(
        &unit(fixture),
        Path::new("/"),
        overlay,
        &settings_for(fixture),
    )
}

fn findings(result: &LintResult, fixture: &Path, rule_dir: &str) -> Findings {
    let mut found = Findings::new();
    for d in result
        .diagnostics
        .iter()
        .filter(|d| compared(rule_dir, d.code))
    {
        let Some(source) = result.sources.get(d.file) else {
            continue;
        };
        let line = source.line_column(d.span.start).line;
        found
            .entry((relative(&source.path, fixture), line))
            .or_default()
            .push(d.code.to_string());
    }
    found.values_mut().for_each(|codes| codes.sort());
    found
}

fn load(rule_dir: &str, path: &Path) -> Fixture {
    let result = lint(path, &Overlay::new());
    let findings = findings(&result, path, rule_dir);
    let files = rust_files(path)
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let reported = result
                .diagnostics
                .iter()
                .filter(|d| compared(rule_dir, d.code))
                .filter(|d| result.sources.get(d.file).is_some_and(|s| s.path == file))
                .map(|d| (d.span.start, d.span.end))
                .collect();
            FixtureFile {
                path: file,
                text,
                reported,
            }
        })
        .collect();
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    Fixture {
        rule_dir: rule_dir.to_string(),
        path: path.to_path_buf(),
        key: format!("{rule_dir}/{name}"),
        findings,
        files,
    }
}

fn all_fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for rule in rules::registry() {
        let rule_dir = rule.meta().code.to_ascii_lowercase();
        let dir = root.join(&rule_dir);
        if !dir.is_dir() {
            continue;
        }
        for path in fixtures(&dir) {
            if rust_files(&path).is_empty() {
                continue;
            }
            out.push(load(&rule_dir, &path));
        }
    }
    out
}

/// What became of one fixture × rewrite pair.
enum Outcome {
    Same,
    Differs(String),
    Skipped(&'static str),
}

/// The rewritten texts of a fixture's changed files, or why there are none.
fn rewritten(fixture: &Fixture, rewrite: &Rewrite) -> Result<Overlay, &'static str> {
    let mut overlay = Overlay::new();
    let mut parsed = Vec::new();
    for file in &fixture.files {
        let Ok(syntax) = syn::parse_file(&file.text) else {
            return Err("does not parse");
        };
        parsed.push(syntax);
    }
    for (
        FixtureFile {
            path,
            text,
            reported,
        },
        syntax,
    ) in fixture.files.iter().zip(&parsed)
    {
        let input = Input {
            text: Text::new(text),
            syntax,
            fixture: &parsed,
            reported: reported.clone(),
        };
        let edits = (rewrite.rewrite)(&input);
        if edits.is_empty() {
            continue;
        }
        let Some(new) = edits.apply(text) else {
            return Err("the rewrite's edits overlap or move a line (a bug of the rewrite)");
        };
        if syn::parse_file(&new).is_err() {
            return Err("the rewritten text does not parse (a bug of the rewrite)");
        }
        overlay.insert(path.clone(), new);
    }
    if overlay.is_empty() {
        return Err(rewrite.nothing);
    }
    Ok(overlay)
}

fn run_pair(fixture: &Fixture, rewrite: &Rewrite) -> Outcome {
    if let Some(placement) = rewrite.module {
        return module::run(fixture, placement);
    }
    let overlay = match rewritten(fixture, rewrite) {
        Ok(overlay) => overlay,
        Err(reason) => return Outcome::Skipped(reason),
    };
    let got = findings(
        &lint(&fixture.path, &overlay),
        &fixture.path,
        &fixture.rule_dir,
    );
    let by_file = |f: &Findings| -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for ((file, _), codes) in f {
            out.entry(file.clone())
                .or_default()
                .extend(codes.iter().cloned());
        }
        out.values_mut().for_each(|c| c.sort());
        out
    };
    if got == fixture.findings || (!rewrite.by_line && by_file(&got) == by_file(&fixture.findings))
    {
        return Outcome::Same;
    }
    let mut report = String::new();
    for (key, codes) in &fixture.findings {
        if got.get(key) != Some(codes) {
            report += &format!("    lost {codes:?} at {}:{}\n", key.0, key.1);
        }
    }
    for (key, codes) in &got {
        if fixture.findings.get(key) != Some(codes) {
            report += &format!("    new {codes:?} at {}:{}\n", key.0, key.1);
        }
    }
    Outcome::Differs(report)
}

/// What `tests/variants/differences.txt` says of a pair.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Listed {
    /// A known gap: the pair runs, and its findings differ.
    Gap,
    /// The fixture cannot take the rewrite: the pair does not run.
    Skip,
}

/// The listed pairs: `gap|skip <rewrite> <rule>/<fixture>  # reason`, by (rewrite, fixture).
fn listed_pairs() -> BTreeMap<(String, String), Listed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/variants/differences.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let kind = match words.first() {
                Some(&"skip") => Listed::Skip,
                _ => Listed::Gap,
            };
            let rewrite = words.get(1).copied().unwrap_or("").to_string();
            let fixture = words.get(2).copied().unwrap_or("").to_string();
            ((rewrite, fixture), kind)
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    ran: usize,
    same: usize,
    known: usize,
    skipped: BTreeMap<String, usize>,
}

fn check_rewrite(
    rewrite: &'static Rewrite,
    fixtures: &[Fixture],
    known: &BTreeMap<(String, String), Listed>,
    tally: &Mutex<Tally>,
) -> Result<(), Failed> {
    let mut failures = String::new();
    let mut local = Tally::default();
    for fixture in fixtures {
        let listed = known.get(&(rewrite.name.to_string(), fixture.key.clone()));
        if listed == Some(&Listed::Skip) {
            *local
                .skipped
                .entry(format!(
                    "{}: the fixture cannot take it (differences.txt says why)",
                    rewrite.name
                ))
                .or_default() += 1;
            continue;
        }
        let listed = listed.is_some();
        match run_pair(fixture, rewrite) {
            Outcome::Same => {
                local.ran += 1;
                local.same += 1;
                if listed {
                    failures += &format!(
                        "  {} {}: listed in differences.txt but the findings are the same now: \
                         take it off the list\n",
                        rewrite.name, fixture.key
                    );
                }
            }
            Outcome::Differs(report) => {
                local.ran += 1;
                if listed {
                    local.known += 1;
                } else {
                    failures += &format!(
                        "  {} {}: the findings differ\n{report}",
                        rewrite.name, fixture.key
                    );
                }
            }
            Outcome::Skipped(reason) => {
                *local
                    .skipped
                    .entry(format!("{}: {reason}", rewrite.name))
                    .or_default() += 1;
                if listed {
                    failures += &format!(
                        "  {} {}: listed in differences.txt but skipped ({reason})\n",
                        rewrite.name, fixture.key
                    );
                }
            }
        }
    }
    if let Ok(mut tally) = tally.lock() {
        tally.ran += local.ran;
        tally.same += local.same;
        tally.known += local.known;
        for (reason, n) in local.skipped {
            *tally.skipped.entry(reason).or_default() += n;
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.into())
    }
}

/// `MCP_LINT_VARIANT=<rewrite> MCP_LINT_VARIANT_FIXTURE=<rule>/<name>`: print the rewritten text
/// of that pair and its findings.
fn show(rewrite: &str, key: &str, fixtures: &[Fixture]) {
    let Some(rewrite) = REWRITES.iter().find(|r| r.name == rewrite) else {
        println!("no rewrite named {rewrite}");
        return;
    };
    let Some(fixture) = fixtures.iter().find(|f| f.key == key) else {
        println!("no fixture {key}");
        return;
    };
    if rewrite.module.is_some() {
        match run_pair(fixture, rewrite) {
            Outcome::Same => println!("the same findings"),
            Outcome::Differs(report) => println!("the findings differ:\n{report}"),
            Outcome::Skipped(reason) => println!("skipped: {reason}"),
        }
        return;
    }
    match rewritten(fixture, rewrite) {
        Ok(overlay) => {
            for (path, text) in &overlay {
                println!("== {}\n{text}", path.display());
            }
            let got = findings(
                &lint(&fixture.path, &overlay),
                &fixture.path,
                &fixture.rule_dir,
            );
            println!("original: {:?}\nrewritten: {got:?}", fixture.findings);
        }
        Err(reason) => println!("skipped: {reason}"),
    }
}

/// The harness can fail: a "rewrite" that does change the code (the reported ranges replaced by
/// `()`) differs on every MCP001 fixture it runs on.
fn a_rewrite_that_changes_behaviour_is_caught(fixtures: &[Fixture]) -> Result<(), Failed> {
    fn blank(input: &Input<'_>) -> Edits {
        let mut edits = Edits::default();
        let mut last_end = 0;
        let mut reported = input.reported.clone();
        reported.sort();
        for (start, end) in reported {
            if start >= last_end && !input.text.slice((start, end)).contains('\n') {
                edits.replace((start, end), "()");
                last_end = end;
            }
        }
        edits
    }
    const BLANK: Rewrite = Rewrite {
        name: "blank",
        by_line: true,
        nothing: "no finding",
        rewrite: blank,
        module: None,
    };
    let mut caught = 0;
    for fixture in fixtures.iter().filter(|f| f.rule_dir == "mcp001") {
        match run_pair(fixture, &BLANK) {
            Outcome::Differs(_) => caught += 1,
            Outcome::Same => {
                return Err(
                    format!("{}: blanking its findings changed nothing", fixture.key).into(),
                )
            }
            Outcome::Skipped(_) => {}
        }
    }
    if caught < 20 {
        return Err(format!("only {caught} fixtures were caught").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let fixtures = Arc::new(all_fixtures());
    if let (Ok(rewrite), Ok(key)) = (
        std::env::var("MCP_LINT_VARIANT"),
        std::env::var("MCP_LINT_VARIANT_FIXTURE"),
    ) {
        show(&rewrite, &key, &fixtures);
        return;
    }
    let known = Arc::new(listed_pairs());
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut trials: Vec<Trial> = REWRITES
        .iter()
        .map(|rewrite| {
            let (fixtures, known, tally) = (fixtures.clone(), known.clone(), tally.clone());
            Trial::test(format!("variants::{}", rewrite.name), move || {
                check_rewrite(rewrite, &fixtures, &known, &tally)
            })
        })
        .collect();
    let (fixtures_for_stale, known_for_stale) = (fixtures.clone(), known.clone());
    trials.push(Trial::test("variants::differences_name_pairs", move || {
        let stale: Vec<String> = known_for_stale
            .keys()
            .filter(|(rewrite, key)| {
                !REWRITES.iter().any(|r| r.name == rewrite)
                    || !fixtures_for_stale.iter().any(|f| &f.key == key)
            })
            .map(|(rewrite, key)| format!("{rewrite} {key}"))
            .collect();
        if stale.is_empty() {
            Ok(())
        } else {
            Err(format!("differences.txt names no such rewrite or fixture: {stale:?}").into())
        }
    }));
    let fixtures_for_self = fixtures.clone();
    trials.push(Trial::test(
        "variants::a_rewrite_that_changes_behaviour_is_caught",
        move || a_rewrite_that_changes_behaviour_is_caught(&fixtures_for_self),
    ));
    let conclusion = libtest_mimic::run(&args, trials);
    if let Ok(tally) = tally.lock() {
        if tally.ran + tally.skipped.values().sum::<usize>() > 0 {
            println!(
                "variants: {} fixture × rewrite pairs ran over {} fixtures and {} rewrites: {} \
                 with the same findings, {} known differences (tests/variants/differences.txt)",
                tally.ran,
                fixtures.len(),
                REWRITES.len(),
                tally.same,
                tally.known
            );
            for (reason, n) in &tally.skipped {
                println!("  skipped {n}: {reason}");
            }
        }
    }
    conclusion.exit();
}
