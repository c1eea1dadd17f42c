//! MCP002 `stdio-stdout-pollution`: in a crate that serves MCP over stdio, anything but the
//! transport's own write that reaches stdout corrupts the protocol stream.

use std::collections::BTreeSet;

use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::Vocabulary;

use super::facts::{StdoutKind, StdoutWrite, WriteContent};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};
use crate::source::{ByteSpan, FileId};

pub static META: RuleMeta = RuleMeta {
    code: "MCP002",
    name: "stdio-stdout-pollution",
    default_severity: Severity::Error,
    summary: "a stdio MCP server writes something other than protocol messages to stdout",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../../rules/MCP002-stdio-stdout-pollution.md"),
    status: RuleStatus::Preview,
};

const SPEC: &str = "MCP stdio transport (2025-11-25 basic/transports, 2026-07-28 basic/transports/stdio): \
the server MUST NOT write anything to its stdout that is not a valid MCP message; it MAY write UTF-8 \
strings to stderr for logging";

/// The premise a finding in a feature-gated file could not show (see
/// [`RuleContext::is_feature_gated`]).
const GATED: &str = "preview: this code is compiled only with a feature the package's default \
build leaves off (`#[cfg(feature = ..)] mod ..`, or on the statement or function), so the write \
is not shown to be in the program users build";

/// The premise a finding in a branch chosen by a terminal test could not show (see
/// [`super::terminal`]).
const TTY: &str = "preview: the branch is chosen by a test of whether stdout is a terminal, so \
the write is not shown to run when a client, not a person, reads stdout";

/// The premise a finding in a branch chosen by a global flag could not show (first contact,
/// batch 25's Cloudzy CLI: `if !SILENT.load(..)`, set by the serving branch before it serves).
const FLAG: &str = "preview: the branch is chosen by a flag the program sets at run time (a \
global `FLAG.load(..)`, a thread-local, or a field such as `self.quiet`), so the write is not shown \
to run while the program serves";

/// A child process that shares the server's stdout (see [`super::children`]): a new shape, in
/// preview until first contact measures it.
const CHILD: &str = "preview: a child process that shares the server's stdout is a new shape of \
this rule; give the child `.stdout(Stdio::null())`, `Stdio::piped()` or stderr";

/// The premise a finding not shown to run whenever the program serves could not show (issue
/// 32: certain or silent; see [`super::runs_whenever_serving`]). The rule is in preview since
/// batches 120 and 121 (its shown writes 2 of 3 at first contact); its findings that do not show
/// the premise carry this note, so that the shown writes can be measured apart.
const UNSHOWN: &str = "preview: the write is not shown to run whenever the program serves stdio \
(it lies in a branch, a loop or a closure that the serve site is not in, after the serve call, \
in a function called only from such code, or the way to the serve site chooses the transport at \
run time), so the write is not shown to run while the program serves";

pub struct StdioStdoutPollution;

