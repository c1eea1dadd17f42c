//! The stdio family: MCP002 (`stdio-stdout-pollution`) and MCP007 (`stdio-embedded-newline`),
//! about what a server that speaks MCP over its own stdio writes to stdout.
//!
//! Its room: the hooks that collect what functions write to stdout ([`writes`]) and where a file
//! starts serving and how its functions branch ([`serving`]), their facts ([`facts`]), the
//! server model built from them ([`server_model`]: what runs while a target serves), and what
//! both rules share (here: their words, their follow-up, and where stdout is the protocol's).
//! Each rule's check is a file of its own.

use std::collections::BTreeSet;

use crate::analysis::crate_graph::FunctionRef;
use crate::analysis::facts::FileFacts;
use crate::analysis::walk::Collects;
use crate::prefilter::{standalone, MODULE_FILES};
use crate::rules::contract::RuleContext;
use crate::source::{ByteSpan, FileId};

pub mod embedded_newline;
pub mod facts;
pub mod server_model;
pub mod serving;
pub mod stdout_pollution;
pub mod writes;

use server_model::ServingPath;

/// The facts both rules read: the writes to stdout, and the serve sites and branches the server
/// model is built from. Both rules name these collectors, so each runs once when either rule is
/// enabled and not at all when neither is.
pub static COLLECTORS: [&'static dyn Collects; 2] = [&writes::COLLECTOR, &serving::COLLECTOR];

/// The transport of a stdio server: a file that names one is parsed (the rules then look at
/// what else writes to stdout).
pub const STDIO_WORDS: &[&str] = &[
    "stdin()",
    "stdio()",
    "StdioTransport",
    "StdioServerTransport",
];

/// What writes to stdout: looked for in the skipped files of a run that serves MCP over stdio.
pub const STDOUT_WRITERS: &[&str] = &[
    "println!",
    "print!",
    "stdout()",
    "tracing_subscriber",
    "fmt()",
    "fmt::layer",
    "FmtSubscriber",
    "ConsoleAppender",
    "_pretty",
];

/// The words that make a file worth parsing for the family.
pub fn words() -> Vec<String> {
    crate::prefilter::words(STDIO_WORDS)
}

/// What the family looks for in the skipped files: a stdio server's other writers to stdout,
/// and the files that declare modules (the crate roots and `mod.rs` files where a program's
/// sub-commands are dispatched: the serving path runs through them, from `main` to the serve
/// site), once any parsed file serves MCP over stdio.
pub fn follow_up(facts: &[&FileFacts]) -> BTreeSet<String> {
    if facts.iter().any(|f| f.serves_stdio && f.mentions_mcp) {
        standalone(STDOUT_WRITERS)
            .chain([MODULE_FILES.to_string()])
            .collect()
    } else {
        BTreeSet::new()
    }
}

/// What runs while the unit serves MCP over its own stdio (see [`server_model`]), built once per
/// unit for both rules.
pub fn serving_path(context: &RuleContext<'_>) -> std::rc::Rc<ServingPath> {
    context
        .memo
        .get_or_init(|| ServingPath::new(context.graph, entry(context)))
}

/// The program's `main`, when the unit is a target whose root defines one (a binary, example,
/// test or bench target; a library's root has none).
fn entry(context: &RuleContext<'_>) -> Option<FunctionRef> {
    if !context.is_target {
        return None;
    }
    let (_, root) = context.graph.files().first()?;
    let function = root
        .functions
        .iter()
        .position(|f| f.name == "main" && f.self_ty.is_none() && f.module.is_empty())?;
    Some(FunctionRef { file: 0, function })
}

/// Whether code at `span` of `file`, in the function whose whole item is `function`, writes to
/// the protocol stream when it writes to stdout: the unit serves MCP, it is not a test or bench
/// target, and the code runs while the unit serves stdio (or on the way to serving it).
pub fn stdout_is_protocol_at(
    context: &RuleContext<'_>,
    file: FileId,
    function: ByteSpan,
    span: ByteSpan,
) -> bool {
    !context.is_test_target
        && context.serves_mcp()
        && serving_path(context).runs_while_serving(file, function, span)
}

/// Whether code at `span`, in the function whose whole item is `function`, runs only while the
/// unit serves stdio: a fix that changes its stdout writes changes nothing else the program does.
pub fn runs_only_while_serving(
    context: &RuleContext<'_>,
    file: FileId,
    function: ByteSpan,
    span: ByteSpan,
) -> bool {
    serving_path(context).runs_only_while_serving(file, function, span)
}
