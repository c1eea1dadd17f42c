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

use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::FileFacts;
use crate::analysis::walk::Collects;
use crate::prefilter::{standalone, MODULE_FILES};
use crate::rules::contract::RuleContext;
use crate::source::{ByteSpan, FileId};

pub mod children;
pub mod command_flags;
pub mod embedded_newline;
pub mod exits;
pub mod facts;
pub mod library_calls;
pub mod locks;
pub mod must;
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
/// set up logging and serve, with no module of its own and no word of the family), once a
/// parsed file serves over stdio and one speaks MCP.
pub fn follow_up(facts: &[&FileFacts]) -> BTreeSet<String> {
    // The unit serves over stdio and speaks MCP, in the same file or not: a transport type of
    // the crate's own (`StdioTransport`, reading `stdin()`) need not name MCP itself.
    if facts.iter().any(|f| f.serves_stdio) && facts.iter().any(|f| f.mentions_mcp) {
        // Each file's serving facts, decoded once for the questions below.
        let serving: Vec<facts::ServingFacts> = facts.iter().map(|f| facts::serving(f)).collect();
        let handler_types = handler_type_names(&serving);
        // The files on the way from `main` to a serve site need not write anything themselves
        // (`cli::serve::run` starting a runtime for `start_server`): the waves look for the
        // calls of the functions that hold a serve site.
        let toward = toward_serving_names(facts, &serving)
            .into_iter()
            .map(|needle| format!("{}{needle}", crate::prefilter::STANDALONE));
        // The files the serving code calls into, which may write nothing themselves (a tool
        // dispatcher between the stdio loop and the commands that print): one step down.
        let down = called_from_serving_files(facts, &serving, &handler_types)
            .into_iter()
            .flat_map(|name| {
                let standalone = crate::prefilter::STANDALONE;
                [
                    format!("{standalone}fn {name}("),
                    format!("{standalone}fn {name}<"),
                ]
            });
        // The SDK calls the methods of the types that implement its handler traits while it
        // serves: the files that implement one (`impl ServerHandler for Server`), and the
        // files with the other methods of those types (an rmcp `#[tool_router] impl Server`).
        let handlers = handler_types
            .iter()
            .map(|ty| format!("{}impl {ty}", crate::prefilter::STANDALONE));
        standalone(STDOUT_WRITERS)
            .chain(standalone(&["fn main", "ServerHandler for "]))
            .chain([MODULE_FILES.to_string()])
            .chain(toward)
            .chain(down)
            .chain(handlers)
            .collect()
    } else {
        BTreeSet::new()
    }
}

/// Names so common that the follow-up waves looking for them would read most files.
const COMMON_NAMES: &[&str] = &[
    "main", "new", "default", "run", "start", "serve", "init", "build",
];