impl Rule for StdioStdoutPollution {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn collectors(&self) -> &'static [&'static dyn crate::analysis::walk::Collects] {
        &super::COLLECTORS
    }

    fn words(&self, _: &Vocabulary) -> Vec<String> {
        super::words()
    }

    fn follow_up(&self, facts: &[&FileFacts], _: &Vocabulary) -> BTreeSet<String> {
        super::follow_up(facts)
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        // A unit that talks over its own stdio only as a client a value chooses is in preview
        // by first contact (docs/ecosystem.md, batch 14: 57 of 179 true, a server tester whose
        // prints are a person's report in its other modes and in most of that one).
        if !context.preview() && talks_only_as_a_chosen_client(context) {
            return;
        }
        let feature_build = serves_in_a_feature_build(context);
        for (index, (file, facts)) in context.graph.files().iter().enumerate() {
            // A file compiled only with a feature the default build leaves off: whether its
            // writes run in the program users build is not shown (preview; first contact,
            // batch 15: a module behind a feature off by default, five false findings).
            let gated = context.is_feature_gated(*file);
            if gated && !context.preview() {
                continue;
            }
            // The loops that read messages from stdin (see `ServingFacts::stdin_sites`): a
            // write of theirs without text of its own is their answer to the message read
            // (batch 93's mcp-cli writes the string its handler returns), unless it is the
            // value of calls that return text.
            let stdin_sites = super::facts::serving(facts).stdin_sites;
            for function in &super::facts::writes(facts) {
                let item = function.item_span;
                let reads_messages = stdin_sites
                    .iter()
                    .any(|s| item.start <= s.start && s.end <= item.end);
                // Whether a bare newline here may end a message the function writes (once per
                // function, not per write).
                let ends_messages = function.serializes_json
                    && function.writes.iter().any(|w| {
                        !w.in_test
                            && matches!(w.content, WriteContent::Message | WriteContent::Unlabelled)
                    });
                for write in &function.writes {
                    if (in_preview(write.kind) || write.tty_guarded) && !context.preview() {
                        continue;
                    }
                    // A print in a function called on the way to serving, before the program
                    // starts serving, is in preview by first contact (docs/ecosystem.md, batches
                    // 6 and 7: its three findings were false, a help printer whose caller leaves
                    // when it returns `true`); a print in the way itself (`main`'s banner before
                    // its serve loop), or while serving (1 true), stays stable.
                    // A function that the way calls itself and that gives it nothing to
                    // decide by (no value, no `&mut`, no exit) is no such printer (batch 27: a
                    // connection banner; a help text printed for a caller that then leaves is
                    // still preview).
                    let printed = matches!(
                        write.kind,
                        StdoutKind::Println | StdoutKind::Print | StdoutKind::IndicatifPrintln
                    );
                    if printed
                        && !context.preview()
                        && super::called_before_serving(context, *file, function.item_span)
                        && !(decides_nothing(facts, function.item_span)
                            && super::called_early(context, *file, function.item_span))
                    {
                        continue;
                    }
                    let answers =
                        function.serializes_json || (reads_messages && !write.valued_text);
                    if reported(write, answers, ends_messages)
                        && super::stdout_is_protocol_at(
                            context,
                            *file,
                            function.item_span,
                            write.span,
                        )
                        && super::taken_while_serving(context, index, function.item_span, write)
                    {
                        // A statement or function under `#[cfg(feature = "x")]` with `x` off
                        // by default is no more shown to be built (batch 125's tempest_ai),
                        // unless the program serves only in a build with a feature on.
                        let gated = gated
                            || (!feature_build
                                && context.needs_features_off_by_default(&write.features));
                        if gated && !context.preview() {
                            continue;
                        }
                        out.extend(judged(context, index, *file, function, write, gated));
                    }
                }
            }
        }
        library_writes(context, out);
    }
}

/// The finding of a write to stdout that is reported where it is, with the notes of what it
/// does not show (see [`StdioStdoutPollution::check`]).
fn judged(
    context: &RuleContext<'_>,
    index: usize,
    file: FileId,
    function: &super::facts::StdioFunction,
    write: &StdoutWrite,
    gated: bool,
) -> Option<Diagnostic> {
    // A write that a flag decides is in preview (first contact, batches 24,
    // 30 and 32: a `static` and a `thread_local!` quiet flag the MCP tools
    // set around each call, a `quiet` field of the values they build).
    let flagged = super::decided_by_a_flag(context, index, function.item_span, write);
    if flagged && !context.preview() {
        return None;
    }
    // The fix is certain only where the write runs only while serving: a
    // helper shared with a CLI command, or `main` before its sub-commands,
    // also writes a person's output there; and only in a file no other
    // program compiles (batch 81's chasm: the command functions its MCP
    // binary's tools call are its CLI binary's commands too).
    let certain = !context.is_shared(file)
        && super::runs_only_while_serving(context, file, function.item_span, write.span);
    let text = context.sources.get(file).map_or("", |s| s.text());
    // Not shown to run whenever the program serves stdio: preview.
    let shown = super::runs_whenever_serving(context, file, function.item_span, write.span);
    if !shown && !context.preview() {
        return None;
    }
    let found = diagnostic(file, write, certain, text);
    let notes = [
        (gated, GATED),
        (write.kind == StdoutKind::ChildInherits, CHILD),
        (!shown, UNSHOWN),
        (write.tty_guarded, TTY),
        (flagged && !write.tty_guarded, FLAG),
    ];
    Some(with_notes(found, &notes))
}

