//! Sends, calls and marked paths, a hook on the shared walk: per function, the places that send
//! a response or a further message, the calls it makes, the values it returns, and the marked
//! paths (and guards) each of those lies on; per file, the marked paths and what they do to the
//! registries of requests in flight. A path is marked by a condition that the caller names (see
//! [`marks`]: a rule family's, such as a request's cancellation): the branches, arms and code
//! after an `.await` or a loop that run because it holds, and the guards that keep it off the
//! code under them.
//!
//! The walk shows each node when it is entered and when it is left. What a node does to the
//! code under it (a path it starts, a guard, a removal its statement allows) is done when the
//! child it concerns is entered and undone when that child is left: see
//! [`Sends::enter_child`] and [`Sends::leave_child`]. What a node does after its children (a
//! `let` binding its names, a statement starting a path for the statements after it) is done
//! when the node or the child before is left.

pub mod marks;
mod nodes;
mod shapes;
mod values;

use std::collections::HashMap;

use syn::Stmt;

use super::facts::{Callee, FileFacts, FunctionFacts, OriginId, ReceiverType, Removal};
use super::spans::Bounds;
use super::vocabulary::Vocabulary;
use super::walk::{Hook, Node, ParsedBody, Scope};
use crate::source::ByteSpan;

/// The hook that collects a file's sends, calls and cancel paths.
pub struct Sends<'v> {
    vocab: &'v Vocabulary,
    /// The condition whose paths are followed (see [`marks`]).
    marks: &'v dyn marks::PathMarks,
    /// What is collected: functions, origins, registry removals, cancel aborts.
    facts: FileFacts,
    base: usize,
    /// The file's module path within its crate.
    module: Vec<String>,
    functions: Vec<FunctionState>,
    /// The cancel paths the current code lies on, innermost last.
    origins: Vec<OriginId>,
    /// Expressions that could be removed whole, by the span of the send or call they carry.
    removable: Vec<(ByteSpan, Removal)>,
    /// Per enclosing block: the in-flight registries its statements touched so far.
    block_registries: Vec<Vec<String>>,
    /// Registries whose removal result guards the current code.
    registry_guards: Vec<String>,
    /// How many guards (`!is_cancelled()`, a select! whose cancel branch sends nothing) hold here.
    guard_depth: usize,
    /// How many spawned tasks the current code is inside.
    spawn_depth: usize,
    /// Per branch (an `if`'s, a `match` arm) the current code lies in, innermost last: the
    /// calls whose value its test looks at.
    branch_tests: Vec<Vec<Callee>>,
    /// Tests an earlier statement of an enclosing block leaves on (`if resp.is_skip() {
    /// continue; }`), with the depth of the block they stand in: the calls each looks at. A
    /// later write of such a call's value runs only for the values that pass.
    exit_tests: Vec<(usize, Vec<Callee>)>,
    /// The last branch test worked out: its span and its calls.
    branch_cache: Option<(ByteSpan, Vec<Callee>)>,
    /// The current node lies in an expansion of one of the file's macros (see
    /// [`super::walk::Scope::in_expansion`]).
    in_expansion: bool,
    /// The channel of the send call being recorded, if it sends into one.
    sink_channel: Option<String>,
    /// The condition of the send being recorded (calls that must return a response).
    sink_condition: Vec<Callee>,
    /// The send being recorded is a call of a crate function handed a message (see
    /// [`super::facts::SinkSite::through`]).
    sink_through: Option<(Callee, u64)>,
    /// The vocabulary name of the send being recorded, if it is known by one.
    sink_named: Option<String>,
    /// Per node being visited: what entering it as its parent's child did, to undo.
    children: Vec<Undo>,
    /// The file's `use .. as ..` renames: the alias, and the path it names.
    renames: HashMap<String, Vec<String>>,
    /// The names the file's `use` items bring in (`use crate::mcp::helpers::run;`), and the
    /// paths they name: a bare call of one is a call of that path, not of any function of the
    /// name.
    imports: HashMap<String, Vec<String>>,
    /// Per block (or macro body of statements) being visited.
    blocks: Vec<BlockFrame>,
    /// Per statement being visited.
    stmts: Vec<StmtFrame>,
    /// Per `if` being visited: how its condition relates to cancellation.
    ifs: Vec<IfKind>,
    /// Per `match` being visited: the registry its scrutinee looks up, and whether it converts
    /// a notification into the cancellation.
    matches: Vec<(Option<String>, bool)>,
    /// Per match arm being visited: the registry that guards its body.
    arms: Vec<Option<String>>,
    /// Per `select!` being visited: whether it races the request's cancellation.
    selects: Vec<bool>,
    /// Per `select!` being visited: the futures of its branches raced against a branch that
    /// is the request's cancellation (its token's future, or a one-shot receiver). The calls
    /// in them run only while the cancellation has not won.
    raced_futures: Vec<Vec<ByteSpan>>,
    /// Per `let` with an initialiser: the pending values when it started.
    lets: Vec<(usize, usize)>,
    /// Per assignment: the pending response values when it started.
    assigns: Vec<usize>,
    /// Per `return` with a value: the pending returned values when it started.
    returns: Vec<usize>,
    /// Per method call: whether it spawns a task (its arguments run in it).
    method_spawns: Vec<bool>,
    /// Per call: whether it spawns a task.
    call_spawns: Vec<bool>,
    /// Per macro in code being visited: its address and the span of its statement or
    /// expression.
    macros: Vec<(usize, ByteSpan, String)>,
    /// The last `select!` visited (by address), and whether it guards the code after it.
    last_select_guard: Option<(usize, bool)>,
}