/// The names of the standard library's and the runtime's functions a crate calls most, which
/// the follow-up does not look for either when the crate calls them.
const COMMON_CALLEES: &[&str] = &[
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

/// The names of the parsed free functions that hold a serve site (`start_server`), which the
/// follow-up waves look for the calls of: one step up from the serve site, and not for names
/// so common that looking for them would read most files (`new`, `run`, `serve`, ..). A chain
/// longer than that through files that write nothing stays unread, but for the files that
/// re-export a function on the way (see [`reexport_needles`]).
fn toward_serving_names(facts: &[&FileFacts], serving: &[facts::ServingFacts]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut holders: BTreeSet<&str> = BTreeSet::new();
    for (file, serving) in facts.iter().zip(serving) {
        for &site in &serving.serve_sites {
            let Some(function) = file.function_at(site) else {
                continue;
            };
            match &function.self_ty {
                None if !COMMON_NAMES.contains(&function.name.as_str()) => {
                    names.insert(format!("{}(", function.name));
                    holders.insert(function.name.as_str());
                }
                // A name too common to look for alone (`mcp::serve`, which `cli::mcp::run`
                // calls for `main`, batch 114's seite): the calls that name its module.
                None => {
                    if let Some(module) = function.module.last() {
                        names.insert(format!("{module}::{}(", function.name));
                    }
                }
                // A method (`McpServer::run`, whose name is too common to look for): the files
                // that make a value of its type, the one it is called on (`let mut server =
                // McpServer::new(settings); server.run().await`, or a struct literal).
                Some(ty) => {
                    names.insert(format!("{ty}::"));
                    names.insert(format!("{ty} {{"));
                }
            }
        }
    }
    names.extend(reexport_needles(facts, &holders));
    names
}

/// The re-exports of the functions on the way to a serve site: of each holder of one (by its
/// name), and of each parsed free function that calls a holder. A caller may reach such a
/// function through a module that only re-exports it (batch 118's devbase: `main` calls
/// `commands::simple::run_mcp(..)`, and `commands/simple.rs` holds nothing but `pub use
/// crate::commands::system::{run_daemon, run_mcp, run_tui};`): that file writes nothing, and
/// without it the way from `main` is not known. Its forms: `::name;`, `name,` and `name}` (in a
/// `use` list).
fn reexport_needles(facts: &[&FileFacts], holders: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut on_the_way: BTreeSet<&str> = holders.clone();
    for file in facts {
        for function in file
            .functions
            .iter()
            .filter(|f| !f.in_test && f.self_ty.is_none())
        {
            let calls_holder = function.calls.iter().any(|call| match &call.callee {
                crate::analysis::facts::Callee::Path(segments) => segments
                    .last()
                    .is_some_and(|last| holders.contains(last.as_str())),
                crate::analysis::facts::Callee::Method { .. } => false,
            });
            if calls_holder && !COMMON_NAMES.contains(&function.name.as_str()) {
                on_the_way.insert(function.name.as_str());
            }
        }
    }
    on_the_way
        .into_iter()
        .flat_map(|name| {
            [
                format!("::{name};"),
                format!("{name},"),
                format!("{name}}}"),
            ]
        })
        .collect()
}

/// The free functions that functions of the files holding a stdio serve site call by path
/// (`tools::call_tool(..)`, `handle(..)`) and that no parsed file defines: their definitions may
/// be in files the pre-filter skipped. Not names as common as `new` or `run`, nor those of
/// types (`Type::f`). The files such a call reaches that are parsed (a dispatcher a wave brought
/// in) are followed in turn: a print two calls below the dispatcher, through handler files with
/// nothing to write, is reached wave after wave. Each file is followed once.
fn called_from_serving_files(
    facts: &[&FileFacts],
    serving: &[facts::ServingFacts],
    handlers: &BTreeSet<String>,
) -> BTreeSet<String> {
    let parsed = ParsedFunctions::of(facts);
    let mut names = BTreeSet::new();
    // The files that serve, and those with methods of a handler type (the SDK calls them
    // while it serves).
    let handles = |f: &crate::analysis::facts::FunctionFacts| {
        f.self_ty.as_ref().is_some_and(|ty| handlers.contains(ty))
    };
    let mut reached: Vec<bool> = facts
        .iter()
        .zip(serving)
        .map(|(file, serving)| {
            !serving.serve_sites.is_empty() || file.functions.iter().any(handles)
        })
        .collect();
    let mut queue: Vec<usize> = (0..facts.len()).filter(|&i| reached[i]).collect();
    while let Some(index) = queue.pop() {
        let file = facts[index];
        for function in file.functions.iter().filter(|f| !f.in_test) {
            for call in &function.calls {
                let segments = match &call.callee {
                    crate::analysis::facts::Callee::Path(segments) => segments,
                    // `server.handle_request(..)`: the parsed files with a method of the name.
                    crate::analysis::facts::Callee::Method { name, .. } => {
                        reach(&mut reached, &mut queue, parsed.methods_named(name));
                        continue;
                    }
                };
                // A bare call of a name the file imports is a call of the imported path.
                let imported = match segments.as_slice() {
                    [name] => file.imports.iter().find(|(n, _)| n == name).map(|(_, p)| p),
                    _ => None,
                };
                let path = imported.unwrap_or(segments);
                match parsed.callee(path) {
                    Callee::Unread(name) => {
                        names.insert(name.to_string());
                    }
                    Callee::In(files) => {
                        reach(&mut reached, &mut queue, files);
                    }
                    Callee::Other => {}
                }
            }
        }
    }
    names
}

/// Marks the files not reached yet as reached, to be followed in turn.
fn reach(reached: &mut [bool], queue: &mut Vec<usize>, files: &[usize]) {
    for &file in files {
        if let Some(seen @ false) = reached.get_mut(file) {
            *seen = true;
            queue.push(file);
        }
    }
}

/// Adds `index` to the files of a name, once (a file's functions come together).
fn add_file(files: &mut Vec<usize>, index: usize) {
    if files.last() != Some(&index) {
        files.push(index);
    }
}

/// Where a call by path goes, for [`called_from_serving_files`].
enum Callee<'s, 'f> {
    /// A crate function no parsed file defines.
    Unread(&'s str),
    /// The parsed files that define a free function the call may reach.
    In(&'f [usize]),
    Other,
}

/// The parsed free functions, by name with their modules, and the crate's own module names,
/// for [`called_from_serving_files`].
struct ParsedFunctions<'f> {
    /// Free functions only: a method of the name (a tool `find_duplicates` calling the free
    /// `find_duplicates` it imports) is not the one called.
    defined: HashMap<&'f str, Vec<&'f [String]>>,
    /// The files that define free functions of a name.
    files: HashMap<&'f str, Vec<usize>>,
    /// The files that define methods (and associated functions) of a name.
    methods: HashMap<&'f str, Vec<usize>>,
    /// A path whose first segment is none of these (nor `crate`, `self`, `super`) names another
    /// crate's function (`std::fs::read_to_string`).
    own_modules: std::collections::HashSet<&'f str>,
}

impl<'f> ParsedFunctions<'f> {
    fn of(facts: &[&'f FileFacts]) -> Self {
        let mut defined: HashMap<&str, Vec<&[String]>> = HashMap::new();
        let mut files: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut methods: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, function) in facts
            .iter()
            .enumerate()
            .flat_map(|(index, f)| f.functions.iter().map(move |function| (index, function)))
        {
            if function.self_ty.is_some() {
                add_file(methods.entry(function.name.as_str()).or_default(), index);
                continue;
            }
            defined
                .entry(function.name.as_str())
                .or_default()
                .push(function.module.as_slice());
            add_file(files.entry(function.name.as_str()).or_default(), index);
        }
        let own_modules = facts
            .iter()
            .flat_map(|f| f.functions.iter())
            .flat_map(|function| function.module.iter().map(String::as_str))
            .chain(
                facts
                    .iter()
                    .flat_map(|f| f.mod_decls.iter().map(|d| d.name.as_str())),
            )
            .chain(["crate", "self", "super"])
            .collect();
        ParsedFunctions {
            defined,
            files,
            methods,
            own_modules,
        }
    }

    /// The parsed files that define a method of this name, unless the name is as common as
    /// `new` or `to_string` (a call of one says little about where it goes).
    fn methods_named(&self, name: &str) -> &[usize] {
        if COMMON_NAMES.contains(&name) || COMMON_CALLEES.contains(&name) {
            return &[];
        }
        self.methods.get(name).map_or(&[], Vec::as_slice)
    }

    /// Where a call by this path goes: a crate function no parsed file defines (see
    /// [`ParsedFunctions::unread_callee`]), or the parsed files that define a free function of
    /// its name in a module whose path ends as the call's does.
    fn callee<'s>(&self, segments: &'s [String]) -> Callee<'s, '_> {
        if let Some(name) = self.unread_callee(segments) {
            return Callee::Unread(name);
        }
        let Some((name, modules)) = segments.split_last() else {
            return Callee::Other;
        };
        let defined_here = self
            .defined
            .get(name.as_str())
            .is_some_and(|found| found.iter().any(|module| names_module(module, modules)));
        match self.files.get(name.as_str()) {
            Some(files) if defined_here && !COMMON_NAMES.contains(&name.as_str()) => {
                Callee::In(files)
            }
            _ => Callee::Other,
        }
    }

    /// The name of a crate function a call by this path reaches that no parsed file defines:
    /// a free function (not `Type::f`), not of a name as common as `new` or `run`, of the
    /// crate's own modules, and not defined in a module whose path ends as the call's does (a
    /// CLI's own `find` does not define `crate::duplicates::find`).
    fn unread_callee<'s>(&self, segments: &'s [String]) -> Option<&'s str> {
        let (name, modules) = segments.split_last()?;
        let free = modules
            .last()
            .is_none_or(|q| q.starts_with(|c: char| c.is_ascii_lowercase()));
        let own = modules
            .first()
            .is_none_or(|first| self.own_modules.contains(first.as_str()));
        if !free
            || !own
            || !name.starts_with(|c: char| c.is_ascii_lowercase())
            || COMMON_NAMES.contains(&name.as_str())
            || COMMON_CALLEES.contains(&name.as_str())
        {
            return None;
        }
        let defined = self
            .defined
            .get(name.as_str())
            .is_some_and(|found| found.iter().any(|module| names_module(module, modules)));
        (!defined).then_some(name.as_str())
    }
}

