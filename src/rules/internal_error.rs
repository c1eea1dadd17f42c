//! MCP999 `internal-error`: the tool itself failed (a panic) while analysing a file or while
//! checking a rule. The engine reports it; the rule exists so that the code has a name,
//! documentation and a level. It is never the linted code's fault, and it is never hidden: the
//! engine keeps it out of suppressions and levels, and the command line exits with status 2
//! whenever one is reported.
//!
//! Also here: [`catch`], which runs a piece of the analysis and turns its panic into an error
//! value, and [`silence_caught_panic`], which a process-wide panic hook calls so that a panic
//! that is caught and reported as MCP999 does not also print the runtime's "thread panicked"
//! text on stderr.

use std::cell::{Cell, RefCell};
use std::path::Path;

use crate::diagnostic::{Diagnostic, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};
use crate::source::{ByteSpan, FileId};

pub static META: RuleMeta = RuleMeta {
    code: "MCP999",
    name: "internal-error",
    default_severity: Severity::Error,
    summary: "cargo-mcp-lint itself failed on a file (a bug in the tool, not in your code)",
    fix: FixAvailability::None,
    docs: include_str!("../../rules/MCP999-internal-error.md"),
    status: RuleStatus::Stable,
};

pub struct InternalError;

impl Rule for InternalError {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, _: &RuleContext<'_>, _: &mut Vec<Diagnostic>) {}
}

/// Whether a diagnostic is an internal error.
pub fn is_internal_error(diagnostic: &Diagnostic) -> bool {
    diagnostic.code == META.code
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn report(file: FileId, message: String, panic: &str, still: &str) -> Diagnostic {
    Diagnostic::new(&META, file, ByteSpan::default(), message)
        .with_notes(vec![
            format!("this is a bug in cargo-mcp-lint {VERSION}, not a problem in your code"),
            format!("the tool panicked: {panic}"),
            still.to_string(),
        ])
        .with_help(format!(
            "please report it to the maintainers of cargo-mcp-lint with this file attached (or \
             the smallest part of it that still fails), the tool's version (cargo-mcp-lint \
             {VERSION}) and the notes above"
        ))
}

/// The diagnostic for a file whose analysis panicked.
pub fn analysis_failed(file: FileId, panic: &str) -> Diagnostic {
    report(
        file,
        "cargo-mcp-lint failed while analysing this file (internal error)".to_string(),
        panic,
        "the other files were still linted; this one was not analysed, so findings in it or \
         reached through it may be missing",
    )
}

/// The diagnostic for a rule whose check panicked on a unit (shown at the unit's first file).
pub fn rule_failed(file: FileId, rule: &RuleMeta, panic: &str) -> Diagnostic {
    report(
        file,
        format!(
            "cargo-mcp-lint failed while checking {} `{}` on the code this file belongs to \
             (internal error)",
            rule.code, rule.name
        ),
        panic,
        &format!(
            "the other rules and the other crates were still checked; {}'s findings for this \
             crate may be missing",
            rule.code
        ),
    )
}

/// Run a rule's check, turning a panic into an MCP999 diagnostic at the unit's first file (its
/// findings before the panic are dropped). A unit without files has nothing to show it at, and
/// no rule finds anything there.
pub fn check_caught(rule: &dyn Rule, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let mut found = Vec::new();
    match catch(|| rule.check(context, &mut found)) {
        Ok(()) => out.append(&mut found),
        Err(panic) => {
            if let Some((file, _)) = context.graph.files().first() {
                out.push(rule_failed(*file, rule.meta(), &panic));
            }
        }
    }
}

thread_local! {
    /// Whether this thread is inside [`catch`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// What the panic hook saw of the last panic caught on this thread.
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Run `work`; a panic in it becomes `Err` with the panic's message (and, when the binary's
/// panic hook saw it, where it happened).
pub fn catch<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    let outer = CATCHING.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    CATCHING.with(|c| c.set(outer));
    let seen = CAUGHT.with(|c| c.borrow_mut().take());
    result.map_err(|payload| seen.unwrap_or_else(|| payload_text(payload.as_ref())))
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no message)".to_string()
    }
}