#[derive(Debug, Clone, Default)]
struct LocalInfo {
    /// The local holds (or was derived from) a response message.
    response: bool,
    /// The local holds a further message for a request (a progress or log notification).
    further: bool,
    /// Response values built on a cancel path that reached this local.
    flows: Vec<FlowValue>,
    /// Values produced on a cancel path (any value: for handlers' returns) held by this local.
    cancel_values: Vec<FlowValue>,
    /// The function's parameters (a mask of their positions) whose value this local holds or
    /// was derived from.
    params: u64,
    /// The same, for the parameters of the innermost closure being visited.
    closure_params: u64,
}

/// A closure being visited: what its body does with its parameters.
struct ClosureFrame {
    /// The closure's parameters (a mask of their positions) its body writes to the wire.
    written: u64,
    /// How many sends the function had recorded when the closure's body started.
    sinks_before: usize,
}

/// What a closure bound to a local does when it is called.
#[derive(Debug, Clone, Copy, Default)]
struct ClosureSummary {
    /// Its parameters (a mask of their positions) that it writes to the wire.
    written: u64,
    /// It sends a response of its own.
    sends: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct FlowValue {
    span: ByteSpan,
    what: String,
    origins: Vec<OriginId>,
}

struct FunctionState {
    facts: FunctionFacts,
    /// The cancel paths around the function, set aside while its body is visited.
    saved_origins: Vec<OriginId>,
    locals: HashMap<String, LocalInfo>,
    /// Locals bound to a request token's `cancelled()` future.
    condition_futures: Vec<String>,
    /// Locals bound to a one-shot channel's receiver (`let (tx, rx) = oneshot::channel();`).
    signal_receivers: Vec<String>,
    /// Locals bound to the future of a call not awaited (`let call = handle(..);`), with the
    /// call's span: the call's body runs where the future is awaited or raced.
    call_futures: Vec<(String, ByteSpan)>,
    /// Response values produced on cancel arms, waiting for the `let` that receives them.
    pending_flows: Vec<FlowValue>,
    /// Any values produced on cancel arms, waiting for the `let` or return that receives them.
    pending_returns: Vec<FlowValue>,
    /// Locals that are another value under a new name (`let sink = tx.clone()`).
    aliases: HashMap<String, String>,
    /// Locals whose type the code makes evident: written, constructed, or carried over from
    /// another value of evident type (`let r = self.reporter.clone()`, `Arc::clone(&x)`).
    local_types: HashMap<String, ReceiverType>,
    /// Locals built from calls (`let reply = self.reply_for(id)`), for deferred response sends.
    built_from: HashMap<String, Vec<Callee>>,
    /// The names of the function's parameters, by position (None for a pattern).
    params: Vec<Option<String>>,
    /// The closures being visited, innermost last.
    closure_frames: Vec<ClosureFrame>,
    /// The closure last visited, by its span, and what it does.
    last_closure: Option<(ByteSpan, ClosureSummary)>,
    /// Locals bound to a closure, and what calling it does.
    closures: HashMap<String, ClosureSummary>,
    /// The statements of the function's body: their spans, and whether each is a `let` of a
    /// value without effects.
    body_stmts: Vec<(ByteSpan, bool, bool)>,
}

/// What entering a node as its parent's child did, undone when it is left.
#[derive(Default)]
struct Undo {
    /// A cancel path was started for it.
    origin: bool,
    /// Its values are remembered for the `let` that receives them (before the cancel path ends).
    flowing: bool,
    /// It is guarded: the cancel paths set aside, to be restored.
    guarded: Option<Vec<OriginId>>,
    /// It runs only if it won a race against the cancellation.
    raced: bool,
    /// A registry's removal result guards it.
    registry_guard: bool,
    /// How many removable expressions there were before it.
    removable: Option<usize>,
    /// It is a branch: the test that selects it was pushed on [`Sends::branch_tests`].
    branch_test: bool,
}

/// A block (or a macro body of statements) being visited.
struct BlockFrame {
    origins: usize,
    registry_guards: usize,
    guard_depth: usize,
    /// A function's body: its tail is the function's value.
    function_body: bool,
    /// The statement being visited, and how many there are.
    index: usize,
    len: usize,
}

/// A statement being visited: what was pending and removable before it.
struct StmtFrame {
    pending: usize,
    pending_returns: usize,
    removable: usize,
}

/// How an `if`'s condition relates to the followed condition, once its `then` branch is
/// reached.
#[derive(Clone)]
enum IfKind {
    Unknown,
    Plain,
    Holds,
    /// `if !token.is_cancelled()`: the `else` branch is a marked path, starting at the
    /// condition, when the negated test's condition holds.
    Negated(ByteSpan, crate::analysis::facts::OriginCondition),
}

impl<'v> Sends<'v> {
    /// The hook for a file whose code starts at `base`, in the module `module` of its crate.
    pub fn new(
        vocab: &'v Vocabulary,
        marks: &'v dyn marks::PathMarks,
        base: usize,
        module: Vec<String>,
    ) -> Self {
        Sends {
            vocab,
            marks,
            facts: FileFacts::default(),
            base,
            module,
            functions: Vec::new(),
            origins: Vec::new(),
            removable: Vec::new(),
            block_registries: Vec::new(),
            registry_guards: Vec::new(),
            guard_depth: 0,
            spawn_depth: 0,
            sink_channel: None,
            sink_condition: Vec::new(),
            sink_through: None,
            sink_named: None,
            branch_tests: Vec::new(),
            exit_tests: Vec::new(),
            branch_cache: None,
            in_expansion: false,
            children: Vec::new(),
            renames: HashMap::new(),
            imports: HashMap::new(),
            blocks: Vec::new(),
            stmts: Vec::new(),
            ifs: Vec::new(),
            matches: Vec::new(),
            arms: Vec::new(),
            selects: Vec::new(),
            raced_futures: Vec::new(),
            lets: Vec::new(),
            assigns: Vec::new(),
            returns: Vec::new(),
            method_spawns: Vec::new(),
            call_spawns: Vec::new(),
            macros: Vec::new(),
            last_select_guard: None,
        }
    }