/// Whether a call's modules name `module`: `crate::telemetry::emit` names the root's
/// `telemetry` only (not `commands::telemetry`, whose `emit` a parsed file may define while the
/// root's is in a file not read yet); a relative path (`telemetry::emit`) any module whose path
/// ends so.
fn names_module(module: &[String], modules: &[String]) -> bool {
    match modules.split_first() {
        Some((first, rest)) if first == "crate" => module == rest,
        _ => crate::analysis::syntax::module_ends_with(module, modules),
    }
}

/// The types the parsed files implement a handler trait for (see
/// [`facts::ServingFacts::handler_types`]).
fn handler_type_names(serving: &[facts::ServingFacts]) -> BTreeSet<String> {
    serving
        .iter()
        .flat_map(|file| file.handler_types.iter())
        .map(|(ty, _)| ty.clone())
        .collect()
}

/// What runs while the unit serves MCP over its own stdio (see [`server_model`]), built once per
/// unit for both rules.
pub fn serving_path(context: &RuleContext<'_>) -> std::rc::Rc<ServingPath> {
    context
        .memo
        .get_or_init(|| ServingPath::new(context.graph, entry(context), context.libraries))
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
        && (context.serves_mcp() || serving_path(context).serves_through_library())
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

/// Whether code at `span`, in the function whose whole item is `function`, is shown to run
/// whenever the unit serves stdio (see [`ServingPath::runs_whenever_serving`]).
pub fn runs_whenever_serving(
    context: &RuleContext<'_>,
    file: FileId,
    function: ByteSpan,
    span: ByteSpan,
) -> bool {
    serving_path(context).runs_whenever_serving(file, function, span)
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
    /// Each file's branches on `bool` parameters, decoded once (see
    /// [`facts::PARAM_BRANCHES`]).
    param_branches: Vec<Vec<(ByteSpan, usize, bool)>>,
    /// Each file's branches on `bool` fields of parameters, decoded once (see
    /// [`facts::FIELD_PARAM_BRANCHES`]).
    field_branches: Vec<Vec<(ByteSpan, usize, String, bool)>>,
    /// Each file's calls that hand a `bool` parameter on, decoded once (see
    /// [`facts::FORWARDED_PARAMS`]).
    forwarded: Vec<Vec<(ByteSpan, Vec<Option<usize>>)>>,
    /// [`reached_only_through_left_branches`]'s answers, by function.
    left: std::cell::RefCell<HashMap<FunctionRef, bool>>,
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
        // Each file's facts of one kind, decoded once.
        fn per_file<T>(graph: &CrateGraph<'_>, decode: fn(&FileFacts) -> T) -> Vec<T> {
            graph.files().iter().map(|(_, f)| decode(f)).collect()
        }
        PathCalls {
            by_target,
            serving: per_file(graph, facts::serving),
            leaves: std::cell::RefCell::new(HashMap::new()),
            param_branches: per_file(graph, facts::param_branches),
            field_branches: per_file(graph, facts::field_param_branches),
            forwarded: per_file(graph, facts::forwarded_params),
            left: std::cell::RefCell::new(HashMap::new()),
        }
    })
}