/// The findings in the workspace's libraries the unit calls into: a write of a library function
/// that a tool handler (or code that runs for a message) reaches, shown to run whenever that
/// code runs (see [`super::server_model::ServingPath`]). Only writes that show it are
/// reported, in preview or not; their fix is never certain, since the library's other callers
/// (a command line, another program) also print there.
fn library_writes(context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    if context.libraries.is_empty() || context.is_test_target {
        return;
    }
    let own: BTreeSet<crate::source::FileId> =
        context.graph.files().iter().map(|(id, _)| *id).collect();
    for (_, library) in context.libraries {
        for (file, facts) in library.files() {
            if own.contains(file) || context.is_feature_gated(*file) {
                continue;
            }
            for function in &super::facts::writes(facts) {
                for write in &function.writes {
                    if in_preview(write.kind)
                        || write.tty_guarded
                        || !reported(write, function.serializes_json, false)
                        || !super::stdout_is_protocol_at(
                            context,
                            *file,
                            function.item_span,
                            write.span,
                        )
                        || !super::runs_whenever_serving(
                            context,
                            *file,
                            function.item_span,
                            write.span,
                        )
                    {
                        continue;
                    }
                    let text = context.sources.get(*file).map_or("", |s| s.text());
                    let found = diagnostic(*file, write, false, text);
                    out.push(
                        match super::serving_path(context)
                            .reached_from_unit(*file, function.item_span)
                        {
                            Some((from, call)) => found.with_label(
                                from,
                                call,
                                "the server's code that runs for a message calls into the library here",
                            ),
                            None => found,
                        },
                    );
                }
            }
        }
    }
}