/// For a process-wide panic hook: when the panic happens inside [`catch`], remember its message
/// and location for the MCP999 diagnostic and return `true` (the hook then prints nothing: the
/// diagnostic reports it); otherwise return `false`.
pub fn silence_caught_panic(info: &std::panic::PanicHookInfo<'_>) -> bool {
    if !CATCHING.with(Cell::get) {
        return false;
    }
    let message = payload_text(info.payload());
    let text = match info.location() {
        Some(at) => format!("{message} (at {}:{})", at.file(), at.line()),
        None => message,
    };
    CAUGHT.with(|c| *c.borrow_mut() = Some(text));
    true
}

/// The test hook: the name of a file whose analysis is made to panic, so that tests can see what
/// an internal error does end to end. It comes from [`crate::settings::Settings::panic_on_file`]
/// (set only by Rust code: no configuration key sets it), or, in debug builds only (those `cargo
/// test` runs the binary from), from the undocumented environment variable
/// `CARGO_MCP_LINT_TEST_PANIC`. Release builds never read the variable, and nothing in the linted
/// tree (its files, its configuration) can set either.
pub fn test_panic_file(settings: &crate::settings::Settings) -> Option<String> {
    settings.panic_on_file.clone().or_else(|| {
        if cfg!(debug_assertions) {
            std::env::var("CARGO_MCP_LINT_TEST_PANIC").ok()
        } else {
            None
        }
    })
}

/// Panic when `path`'s file name is the test hook's (see [`test_panic_file`]).
pub fn test_panic(hook: Option<&str>, path: &Path) {
    if let Some(name) = hook {
        if path.file_name().is_some_and(|n| n == name) {
            panic!("the test hook made the analysis of `{name}` panic");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::crate_graph::CrateGraph;
    use crate::analysis::facts::FileFacts;
    use crate::source::SourceMap;

    struct Panics;

    impl Rule for Panics {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, _: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
            out.push(analysis_failed(0, "a partial finding"));
            panic!("a rule's bug");
        }
    }

    #[test]
    fn catch_returns_the_value_or_the_panic_message() {
        assert_eq!(catch(|| 7), Ok(7));
        let failed = catch(|| -> u8 { panic!("boom {}", 1) });
        assert!(failed.is_err_and(|message| message.contains("boom 1")));
        // Outside catch, the hook is not silenced.
        assert!(!CATCHING.with(Cell::get));
    }

    #[test]
    fn a_panicking_rule_becomes_one_internal_error_at_the_units_first_file() {
        let facts = FileFacts::default();
        let graph = CrateGraph::new(vec![(3, &facts)]);
        let sources = SourceMap::default();
        let settings = crate::settings::Settings::default();
        let context = RuleContext {
            graph: &graph,
            sources: &sources,
            settings: &settings,
            sdk: None,
            is_target: false,
            whole_crate: false,
            is_test_target: false,
            memo: Default::default(),
            test_files: &Default::default(),
            gated_files: &Default::default(),
            default_features: None,
            shared_files: &Default::default(),
            libraries: &[],
        };
        let mut out = Vec::new();
        check_caught(&Panics, &context, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].code, "MCP999");
        assert_eq!(out[0].file, 3);
        assert!(out[0].notes.iter().any(|n| n.contains("a rule's bug")));
        assert!(out[0].message.contains("checking MCP999"));
    }

    #[test]
    fn the_hook_fires_only_for_its_file_name() {
        test_panic(None, Path::new("src/boom.rs"));
        test_panic(Some("boom.rs"), Path::new("src/other.rs"));
        assert!(catch(|| test_panic(Some("boom.rs"), Path::new("src/boom.rs"))).is_err());
    }
}