impl PathCalls {
    /// The calls of `target` on the serving path: each caller and the call's index in it.
    fn on_path(&self, target: FunctionRef) -> &[(FunctionRef, usize)] {
        self.by_target
            .get(&target)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }
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
    let Some(target) = function_ref(context, file, function) else {
        return true;
    };
    if reached_only_through_left_branches(context, target, LEFT_DEPTH) {
        return false;
    }
    if !write.runs_if_fields.is_empty()
        && fields_left_by_every_call(context, target, &write.runs_if_fields)
    {
        return false;
    }
    if write.runs_if.is_empty() && !write.then_returns_true {
        return true;
    }
    if write.then_returns_true && leaves_when_true(context, target, LEAVING_DEPTH) {
        return false;
    }
    if write.runs_if.is_empty() {
        return true;
    }
    !left_by_every_call(context, target, &write.runs_if, FORWARD_DEPTH)
}

/// Whether every call of `target` on the serving path hands it, for a parameter whose `bool`
/// field decides the write, a struct literal (or a local bound to one) that sets the field to
/// the value that leaves the branch (`search(&q, &SearchOptions { benchmark: false, .. })` for
/// `if options.benchmark { println!(..) }`). False when no call on the path reaches `target`.
fn fields_left_by_every_call(
    context: &RuleContext<'_>,
    target: FunctionRef,
    tests: &[(usize, String, bool)],
) -> bool {
    let graph = context.graph;
    let calls = path_calls(context);
    let on_path = calls.on_path(target);
    let has_receiver = graph.function(target).has_receiver;
    !on_path.is_empty()
        && on_path.iter().all(|&(caller, index)| {
            let Some(call) = graph.function(caller).calls.get(index) else {
                return false;
            };
            // `Type::method(receiver, ..)`: its arguments count the receiver.
            let by_path = matches!(call.callee, crate::analysis::facts::Callee::Path(_));
            if by_path && has_receiver {
                return false;
            }
            let Some(serving) = calls.serving.get(caller.file) else {
                return false;
            };
            let args = of_call(Some(&serving.field_args), call.span);
            tests.iter().any(|(param, field, value)| {
                args.iter()
                    .filter(|(position, _)| position == param)
                    .flat_map(|(_, fields)| resolve_setters(context, fields))
                    .any(|(name, set)| name == *field && set != *value)
            })
        })
}