/// A finding with the notes whose premise holds.
fn with_notes(found: Diagnostic, notes: &[(bool, &'static str)]) -> Diagnostic {
    notes
        .iter()
        .filter(|(holds, _)| *holds)
        .fold(found, |found, (_, note)| found.with_note(*note))
}

/// Whether every serve site of the unit is a client's transport built in one arm of a `match`
/// (see [`super::facts::ServingFacts::chosen_client_sites`]), and it has one.
/// Whether a serve site of the unit lies in code compiled only with a feature: in a file the
/// default build leaves off, or under `#[cfg(feature = ..)]` on its statement or function (the
/// corpus's gitai and virustotal-rs serve only with their `mcp` feature). A write that requires a
/// feature may then be in the very build that serves.
fn serves_in_a_feature_build(context: &RuleContext<'_>) -> bool {
    context.graph.files().iter().any(|(file, facts)| {
        let serving = super::facts::serving(facts);
        serving.feature_gated_sites
            || (!serving.serve_sites.is_empty() && context.is_feature_gated(*file))
    })
}

fn talks_only_as_a_chosen_client(context: &RuleContext<'_>) -> bool {
    let mut any = false;
    for (_, facts) in context.graph.files() {
        let serving = super::facts::serving(facts);
        let chosen: std::collections::HashSet<ByteSpan> =
            serving.chosen_client_sites.iter().copied().collect();
        for site in &serving.serve_sites {
            if !chosen.contains(site) {
                return false;
            }
            any = true;
        }
    }
    any
}

/// The shapes in preview: a writer chosen by a branch (a new shape). A `tracing_subscriber` fmt
/// logger left with its default writer (`fmt::layer()`, `fmt().init()`, `fmt::init()`) was in
/// preview by first contact (docs/ecosystem.md, batches 4 and 5: one false finding, a logger
/// installed in the HTTP branch of a `match` whose stdio branch installs a stderr logger, which
/// the rule now reads) and left it with batches 13 and 14 (29 of 29 true).
fn in_preview(kind: StdoutKind) -> bool {
    matches!(
        kind,
        StdoutKind::TracingFmtChosenStdout | StdoutKind::ChildInherits
    )
}

/// Whether a write to stdout pollutes the stream. Not: test code; a branch off the path that
/// serves (`--version`, another sub-command); a protocol message; a write without text of its
/// own in the transport's write site (a function that serialises the JSON it writes), and a bare
/// newline there that ends a message the function writes (`ends_messages`).
fn reported(write: &StdoutWrite, serializes_json: bool, ends_messages: bool) -> bool {
    if write.in_test || write.off_path {
        return false;
    }
    match write.content {
        WriteContent::Message => false,
        WriteContent::Unlabelled => !serializes_json,
        WriteContent::Text => true,
        WriteContent::Newline => !ends_messages,
    }
}

/// A write's message, and its fix (what the fix says, where it edits, what it writes), by kind.
type MessageAndFix = (String, Option<(&'static str, ByteSpan, &'static str)>);

/// The message and the fix of a write of the kind `kind` whose fix edits at `fix_span`.
fn message_and_fix(kind: StdoutKind, fix_span: ByteSpan) -> MessageAndFix {
    match kind {
        StdoutKind::Println => (
            "`println!` writes to stdout, the stdio transport's protocol stream".to_string(),
            Some(("use `eprintln!`: stderr is for logs", fix_span, "eprintln")),
        ),
        StdoutKind::Print => (
            "`print!` writes to stdout, the stdio transport's protocol stream".to_string(),
            Some(("use `eprint!`: stderr is for logs", fix_span, "eprint")),
        ),
        StdoutKind::IndicatifPrintln => (
            "`indicatif_println!` writes to stdout (it prints with `println!`), the stdio \
             transport's protocol stream"
                .to_string(),
            None,
        ),
        StdoutKind::Handle => (
            "a write to `stdout()` outside the transport corrupts the protocol stream".to_string(),
            None,
        ),
        StdoutKind::TracingFmt => (
            "this `tracing_subscriber` fmt logger writes to stdout (its default), the protocol stream"
                .to_string(),
            Some(("log to stderr: add `.with_writer(std::io::stderr)`", ByteSpan::new(fix_span.end, fix_span.end), ".with_writer(std::io::stderr)")),
        ),
        StdoutKind::TracingFmtInit => (
            "`tracing_subscriber::fmt::init()` logs to stdout (its default), the protocol stream".to_string(),
            Some((
                "log to stderr: build the subscriber with `.with_writer(std::io::stderr)` (unsafe: \
                 `fmt::init()` also reads `RUST_LOG` when the `env-filter` feature is on, which the \
                 builder does only with `.with_env_filter(EnvFilter::from_default_env())`)",
                fix_span,
                "tracing_subscriber::fmt().with_writer(std::io::stderr).init()",
            )),
        ),
        StdoutKind::TracingFmtTryInit => (
            "`tracing_subscriber::fmt::try_init()` logs to stdout (its default), the protocol stream".to_string(),
            Some((
                "log to stderr: build the subscriber with `.with_writer(std::io::stderr)` (unsafe: \
                 `fmt::try_init()` also reads `RUST_LOG` when the `env-filter` feature is on, which \
                 the builder does only with `.with_env_filter(EnvFilter::from_default_env())`)",
                fix_span,
                "tracing_subscriber::fmt().with_writer(std::io::stderr).try_init()",
            )),
        ),
        StdoutKind::TracingFmtToStdout => (
            "this `tracing_subscriber` fmt logger is given a stdout writer, the protocol stream"
                .to_string(),
            None,
        ),
        StdoutKind::TracingFmtChosenStdout => (
            "this `tracing_subscriber` fmt logger is given a writer that is stdout in one branch, the protocol stream"
                .to_string(),
            None,
        ),
        StdoutKind::Log4rsConsole => (
            "this `log4rs` console appender writes to stdout (its default target), the protocol stream"
                .to_string(),
            Some((
                "log to stderr: add `.target(log4rs::append::console::Target::Stderr)`",
                ByteSpan::new(fix_span.end, fix_span.end),
                ".target(log4rs::append::console::Target::Stderr)",
            )),
        ),
        StdoutKind::Log4rsConsoleToStdout => (
            "this `log4rs` console appender's target is not stderr: it writes to the protocol stream"
                .to_string(),
            None,
        ),
        StdoutKind::ChildInherits => (
            "this child process inherits the server's stdout: what it prints goes into the protocol stream"
                .to_string(),
            None,
        ),
    }
}

fn diagnostic(file: usize, write: &StdoutWrite, certain: bool, text: &str) -> Diagnostic {
    let span = write.span;
    let (message, fix) = message_and_fix(write.kind, write.fix_span);
    Diagnostic::new(&META, file, span, message)
        .with_note(SPEC)
        .with_help("write logs to stderr; only the transport writes to stdout")
        .with_fix(fix.map(|(message, span, replacement)| Fix {
            // The builder `fmt::init()` becomes drops its `RUST_LOG` filter: never a safe change.
            // Nor is moving a print of a bare value (`println!("{}", data)`) to stderr: whether it
            // is a message the program relays (a proxy forwarding what a server sent) is not
            // shown, and moving one would take the protocol off stdout.
            applicability: if certain
                && write.kind != StdoutKind::TracingFmtInit
                && write.kind != StdoutKind::TracingFmtTryInit
                && write.content != WriteContent::Unlabelled
            {
                Applicability::Safe
            } else {
                Applicability::Unsafe
            },
            message: message.to_string(),
            // A call added to a builder chain is laid out as rustfmt lays the chain out.
            edits: vec![if span.start == span.end && replacement.starts_with('.') {
                crate::edits::chain_insertion(file, text, span.start, replacement)
            } else {
                Edit {
                    file,
                    span,
                    replacement: replacement.to_string(),
                }
            }],
        }))
}

/// Whether the function whose whole item is `item` gives its caller nothing to decide by (see
/// [`super::facts::ServingFacts::decide_nothing`]).
fn decides_nothing(facts: &FileFacts, item: ByteSpan) -> bool {
    super::facts::serving(facts)
        .decide_nothing
        .iter()
        .any(|body| item.start <= body.start && body.end <= item.end)
}