    fn span(&self, node: &impl Bounds) -> ByteSpan {
        let (first, last) = node.bounds();
        super::spans::byte_span(first, last, self.base)
    }

    fn current(&mut self) -> Option<&mut FunctionState> {
        self.functions.last_mut()
    }
}

impl Hook for Sends<'_> {
    /// Every macro's body that may hold code is read (not those that only log or format).
    fn reads_macro_body(&self, _: &str) -> bool {
        true
    }

    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        self.in_expansion = scope.in_expansion();
        // `use serve::run as run_serve;` (in a module or a block): calls of `run_serve` are
        // calls of `serve::run`.
        if let Node::Item(syn::Item::Use(item)) = node {
            super::syntax::use_renames(&item.tree, &mut Vec::new(), &mut self.renames);
            super::syntax::use_imports(&item.tree, &mut Vec::new(), &mut self.imports);
        }
        if !scope.in_function_body() {
            return;
        }
        let undo = self.enter_child(node, scope);
        self.children.push(undo);
        self.enter_node(node, scope);
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        self.in_expansion = scope.in_expansion();
        if !scope.in_function_body() {
            return;
        }
        self.leave_node(node, scope);
        let undo = self.children.pop().unwrap_or_default();
        self.leave_child(node, scope, undo);
    }

    fn finish(self: Box<Self>, facts: &mut FileFacts) {
        let mut mine = self.facts;
        if !self.renames.is_empty() {
            for call in mine.functions.iter_mut().flat_map(|f| f.calls.iter_mut()) {
                if let Callee::Path(segments) = &mut call.callee {
                    if let [alias] = segments.as_slice() {
                        if let Some(original) = self.renames.get(alias) {
                            *segments = original.clone();
                        }
                    }
                }
            }
        }
        let mut imports: Vec<(String, Vec<String>)> = self.imports.into_iter().collect();
        imports.sort();
        facts.imports = imports;
        facts.registry_users = (mine.functions.iter().enumerate())
            .filter(|(_, f)| f.uses_registries())
            .map(|(i, _)| i)
            .collect();
        facts.functions = mine.functions;
        facts.origins = mine.origins;
        facts.registry_removals = mine.registry_removals;
        facts.path_aborts = mine.path_aborts;
        facts.registry_lookups = mine.registry_lookups;
        facts.path_cancels = mine.path_cancels;
        facts.flag_sets = mine.flag_sets;
        facts.signal_sends = mine.signal_sends;
        facts.token_cancels = mine.token_cancels;
    }
}

/// The statements of a block or of a macro body read as statements.
fn statements<'a>(node: Node<'a>) -> Option<&'a [Stmt]> {
    match node {
        Node::Block(block) => Some(&block.stmts),
        Node::Body(ParsedBody::Stmts(stmts)) => Some(stmts),
        _ => None,
    }
}