/// The `bool` fields a value is built with: a struct literal's, then those its builder's
/// methods set (`.with_json(true)` sets `json` where every function of the crate of that name
/// sets that field from its parameter). A call of the chain whose field is not shown makes every
/// field set before it unknown; one that sets a field from a value that is no literal makes that
/// field unknown.
fn resolve_setters(context: &RuleContext<'_>, fields: &[(String, bool)]) -> Vec<(String, bool)> {
    let mut known: Vec<(String, bool)> = Vec::new();
    for (name, value) in fields {
        let (setter, literal) = match name.strip_prefix(facts::OTHER_CALL) {
            Some(method) => (method, None),
            None => match name.strip_prefix(facts::SETTER) {
                Some(method) => (method, Some(*value)),
                None => {
                    known.push((name.clone(), *value));
                    continue;
                }
            },
        };
        match (builder_field(context, setter), literal) {
            (Some(field), Some(value)) => {
                known.retain(|(n, _)| *n != field);
                known.push((field, value));
            }
            (Some(field), None) => known.retain(|(n, _)| *n != field),
            (None, _) => known.clear(),
        }
    }
    known
}

/// The field every method of the crate named `method` sets from its one parameter (see
/// [`facts::ServingFacts::setters`]); None when one sets none, or they disagree.
fn builder_field(context: &RuleContext<'_>, method: &str) -> Option<String> {
    let graph = context.graph;
    let calls = path_calls(context);
    let mut field: Option<String> = None;
    for f in graph.all_functions() {
        let function = graph.function(f);
        if function.name != method {
            continue;
        }
        let item = function.item_span;
        let own = calls
            .serving
            .get(f.file)?
            .setters
            .iter()
            .find(|(body, _)| item.start <= body.start && body.end <= item.end)?;
        match &field {
            Some(known) if *known != own.1 => return None,
            _ => field = Some(own.1.clone()),
        }
    }
    field
}

