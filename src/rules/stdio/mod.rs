//! The stdio family: MCP002 (`stdio-stdout-pollution`) and MCP007 (`stdio-embedded-newline`),
//! about what a server that speaks MCP over its own stdio writes to stdout.
//!
//! Its room: the hooks that collect what functions write to stdout ([`writes`]) and where a file
//! starts serving and how its functions branch ([`serving`]), their facts ([`facts`]), the
//! server model built from them ([`server_model`]: what runs while a target serves), and what
//! both rules share (here: their words, their follow-up, and where stdout is the protocol's).
//! Each rule's check is a file of its own.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use crate::analysis::crate_graph::FunctionRef;
use crate::analysis::facts::FileFacts;
use crate::analysis::walk::Collects;
use crate::prefilter::{standalone, MODULE_FILES};
use crate::rules::contract::RuleContext;
use crate::source::{ByteSpan, FileId};

pub mod embedded_newline;
pub mod exits;
pub mod facts;
pub mod locks;
pub mod server_model;
pub mod serving;
pub mod stdout_pollution;
pub mod terminal;
pub mod writes;

use server_model::ServingPath;

/// The facts both rules read: the writes to stdout, and the serve sites and branches the server
/// model is built from. Both rules name these collectors, so each runs once when either rule is
/// enabled and not at all when neither is.
pub static COLLECTORS: [&'static dyn Collects; 2] = [&writes::COLLECTOR, &serving::COLLECTOR];

/// The transport of a stdio server: a file that names one is parsed (the rules then look at
/// what else writes to stdout). `_stdio` and `stdio_` for the calls named for serving stdio
/// (`serve_stdio(server)`, `run_stdio()`, `start_stdio_server()`).
pub const STDIO_WORDS: &[&str] = &[
    "stdin()",
    "stdio()",
    "StdioTransport",
    "StdioServerTransport",
    "_stdio",
    "stdio_",
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
/// the files that declare modules (the crate roots and `mod.rs` files where a program's
/// sub-commands are dispatched: the serving path runs through them, from `main` to the serve
/// site), and the files that define a `main` (a binary whose `main` calls into its library to
/// set up logging and serve, with no module of its own and no word of the family), once any
/// parsed file serves MCP over stdio.
pub fn follow_up(facts: &[&FileFacts]) -> BTreeSet<String> {
    if facts.iter().any(|f| f.serves_stdio && f.mentions_mcp) {
        // The files on the way from `main` to a serve site need not write anything themselves
        // (`cli::serve::run` starting a runtime for `start_server`): the waves look for the
        // calls of the functions that hold a serve site.
        let toward = toward_serving_names(facts)
            .into_iter()
            .map(|name| format!("{}{name}(", crate::prefilter::STANDALONE));
        // The files the serving code calls into, which may write nothing themselves (a tool
        // dispatcher between the stdio loop and the commands that print): one step down.
        let down = called_from_serving_files(facts)
            .into_iter()
            .flat_map(|name| {
                let standalone = crate::prefilter::STANDALONE;
                [
                    format!("{standalone}fn {name}("),
                    format!("{standalone}fn {name}<"),
                ]
            });
        standalone(STDOUT_WRITERS)
            .chain(standalone(&["fn main"]))
            .chain([MODULE_FILES.to_string()])
            .chain(toward)
            .chain(down)
            .collect()
    } else {
        BTreeSet::new()
    }
}

/// The names of the parsed free functions that hold a serve site (`start_server`), which the
/// follow-up waves look for the calls of: one step up from the serve site, and not for names
/// so common that looking for them would read most files (`new`, `run`, `serve`, ..). A chain
/// longer than that through files that write nothing stays unread.
fn toward_serving_names(facts: &[&FileFacts]) -> BTreeSet<String> {
    const COMMON: &[&str] = &[
        "main", "new", "default", "run", "start", "serve", "init", "build",
    ];
    let mut names = BTreeSet::new();
    for file in facts {
        let sites = facts::serving(file).serve_sites;
        for site in sites {
            names.extend(
                file.function_at(site)
                    .filter(|f| f.self_ty.is_none() && !COMMON.contains(&f.name.as_str()))
                    .map(|f| f.name.clone()),
            );
        }
    }
    names
}

/// The free functions that functions of the files holding a stdio serve site call by path
/// (`tools::call_tool(..)`, `handle(..)`) and that no parsed file defines: their definitions may
/// be in files the pre-filter skipped. Not names as common as `new` or `run`, nor those of
/// types (`Type::f`).
fn called_from_serving_files(facts: &[&FileFacts]) -> BTreeSet<String> {
    const COMMON: &[&str] = &[
        "main",
        "new",
        "default",
        "run",
        "start",
        "serve",
        "init",
        "build",
        "from",
        "into",
        "parse",
        "get",
        "set",
        "spawn",
        "block_on",
        "to_string",
        "from_str",
        "exit",
        "stdin",
        "stdout",
        "stderr",
        "channel",
        "sleep",
        "join",
        "read",
        "write",
    ];
    let defined: std::collections::HashSet<&str> = facts
        .iter()
        .flat_map(|f| f.functions.iter().map(|function| function.name.as_str()))
        .collect();
    let mut names = BTreeSet::new();
    for file in facts {
        if facts::serving(file).serve_sites.is_empty() {
            continue;
        }
        for function in file.functions.iter().filter(|f| !f.in_test) {
            for call in &function.calls {
                let crate::analysis::facts::Callee::Path(segments) = &call.callee else {
                    continue;
                };
                let Some(name) = segments.last() else {
                    continue;
                };
                let qualifier = segments.len().checked_sub(2).and_then(|i| segments.get(i));
                let free =
                    qualifier.is_none_or(|q| q.starts_with(|c: char| c.is_ascii_lowercase()));
                let lowercase = name.starts_with(|c: char| c.is_ascii_lowercase());
                if free
                    && lowercase
                    && !COMMON.contains(&name.as_str())
                    && !defined.contains(name.as_str())
                {
                    names.insert(name.clone());
                }
            }
        }
    }
    names
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

/// Whether the function whose whole item is `function` runs only before the unit starts serving
/// stdio, called on the way to it (a help printer `main` calls first, whose value decides whether
/// `main` goes on to serve), not while it serves.
pub fn called_before_serving(context: &RuleContext<'_>, file: FileId, function: ByteSpan) -> bool {
    serving_path(context).called_before_serving(file, function)
}

/// Whether the function whose whole item is `function` runs before serving, called by a
/// function on the way to serving itself (not through a helper of that prelude).
pub fn called_early(context: &RuleContext<'_>, file: FileId, function: ByteSpan) -> bool {
    serving_path(context).called_early(file, function)
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

/// The calls on the serving path, by the function they reach: (caller, the call's index among
/// its calls). Built once per unit, for the questions asked of a function's callers.
struct PathCalls {
    by_target: HashMap<FunctionRef, Vec<(FunctionRef, usize)>>,
    /// Each file's serving facts, decoded once (see [`facts::serving`]).
    serving: Vec<facts::ServingFacts>,
    /// [`leaves_when_true`]'s answers, by function.
    leaves: std::cell::RefCell<HashMap<FunctionRef, bool>>,
}

fn path_calls(context: &RuleContext<'_>) -> std::rc::Rc<PathCalls> {
    context.memo.get_or_init(|| {
        let graph = context.graph;
        let path = serving_path(context);
        let mut by_target: HashMap<FunctionRef, Vec<(FunctionRef, usize)>> = HashMap::new();
        for caller in graph.all_functions() {
            let facts = graph.function(caller);
            let file_id = graph.file_id(caller);
            for (index, call) in facts.calls.iter().enumerate() {
                if !path.runs_while_serving(file_id, facts.item_span, call.span) {
                    continue;
                }
                for target in graph.callees(caller, call) {
                    by_target.entry(target).or_default().push((caller, index));
                }
            }
        }
        PathCalls {
            by_target,
            serving: graph
                .files()
                .iter()
                .map(|(_, f)| facts::serving(f))
                .collect(),
            leaves: std::cell::RefCell::new(HashMap::new()),
        }
    })
}

/// The function whose whole item is `function` in the graph's file `file`.
fn function_ref(context: &RuleContext<'_>, file: usize, function: ByteSpan) -> Option<FunctionRef> {
    let (_, own) = context.graph.files().get(file)?;
    let index = own.functions.iter().position(|f| f.item_span == function)?;
    Some(FunctionRef {
        file,
        function: index,
    })
}

/// Whether a write that runs only for some values of its function's `bool` parameters (see
/// [`facts::StdoutWrite::runs_if`]), or only on the ways that make it return `true` (see
/// [`facts::StdoutWrite::then_returns_true`]), runs while the unit serves stdio: a call of the
/// function on the serving path passes values that take its branch, or values that are not
/// literals; or a call on the path goes on after the function returns `true`. A function on the
/// path that no call on it reaches (an SDK's handler) is taken.
/// `init_tracing(true)` from the stdio runner never takes `if to_stderr { .. } else { write }`;
/// `if maybe_handle_help(&args) { return Ok(()) }` never serves after the help is printed.
pub fn taken_while_serving(
    context: &RuleContext<'_>,
    file: usize,
    function: ByteSpan,
    write: &facts::StdoutWrite,
) -> bool {
    if write.runs_if.is_empty() && !write.then_returns_true {
        return true;
    }
    let Some(target) = function_ref(context, file, function) else {
        return true;
    };
    if write.then_returns_true && leaves_when_true(context, target, LEAVING_DEPTH) {
        return false;
    }
    if write.runs_if.is_empty() {
        return true;
    }
    let graph = context.graph;
    let calls = path_calls(context);
    let on_path = calls
        .by_target
        .get(&target)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for &(caller, index) in on_path {
        let Some(call) = graph.function(caller).calls.get(index) else {
            continue;
        };
        // `Type::method(receiver, ..)`: its arguments count the receiver, its parameters
        // do not.
        let by_path = matches!(call.callee, crate::analysis::facts::Callee::Path(_));
        if by_path && graph.function(target).has_receiver {
            return true;
        }
        let Some(serving) = calls.serving.get(caller.file) else {
            continue;
        };
        let args = serving
            .bool_args
            .iter()
            .find(|(span, _)| *span == call.span)
            .map(|(_, args)| args.as_slice())
            .unwrap_or_default();
        // Taken unless an argument is the literal that leaves the branch.
        let taken = write
            .runs_if
            .iter()
            .all(|&(param, value)| args.get(param).copied().flatten() != Some(!value));
        if taken {
            return true;
        }
    }
    on_path.is_empty()
}

/// How many wrappers up [`leaves_when_true`] follows a returned value.
const LEAVING_DEPTH: usize = 3;

/// Whether every call on the serving path of `target` makes its caller leave when it returns
/// `true`: the call is the test of `if f(..) { return .. }`, or the value of a function of which
/// the same holds (a wrapper, `fn maybe_handle_help(args) -> bool { help::maybe_handle_help(args)
/// }`), up to `depth` wrappers. At least one such call is needed. Each function's answer is
/// worked out once per unit.
fn leaves_when_true(context: &RuleContext<'_>, target: FunctionRef, depth: usize) -> bool {
    let calls = path_calls(context);
    if let Some(&known) = calls.leaves.borrow().get(&target) {
        return known;
    }
    let graph = context.graph;
    let on_path = calls
        .by_target
        .get(&target)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let leaves = !on_path.is_empty()
        && on_path.iter().all(|&(caller, index)| {
            let Some(call) = graph.function(caller).calls.get(index) else {
                return false;
            };
            let Some(serving) = calls.serving.get(caller.file) else {
                return false;
            };
            serving.leaving_tests.contains(&call.span)
                || (depth > 0
                    && caller != target
                    && serving.returned_calls.contains(&call.span)
                    && leaves_when_true(context, caller, depth - 1))
        });
    calls.leaves.borrow_mut().insert(target, leaves);
    leaves
}