/// How many callers up [`left_by_every_call`] follows a `bool` parameter handed on.
const FORWARD_DEPTH: usize = 2;

/// Whether a write runs only for a value of a flag the program sets at run time (a global, a
/// thread-local, or a `bool` field of a value it builds): a condition around it reads one (`if
/// !SILENT.load(..)`, `if !self.quiet`), calls a function of the unit whose value is one (`if
/// is_quiet() { return; }`, `fn is_quiet() -> bool { QUIET.with(|q| q.get()) }`), or it lies in
/// a branch on a `bool` parameter that a call on the serving path is handed such a value for
/// (`run_gates(.., !style::is_quiet())`, `run_gates(.., options.emit_progress)`).
pub fn decided_by_a_flag(
    context: &RuleContext<'_>,
    file: usize,
    function: ByteSpan,
    write: &facts::StdoutWrite,
) -> bool {
    if write.flag_guarded {
        return true;
    }
    if write.guard_calls.is_empty() && write.runs_if.is_empty() {
        return false;
    }
    let readers = flag_readers(context);
    let is_reader = |name: &str| readers.names.contains(name);
    if write.guard_calls.iter().any(|name| is_reader(name)) {
        return true;
    }
    if write.runs_if.is_empty() {
        return false;
    }
    let Some(target) = function_ref(context, file, function) else {
        return false;
    };
    // A field handed to the parameter decides whether the write runs only when the branch has
    // no `else` (`if emit_human { print }`); with one, it chooses which write runs.
    let params: Vec<(usize, bool)> = write
        .runs_if
        .iter()
        .map(|&(param, _)| (param, write.lone_params.contains(&param)))
        .collect();
    handed_a_flag(
        context,
        &readers,
        &is_reader,
        target,
        &params,
        FORWARD_DEPTH,
    )
}

/// Whether a call on the serving path hands `target`, for one of `params`, a flag's value (a
/// predicate that reads one, or a field where the parameter's flag says fields count), or hands
/// on a `bool` parameter of its own that a call of its caller is handed one for (`depth` callers
/// up).
fn handed_a_flag(
    context: &RuleContext<'_>,
    readers: &FlagReaders,
    is_reader: &dyn Fn(&str) -> bool,
    target: FunctionRef,
    params: &[(usize, bool)],
    depth: usize,
) -> bool {
    let graph = context.graph;
    let calls = path_calls(context);
    calls.on_path(target).iter().any(|&(caller, index)| {
        let Some(call) = graph.function(caller).calls.get(index) else {
            return false;
        };
        let args = of_call(readers.call_args.get(caller.file), call.span);
        let forwarded = of_call(calls.forwarded.get(caller.file), call.span);
        params.iter().any(|&(param, fields)| {
            let flag =
                |name: &String| is_reader(name) || (fields && name.as_str() == writes::FIELD_FLAG);
            args.get(param).is_some_and(|names| names.iter().any(flag))
                || forwarded.get(param).copied().flatten().is_some_and(|own| {
                    depth > 0
                        && caller != target
                        && handed_a_flag(
                            context,
                            readers,
                            is_reader,
                            caller,
                            &[(own, fields)],
                            depth - 1,
                        )
                })
        })
    })
}

/// What a file's facts say of the call at `span`, for facts kept by call (`(call span,
/// values)`): its values, or none.
fn of_call<T>(facts: Option<&Vec<(ByteSpan, Vec<T>)>>, span: ByteSpan) -> &[T] {
    facts
        .and_then(|calls| calls.iter().find(|(at, _)| *at == span))
        .map(|(_, values)| values.as_slice())
        .unwrap_or_default()
}

/// The unit's functions whose value is a global flag they read, and each file's calls with a
/// predicate for an argument (see [`facts::FLAG_READS`]), decoded once per unit.
fn flag_readers(context: &RuleContext<'_>) -> std::rc::Rc<FlagReaders> {
    context.memo.get_or_init(|| {
        let mut readers = FlagReaders::default();
        for (_, file) in context.graph.files() {
            let reads = facts::flag_reads(file);
            readers.names.extend(reads.readers);
            readers.call_args.push(reads.call_args);
        }
        readers
    })
}

/// See [`flag_readers`].
#[derive(Default)]
struct FlagReaders {
    names: foldhash::HashSet<String>,
    /// By file of the graph.
    call_args: Vec<Vec<(ByteSpan, Vec<Vec<String>>)>>,
}

/// How many callers up [`reached_only_through_left_branches`] looks: the function called in
/// the branch itself (a literal handed on through parameters is followed by
/// [`left_by_every_call`]).
const LEFT_DEPTH: usize = 0;

/// The names of the functions called inside a branch on a `bool` parameter anywhere in the
/// unit (see [`facts::PARAM_BRANCHES`]), worked out once per unit.
fn called_in_param_branches(context: &RuleContext<'_>) -> std::rc::Rc<CalledInBranches> {
    context.memo.get_or_init(|| {
        let graph = context.graph;
        let mut names = foldhash::HashSet::default();
        for (_, file) in graph.files() {
            let branches: Vec<ByteSpan> = facts::param_branches(file)
                .into_iter()
                .map(|(b, _, _)| b)
                .chain(
                    facts::field_param_branches(file)
                        .into_iter()
                        .map(|(b, ..)| b),
                )
                .collect();
            if branches.is_empty() {
                continue;
            }
            for function in &file.functions {
                for call in &function.calls {
                    let inside = branches
                        .iter()
                        .any(|b| b.start <= call.span.start && call.span.end <= b.end);
                    if inside {
                        names.insert(call.name().to_string());
                    }
                }
            }
        }
        CalledInBranches(names)
    })
}

/// See [`called_in_param_branches`].
struct CalledInBranches(foldhash::HashSet<String>);

impl CalledInBranches {
    fn contains(&self, name: &str) -> bool {
        self.0.contains(name)
    }
}

/// Whether every call of `target` on the serving path lies in a branch, on a `bool` parameter
/// of its caller, that every call of that caller on the path leaves by the literal it passes
/// (`if json { .. } else { print_table(..) }` in a command every tool calls with `json: true`),
/// or in a caller of which that holds, `depth` callers up. Each function's answer is worked
/// out once per unit.
fn reached_only_through_left_branches(
    context: &RuleContext<'_>,
    target: FunctionRef,
    depth: usize,
) -> bool {
    // Only a function called inside such a branch somewhere can be (the serving path's calls
    // are worked out only then).
    let graph = context.graph;
    if depth == 0
        && !called_in_param_branches(context).contains(graph.function(target).name.as_str())
    {
        return false;
    }
    let calls = path_calls(context);
    if let Some(&known) = calls.left.borrow().get(&target) {
        return known;
    }
    // Recursion ends at the memo: a function met again on the way up is not left.
    calls.left.borrow_mut().insert(target, false);
    let on_path = calls.on_path(target);
    let left = !on_path.is_empty()
        && on_path.iter().all(|&(caller, index)| {
            let Some(call) = graph.function(caller).calls.get(index) else {
                return false;
            };
            let item = graph.function(caller).item_span;
            // A branch of the caller that holds the call.
            let in_span = |branch: &ByteSpan| {
                item.start <= branch.start
                    && branch.end <= item.end
                    && branch.start <= call.span.start
                    && call.span.end <= branch.end
            };
            let branches: Vec<(usize, bool)> = calls
                .param_branches
                .get(caller.file)
                .into_iter()
                .flatten()
                .filter(|(branch, _, _)| in_span(branch))
                .map(|&(_, param, value)| (param, value))
                .collect();
            let field_tests: Vec<(usize, String, bool)> = calls
                .field_branches
                .get(caller.file)
                .into_iter()
                .flatten()
                .filter(|(branch, ..)| in_span(branch))
                .map(|(_, param, field, value)| (*param, field.clone(), *value))
                .collect();
            (!branches.is_empty() && left_by_every_call(context, caller, &branches, FORWARD_DEPTH))
                || (!field_tests.is_empty()
                    && fields_left_by_every_call(context, caller, &field_tests))
                || (depth > 0
                    && caller != target
                    && reached_only_through_left_branches(context, caller, depth - 1))
        });
    calls.left.borrow_mut().insert(target, left);
    left
}

/// Whether every call of `target` on the serving path passes, for one of the `bool` parameters
/// of `runs_if`, the literal that leaves the branch, or hands on a `bool` parameter of its own
/// that every call of its caller leaves so (`depth` callers up); a call that passes another
/// value takes it. False when no call on the path reaches `target` (an SDK's handler).
fn left_by_every_call(
    context: &RuleContext<'_>,
    target: FunctionRef,
    runs_if: &[(usize, bool)],
    depth: usize,
) -> bool {
    let graph = context.graph;
    let calls = path_calls(context);
    let on_path = calls.on_path(target);
    for &(caller, index) in on_path {
        let Some(call) = graph.function(caller).calls.get(index) else {
            continue;
        };
        // `Type::method(receiver, ..)`: its arguments count the receiver, its parameters
        // do not.
        let by_path = matches!(call.callee, crate::analysis::facts::Callee::Path(_));
        if by_path && graph.function(target).has_receiver {
            return false;
        }
        let Some(serving) = calls.serving.get(caller.file) else {
            continue;
        };
        let args = of_call(Some(&serving.bool_args), call.span);
        let forwarded = of_call(calls.forwarded.get(caller.file), call.span);
        let places = of_call(Some(&serving.place_args), call.span);
        // Taken unless an argument is the literal that leaves the branch, the caller's own
        // parameter, left so by every call of the caller, or a place of `main` that it serves
        // only when it holds the value that leaves (`init_logging(is_stream_mode)` before `if
        // is_stream_mode { http } else { stdio }`).
        let taken = runs_if.iter().all(|&(param, value)| {
            let literal = args.get(param).copied().flatten() == Some(!value);
            let handed_on = || {
                forwarded.get(param).copied().flatten().is_some_and(|own| {
                    depth > 0
                        && caller != target
                        && left_by_every_call(context, caller, &[(own, value)], depth - 1)
                })
            };
            let decided = || {
                places.get(param).cloned().flatten().is_some_and(|place| {
                    serving_path(context).serves_only_when(caller, &place, !value)
                })
            };
            !literal && !handed_on() && !decided()
        });
        if taken {
            return false;
        }
    }
    !on_path.is_empty()
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
    let on_path = calls.on_path(target);
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
