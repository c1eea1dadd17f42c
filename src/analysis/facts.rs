//! Per-file facts: the functions of a file with their response sinks, their calls, and the cancel
//! paths those lie on. Built once per file in one traversal of its syntax tree; the syntax tree is
//! dropped afterwards and the rules read only these facts.

use std::collections::HashMap;

use super::spans::Bounds;
use syn::visit::{self, Visit};
use syn::{Expr, Macro, Pat, Stmt};

use super::syntax::{
    expr_idents, is_pure, json_shape, macro_name, parse_macro_body, parse_select, path_segments,
    pattern_bindings, peel, str_literal, strip_statement_wrappers, tail_values, type_name,
    value_idents, MacroBody,
};
use super::vocabulary as vocab;
use crate::source::ByteSpan;
use crate::unit::{InlineModule, ModDecl};

/// Index of a [`CancelOrigin`] in its file's [`FileFacts::origins`].
pub type OriginId = usize;

/// How a cancel path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OriginKind {
    /// A function that handles the cancellation notification (`on_cancelled`, `cancel(&self)`).
    Hook,
    /// A `match` arm or `if` branch selected by the cancellation notification.
    DispatchArm,
    /// A `select!` branch on the request's token being cancelled.
    SelectArm,
    /// The statements after `token.cancelled().await`.
    AfterCancelledAwait,
    /// The body of `if token.is_cancelled()` (or the `else` of `if !token.is_cancelled()`).
    IfCancelled,
    /// The statements after `while !token.is_cancelled() { .. }`.
    AfterCancelLoop,
}

/// When an origin holds: always, or only if a constant of the crate holds the cancellation method.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OriginCondition {
    Always,
    /// The arm matched a constant by this name; it is a cancel path if the constant's value is
    /// `notifications/cancelled` (or, when the value is not visible, if its name says so).
    ConstNamed(String),
}

/// Where a cancel path starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CancelOrigin {
    pub kind: OriginKind,
    pub span: ByteSpan,
    /// A label for the start of the path, e.g. "this arm handles `notifications/cancelled`".
    pub label: String,
    pub condition: OriginCondition,
}

/// What a sink sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SinkKind {
    /// A JSON-RPC response or error.
    Response,
    /// A further message for the request: a progress or log notification.
    FurtherMessage,
}

/// How a send (or a call) could be taken out of the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Removal {
    /// The send is a whole statement (with `let _ =`, `.await`, `?`, `.ok()`, `.unwrap()` and the
    /// like around it): remove `span`, the statement.
    Statement(ByteSpan),
    /// The send is the value of a block or of an arm: replace `span` with `replacement`.
    Value {
        span: ByteSpan,
        replacement: UnitValue,
    },
}

/// The unit value that takes a removed value's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum UnitValue {
    /// `()`, for a block's value.
    Unit,
    /// `{}`, for an arm's value.
    EmptyBlock,
}

impl UnitValue {
    pub fn text(self) -> &'static str {
        match self {
            UnitValue::Unit => "()",
            UnitValue::EmptyBlock => "{}",
        }
    }
}

/// A place that sends a message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SinkSite {
    /// The send expression (or, for a value that flows into a later send, the expression that
    /// built the value).
    pub span: ByteSpan,
    pub kind: SinkKind,
    /// How the send reads, e.g. "`self.send_error(..)`".
    pub what: String,
    /// The cancel paths this site lies on, innermost last.
    pub origins: Vec<OriginId>,
    /// For a value built on a cancel path and sent later: where it is sent.
    pub sent_at: Option<ByteSpan>,
    /// How the send could be removed, when its value is not used.
    pub removal: Option<Removal>,
    /// Whether the send's receiver and arguments are free of side effects (literals, paths,
    /// fields, references, literals of structs, tuples and arrays, `json!`/`format!`, and
    /// conversions), so that removing the send removes nothing else.
    pub pure: bool,
    /// The in-flight registries around the send, for the missing-guard analysis.
    pub registry: RegistryContext,
    /// When the send goes into a channel (`x_tx.send(..)`, through aliases such as
    /// `let sink = x_tx.clone()`): the channel's name without its `_tx` suffix.
    pub channel: Option<String>,
    /// A send that is a response send only if one of these calls (in its arguments) returns a
    /// response; empty for a send known to send one.
    pub if_returns_response: Vec<Callee>,
}

/// What a send knows of the in-flight registries (maps of request ids to tokens or tasks) around
/// it: which ones the code leading to it touched, and which guard it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RegistryContext {
    /// Registries (by the name of the collection) used earlier in the enclosing blocks.
    pub touched: Vec<String>,
    /// Registries whose removal (or lookup) result guards the send:
    /// `if let Some(..) = pool.remove(&id) { send }`, `let Some(..) = pool.remove(&id) else { .. }`.
    pub guarded_by: Vec<String>,
    /// Guarded otherwise: `if !token.is_cancelled() { send }`, or after a `select!` whose cancel
    /// branch leaves nothing to send.
    pub guarded: bool,
    /// The send runs in a spawned task.
    pub in_spawn: bool,
}

/// An in-flight registry that a cancel path removes a request from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RegistryRemoval {
    pub collection: String,
    pub span: ByteSpan,
    pub origins: Vec<OriginId>,
}

/// What writes to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum StdoutKind {
    /// `println!`: the fix is `eprintln!`.
    Println,
    /// `print!`: the fix is `eprint!`.
    Print,
    /// A `stdout()` handle (written to).
    Handle,
    /// A `tracing_subscriber` fmt subscriber or layer with no `.with_writer(..)`: it logs to
    /// stdout. The fix inserts `.with_writer(std::io::stderr)` after the builder call.
    TracingFmt,
    /// `tracing_subscriber::fmt::init()`: the fix spells out the builder with a writer.
    TracingFmtInit,
    /// A `tracing_subscriber` fmt subscriber or layer given a stdout writer
    /// (`.with_writer(std::io::stdout)`): no automatic fix.
    TracingFmtToStdout,
    /// A `log4rs` `ConsoleAppender::builder()` with no `.target(..)`: it writes to stdout. The fix
    /// inserts `.target(log4rs::append::console::Target::Stderr)` after the builder call.
    Log4rsConsole,
    /// A `log4rs` `ConsoleAppender` whose `.target(..)` is not `Target::Stderr`: no automatic fix.
    Log4rsConsoleToStdout,
}

/// What a write to stdout writes, as far as the code shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum WriteContent {
    /// A protocol message: serialised JSON (`serde_json::to_string(..)`, a local bound from it, a
    /// `json!(..)`) alone in the format, or a format that spells out `"jsonrpc"`.
    Message,
    /// Something without text of its own (`println!("{}", x)`, `write_all(buf)`, a newline): a
    /// message when the function serialises JSON.
    Unlabelled,
    /// Text of its own (`println!("listening on {addr}")`, `write_all(b"ready")`), or a logger:
    /// never a protocol message.
    Text,
}

/// A write to stdout (the MCP stdio transport's channel).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct StdoutWrite {
    pub kind: StdoutKind,
    /// The write (the macro, the `stdout()` call, the builder call).
    pub span: ByteSpan,
    /// The span the fix edits: the macro's name, the builder call, the `init` call.
    pub fix_span: ByteSpan,
    /// Inside test code (`#[cfg(test)]`, `#[test]`).
    pub in_test: bool,
    /// Outside the path that serves: an `if`/`match` branch that does not serve while another
    /// does, or a `--version`-style branch that returns or exits without serving.
    pub off_path: bool,
    pub content: WriteContent,
}

/// A value a request handler returns on a cancel path (it becomes the response, unless the SDK
/// drops responses for cancelled requests).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ReturnSite {
    pub span: ByteSpan,
    pub what: String,
    pub origins: Vec<OriginId>,
}

/// How a call names its callee.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Callee {
    /// `foo(..)`, `module::foo(..)`, `Type::foo(..)`, `Self::foo(..)`.
    Path(Vec<String>),
    /// `receiver.name(..)`; `on_self` when the receiver is `self`.
    Method {
        name: String,
        on_self: bool,
        /// The receiver's type when the code makes it evident.
        receiver: Option<ReceiverType>,
    },
}

/// A method receiver's type, as far as the code shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ReceiverType {
    /// A named type (the last segment of its path): from a typed parameter or `let`, a struct
    /// literal, or a `Type::constructor(..)` call.
    Named(String),
    /// A field of `self`, whose type the struct's definition gives.
    SelfField(String),
}

/// A call of something that may be a function of the same crate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CallSite {
    pub span: ByteSpan,
    pub callee: Callee,
    pub origins: Vec<OriginId>,
    /// How the call could be removed, when its value is not used.
    pub removal: Option<Removal>,
}

impl CallSite {
    /// The callee's own name (the last path segment, or the method name).
    pub fn name(&self) -> &str {
        match &self.callee {
            Callee::Path(segments) => segments.last().map(String::as_str).unwrap_or(""),
            Callee::Method { name, .. } => name,
        }
    }
}

/// One function, method or trait default method, with what it does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FunctionFacts {
    pub name: String,
    pub name_span: ByteSpan,
    /// The whole item, attributes included.
    pub item_span: ByteSpan,
    /// The implementing type (last path segment) for methods and associated functions.
    pub self_ty: Option<String>,
    /// The trait, for trait impls and trait default methods.
    pub trait_name: Option<String>,
    pub has_receiver: bool,
    /// The module path within the crate (best effort).
    pub module: Vec<String>,
    /// Set when the whole function is a cancel path (a cancel hook).
    pub hook: Option<OriginId>,
    /// Values returned on a cancel path.
    pub cancel_returns: Vec<ReturnSite>,
    /// Channels this function drains (`x_rx.recv()`), by name without the `_rx` suffix.
    pub drains: Vec<String>,
    /// Writes to stdout in this function.
    pub stdout_writes: Vec<StdoutWrite>,
    /// The function serialises JSON (`serde_json::to_string`, `to_vec`, `to_writer`): a
    /// transport's write site, whose stdout writes are the protocol's own.
    pub serializes_json: bool,
    /// The function names stdout (a `stdout()` handle, `println!`, `print!`).
    pub touches_stdout: bool,
    /// Pretty-printing serialiser calls (`serde_json::to_string_pretty`) whose output reaches
    /// stdout as a message (an unlabelled `println!`/`writeln!` to stdout, directly or through a
    /// local, or `to_writer_pretty(stdout(), ..)`), outside test code: the span of the
    /// function's name in the path, for MCP007.
    pub pretty_json: Vec<ByteSpan>,
    /// In-flight registries this function touches anywhere.
    pub registries: Vec<String>,
    /// The function returns a response message (its tail or a `return` builds one).
    pub returns_response: bool,
    /// Calls whose value the function returns (a response if theirs is).
    pub returns_calls: Vec<Callee>,
    pub sinks: Vec<SinkSite>,
    pub calls: Vec<CallSite>,
}

/// Everything the rules need to know about one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileFacts {
    pub functions: Vec<FunctionFacts>,
    pub origins: Vec<CancelOrigin>,
    /// String constants of the file: name and value.
    pub string_consts: Vec<(String, String)>,
    /// The out-of-line modules (`mod x;`) the file declares.
    pub mod_decls: Vec<ModDecl>,
    /// The spans of the file's items that a suppression comment can cover (functions, impls,
    /// traits, modules), attributes included.
    pub items: Vec<ByteSpan>,
    /// In-flight registries that cancel paths remove requests from.
    pub registry_removals: Vec<RegistryRemoval>,
    /// `.abort()` calls on cancel paths (a task aborted on cancellation cannot answer).
    pub cancel_aborts: Vec<Vec<OriginId>>,
    /// Field types of the file's structs: (struct, field, type's last path segment).
    pub struct_fields: Vec<(String, String, String)>,
    /// The file speaks MCP or JSON-RPC (it names `jsonrpc`, an MCP SDK or MCP types).
    pub mentions_mcp: bool,
    /// The file serves over stdio: it reads `stdin()`, calls a `stdio()` transport, or names
    /// `StdioTransport`.
    pub serves_stdio: bool,
    /// Hand-written method dispatchers and the `id` tests around them (MCP003, MCP004).
    pub dispatch: super::dispatchers::DispatchFacts,
    /// What single rules collect for themselves, by rule code.
    pub rules: RuleFacts,
}

/// The facts that single rules collect for themselves (their hooks on the shared walk), by the
/// rule's code, each in the cache's encoding: the shared layer holds them without knowing their
/// types, and only the rule that wrote them reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RuleFacts(Vec<(String, Vec<u8>)>);

impl RuleFacts {
    /// Store a rule's facts (replacing what it stored before).
    pub fn put<T: serde::Serialize>(&mut self, key: &str, value: &T) {
        let Ok(bytes) = postcard::to_stdvec(value) else {
            return;
        };
        self.0.retain(|(k, _)| k != key);
        self.0.push((key.to_string(), bytes));
    }

    /// A rule's facts, if it stored any (and they decode as `T`).
    pub fn get<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let (_, bytes) = self.0.iter().find(|(k, _)| k == key)?;
        postcard::from_bytes(bytes).ok()
    }
}

/// Build the facts of a parsed file. `base` is added to every byte offset (it accounts for a
/// byte order mark or shebang line that was cut off before parsing). `module` is the file's
/// module path within its crate.
pub fn collect(
    file: &syn::File,
    base: usize,
    module: Vec<String>,
    vocabulary: &vocab::Vocabulary,
) -> FileFacts {
    let mut builder = FactsBuilder {
        vocab: vocabulary,
        facts: FileFacts::default(),
        base,
        module,
        impls: Vec::new(),
        inline_modules: Vec::new(),
        functions: Vec::new(),
        origins: Vec::new(),
        removable: Vec::new(),
        block_registries: Vec::new(),
        registry_guards: Vec::new(),
        guard_depth: 0,
        spawn_depth: 0,
        function_body_next: false,
        sink_channel: None,
        sink_condition: Vec::new(),
        test_depth: 0,
        chain_methods: Vec::new(),
        if_serves: HashMap::new(),
        off_path: Vec::new(),
        stdout_payload_depth: 0,
        let_captures: Vec::new(),
    };
    builder.visit_file(file);
    builder.facts
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
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct FlowValue {
    span: ByteSpan,
    what: String,
    origins: Vec<OriginId>,
}

struct FunctionState {
    facts: FunctionFacts,
    locals: HashMap<String, LocalInfo>,
    /// Locals bound to a request token's `cancelled()` future.
    cancelled_futures: Vec<String>,
    /// Response values produced on cancel arms, waiting for the `let` that receives them.
    pending_flows: Vec<FlowValue>,
    /// Any values produced on cancel arms, waiting for the `let` or return that receives them.
    pending_returns: Vec<FlowValue>,
    /// Locals that are another value under a new name (`let sink = tx.clone()`).
    aliases: HashMap<String, String>,
    /// Locals whose type the code makes evident.
    local_types: HashMap<String, String>,
    /// Locals built from calls (`let reply = self.reply_for(id)`), for deferred response sends.
    built_from: HashMap<String, Vec<Callee>>,
    /// Locals holding serialised JSON (`let line = serde_json::to_string(..)?`), with the
    /// pretty-printing calls their value came from.
    serialized_locals: HashMap<String, Vec<ByteSpan>>,
    /// Locals holding a stdout handle (`let mut out = io::stdout().lock()`).
    stdout_locals: Vec<String>,
}

/// What the initialiser of the `let` being visited serialises.
#[derive(Default)]
struct LetCapture {
    serialized: bool,
    pretty: Vec<ByteSpan>,
}

struct FactsBuilder<'v> {
    vocab: &'v vocab::Vocabulary,
    facts: FileFacts,
    base: usize,
    module: Vec<String>,
    /// Enclosing impls and traits: (self type, trait).
    impls: Vec<(Option<String>, Option<String>)>,
    /// Enclosing inline modules, for placing `mod x;` declarations.
    inline_modules: Vec<InlineModule>,
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
    /// The next block visited is a function's body (its tail is the function's value).
    function_body_next: bool,
    /// The channel of the send call being recorded, if it sends into one.
    sink_channel: Option<String>,
    /// The condition of the send being recorded (calls that must return a response).
    sink_condition: Vec<Callee>,
    /// How many test items (`#[cfg(test)]`, `#[test]`) enclose the current code.
    test_depth: usize,
    /// The methods applied to the current receiver chain (for `.with_writer(..)`).
    chain_methods: Vec<String>,
    /// Whether each `if` (by where its `if` keyword starts) reaches code that serves stdio in
    /// any branch, remembered so that an `else if` chain is looked through once, not once per
    /// link.
    if_serves: HashMap<usize, bool>,
    /// Branches outside the path that serves (see [`StdoutWrite::off_path`]).
    off_path: Vec<ByteSpan>,
    /// How many stdout writes of a possible message enclose the current code.
    stdout_payload_depth: usize,
    /// The `let` initialisers being visited, innermost last.
    let_captures: Vec<LetCapture>,
}

/// How an `if` condition relates to cancellation.
enum Condition {
    Plain,
    /// The `then` branch runs because of a cancellation.
    Cancelled(OriginKind, ByteSpan, String, OriginCondition),
    /// The `then` branch runs only while the request is not cancelled (a guard); the `else`
    /// branch runs because of a cancellation.
    NotCancelled(ByteSpan),
}

impl<'v> FactsBuilder<'v> {
    fn span(&self, node: &impl Bounds) -> ByteSpan {
        let (first, last) = node.bounds();
        let start = first.byte_range().start;
        let end = last.byte_range().end.max(start);
        ByteSpan::new(start + self.base, end + self.base)
    }

    fn block_span(&self, block: &syn::Block) -> ByteSpan {
        let range = block.brace_token.span.join().byte_range();
        ByteSpan::new(range.start + self.base, range.end + self.base)
    }

    fn current(&mut self) -> Option<&mut FunctionState> {
        self.functions.last_mut()
    }

    fn add_origin(
        &mut self,
        kind: OriginKind,
        span: ByteSpan,
        label: String,
        condition: OriginCondition,
    ) -> OriginId {
        self.facts.origins.push(CancelOrigin {
            kind,
            span,
            label,
            condition,
        });
        self.facts.origins.len() - 1
    }

    // ----- functions -------------------------------------------------------------------------

    fn enter_function(
        &mut self,
        item_span: ByteSpan,
        sig: &syn::Signature,
        self_ty: Option<String>,
        trait_name: Option<String>,
    ) {
        let name = sig.ident.to_string();
        let has_receiver = sig.receiver().is_some();
        let name_span = self.span(&sig.ident);
        let hook = if self.vocab.is_cancel_hook(&name, has_receiver) {
            Some(self.add_origin(
                OriginKind::Hook,
                name_span,
                format!("cancel path: `{name}` runs because a request was cancelled"),
                OriginCondition::Always,
            ))
        } else {
            None
        };
        let mut locals = HashMap::new();
        let mut local_types = HashMap::new();
        for input in &sig.inputs {
            if let syn::FnArg::Typed(arg) = input {
                let bindings = pattern_bindings(&arg.pat);
                if let (Some(ty), [name]) = (type_name(&arg.ty), bindings.as_slice()) {
                    local_types.insert(name.clone(), ty);
                }
                for binding in bindings {
                    locals.insert(binding, LocalInfo::default());
                }
            }
        }
        self.functions.push(FunctionState {
            facts: FunctionFacts {
                name,
                name_span,
                item_span,
                self_ty,
                trait_name,
                has_receiver,
                module: self.module.clone(),
                hook,
                cancel_returns: Vec::new(),
                drains: Vec::new(),
                stdout_writes: Vec::new(),
                serializes_json: false,
                touches_stdout: false,
                pretty_json: Vec::new(),
                registries: Vec::new(),
                returns_response: false,
                returns_calls: Vec::new(),
                sinks: Vec::new(),
                calls: Vec::new(),
            },
            locals,
            cancelled_futures: Vec::new(),
            pending_flows: Vec::new(),
            pending_returns: Vec::new(),
            aliases: HashMap::new(),
            local_types,
            built_from: HashMap::new(),
            serialized_locals: HashMap::new(),
            stdout_locals: Vec::new(),
        });
    }

    fn with_function(
        &mut self,
        item_span: ByteSpan,
        sig: &syn::Signature,
        self_ty: Option<String>,
        trait_name: Option<String>,
        body: &syn::Block,
    ) {
        self.facts.items.push(item_span);
        self.enter_function(item_span, sig, self_ty, trait_name);
        let saved = std::mem::take(&mut self.origins);
        if let Some(hook) = self.functions.last().and_then(|f| f.facts.hook) {
            self.origins.push(hook);
        }
        self.function_body_next = true;
        self.visit_block(body);
        self.origins = saved;
        if let Some(state) = self.functions.pop() {
            self.facts.functions.push(state.facts);
        }
    }

    // ----- recording -------------------------------------------------------------------------

    fn removal_of(&self, span: ByteSpan) -> Option<Removal> {
        self.removable
            .iter()
            .rev()
            .find(|(core, _)| *core == span)
            .map(|(_, removal)| *removal)
    }

    fn registry_context(&self) -> RegistryContext {
        let mut touched: Vec<String> = Vec::new();
        for block in &self.block_registries {
            for name in block {
                if !touched.contains(name) {
                    touched.push(name.clone());
                }
            }
        }
        RegistryContext {
            touched,
            guarded_by: self.registry_guards.clone(),
            guarded: self.guard_depth > 0,
            in_spawn: self.spawn_depth > 0,
        }
    }

    /// The channel a receiver expression names, through aliases: `sink` (bound from
    /// `sink_proxy_tx.clone()`) gives `sink_proxy`.
    fn channel_of(&self, receiver: &Expr) -> Option<String> {
        let mut name = collection_name(receiver)?;
        if let Some(state) = self.functions.last() {
            for _ in 0..8 {
                match state.aliases.get(&name) {
                    Some(target) if *target != name => name = target.clone(),
                    _ => break,
                }
            }
        }
        channel_base(&name, &["_tx", "_sender", "tx", "sender"])
    }

    fn record_sink(&mut self, span: ByteSpan, kind: SinkKind, what: String, pure: bool) {
        let origins = self.origins.clone();
        let removal = self.removal_of(span);
        let registry = self.registry_context();
        let channel = self.sink_channel.take();
        let condition = std::mem::take(&mut self.sink_condition);
        if let Some(state) = self.current() {
            state.facts.sinks.push(SinkSite {
                span,
                kind,
                what,
                origins,
                sent_at: None,
                removal,
                pure,
                registry,
                channel,
                if_returns_response: condition,
            });
        }
    }

    fn record_call(&mut self, span: ByteSpan, callee: Callee) {
        let origins = self.origins.clone();
        let removal = self.removal_of(span);
        if let Some(state) = self.current() {
            state.facts.calls.push(CallSite {
                span,
                callee,
                origins,
                removal,
            });
        }
    }

    fn record_stdout(
        &mut self,
        kind: StdoutKind,
        span: ByteSpan,
        fix_span: ByteSpan,
        content: WriteContent,
    ) {
        let in_test = self.test_depth > 0;
        let off_path = self
            .off_path
            .iter()
            .any(|b| b.start <= span.start && span.end <= b.end);
        if let Some(state) = self.current() {
            state.facts.stdout_writes.push(StdoutWrite {
                kind,
                span,
                fix_span,
                in_test,
                off_path,
                content,
            });
        }
    }

    /// A `println!` or `print!` (the fix edits the macro's name).
    fn record_print(&mut self, mac: &Macro, name: &str, span: ByteSpan, content: WriteContent) {
        if let Some(last) = mac.path.segments.last() {
            let fix_span = self.span(&last.ident);
            let kind = if name == "println" {
                StdoutKind::Println
            } else {
                StdoutKind::Print
            };
            self.record_stdout(kind, span, fix_span, content);
        }
    }

    /// Pretty-printing calls whose output reached stdout as a message (outside test code).
    fn record_pretty(&mut self, spans: impl IntoIterator<Item = ByteSpan>) {
        if self.test_depth > 0 {
            return;
        }
        if let Some(state) = self.current() {
            for span in spans {
                if !state.facts.pretty_json.contains(&span) {
                    state.facts.pretty_json.push(span);
                }
            }
        }
    }

    /// The pretty-printing calls behind the serialised-JSON locals an expression writes
    /// (`line`, `&line`, `line.as_bytes()`, a captured `{line}`).
    fn pretty_behind(&self, expr: &Expr) -> Vec<ByteSpan> {
        let Some(state) = self.functions.last() else {
            return Vec::new();
        };
        match local_ident(expr) {
            Some(name) => state
                .serialized_locals
                .get(&name)
                .cloned()
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Whether an expression is serialised JSON: a `serde_json::to_*` call, a `json!(..)`, or a
    /// local bound from one.
    fn is_serialized(&self, expr: &Expr) -> bool {
        let core = unwrap_chain(expr);
        match core {
            Expr::Macro(m) => macro_name(&m.mac) == "json",
            Expr::Call(call) => matches!(&*call.func, Expr::Path(p)
                if p.path.segments.first().is_some_and(|s| s.ident == "serde_json")
                    && p.path.segments.last().is_some_and(|s| s.ident.to_string().starts_with("to_"))),
            _ => local_ident(core).is_some_and(|name| {
                self.functions
                    .last()
                    .is_some_and(|f| f.serialized_locals.contains_key(&name))
            }),
        }
    }

    /// Whether an expression is a stdout handle: `stdout()`, `io::stdout().lock()`, a local
    /// bound from one, `BufWriter::new(stdout())`, `&mut out`.
    fn is_stdout_expr(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Paren(p) => self.is_stdout_expr(&p.expr),
            Expr::Group(g) => self.is_stdout_expr(&g.expr),
            Expr::Reference(r) => self.is_stdout_expr(&r.expr),
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "lock" | "by_ref") => {
                self.is_stdout_expr(&m.receiver)
            }
            Expr::Call(call) => match &*call.func {
                Expr::Path(p) => {
                    let segments = path_segments(&p.path);
                    let joined = segments.join("::");
                    if call.args.is_empty() {
                        segments.last().is_some_and(|l| l == "stdout")
                            && (segments.len() == 1 || joined.ends_with("io::stdout"))
                    } else {
                        (joined.ends_with("BufWriter::new") || joined.ends_with("LineWriter::new"))
                            && call.args.first().is_some_and(|a| self.is_stdout_expr(a))
                    }
                }
                _ => false,
            },
            Expr::Path(p) => p.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.functions
                    .last()
                    .is_some_and(|f| f.stdout_locals.contains(&name))
            }),
            _ => false,
        }
    }

    /// What a formatting write (`println!`, `writeln!(out, ..)`) writes: its format string and
    /// the arguments after it.
    fn format_content(&self, format: Option<&Expr>, args: &[Expr]) -> WriteContent {
        let Some(format) = format else {
            return WriteContent::Unlabelled;
        };
        let Some(text) = str_literal(format) else {
            return WriteContent::Unlabelled;
        };
        if text.contains("jsonrpc") {
            return WriteContent::Message;
        }
        if !format_text(&text).trim().is_empty() {
            return WriteContent::Text;
        }
        let captured = inline_captures(&text);
        let serialized = args.iter().any(|a| self.is_serialized(a))
            || captured.iter().any(|name| {
                self.functions
                    .last()
                    .is_some_and(|f| f.serialized_locals.contains_key(name))
            });
        if serialized {
            WriteContent::Message
        } else {
            WriteContent::Unlabelled
        }
    }

    /// What a byte write (`out.write_all(..)`) writes.
    fn bytes_content(&self, arg: Option<&Expr>) -> WriteContent {
        let Some(arg) = arg else {
            return WriteContent::Unlabelled;
        };
        let literal = match unwrap_chain(arg) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::ByteStr(b),
                ..
            }) => Some(String::from_utf8_lossy(&b.value()).into_owned()),
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        };
        match literal {
            Some(text) if text.contains("jsonrpc") => WriteContent::Message,
            Some(text) if text.trim().is_empty() => WriteContent::Unlabelled,
            Some(_) => WriteContent::Text,
            None if self.is_serialized(arg) => WriteContent::Message,
            None => WriteContent::Unlabelled,
        }
    }

    /// Mark the branches of an `if` that lie outside the path that serves.
    fn note_off_path_if(&mut self, expr: &syn::ExprIf) {
        let then_serves = reaches_serving_block(&expr.then_branch);
        match &expr.else_branch {
            Some((_, else_branch)) => {
                let else_serves = match &**else_branch {
                    Expr::If(next) => self.if_chain_serves(next),
                    other => reaches_serving(other),
                };
                if else_serves && !then_serves {
                    let span = self.block_span(&expr.then_branch);
                    self.off_path.push(span);
                } else if then_serves && !else_serves {
                    let span = self.span(&**else_branch);
                    self.off_path.push(span);
                }
            }
            None => {
                if !then_serves && diverges(&expr.then_branch) && is_cli_check(&expr.cond) {
                    let span = self.block_span(&expr.then_branch);
                    self.off_path.push(span);
                }
            }
        }
    }

    /// Whether any branch of an `if` (through its `else if` links) reaches code that serves,
    /// each link's branches looked through once per file.
    fn if_chain_serves(&mut self, first: &syn::ExprIf) -> bool {
        let mut links = Vec::new();
        let mut current = first;
        let mut tail = false;
        loop {
            let key = current.if_token.span.byte_range().start;
            if let Some(known) = self.if_serves.get(&key) {
                tail = *known;
                break;
            }
            links.push((key, current));
            match current.else_branch.as_ref().map(|(_, e)| &**e) {
                Some(Expr::If(next)) => current = next,
                Some(other) => {
                    tail = reaches_serving(other);
                    break;
                }
                None => break,
            }
        }
        for (key, link) in links.into_iter().rev() {
            tail = tail || reaches_serving_block(&link.then_branch);
            self.if_serves.insert(key, tail);
        }
        tail
    }

    /// Mark the arms of a `match` that lie outside the path that serves.
    fn note_off_path_match(&mut self, expr: &syn::ExprMatch) {
        let serves: Vec<bool> = expr
            .arms
            .iter()
            .map(|arm| reaches_serving(&arm.body))
            .collect();
        let any = serves.iter().any(|s| *s);
        for (arm, serves) in expr.arms.iter().zip(serves) {
            if !serves && (any || (is_cli_check_pattern(&arm.pat) && diverges_expr(&arm.body))) {
                let span = self.span(&*arm.body);
                self.off_path.push(span);
            }
        }
    }

    /// Note how the send or call that `expr` carries could be removed.
    fn note_removable(&mut self, expr: &Expr, removal: Removal) {
        let core = self.span(strip_statement_wrappers(expr));
        self.removable.push((core, removal));
    }

    /// Record the sends of response values built on a cancel path that `args` carry.
    fn record_flows(&mut self, args: &[&Expr], send_span: ByteSpan) {
        let flows: Vec<FlowValue> = args.iter().flat_map(|a| self.flows_of(a)).collect();
        if let Some(state) = self.current() {
            for flow in flows {
                let site = SinkSite {
                    span: flow.span,
                    kind: SinkKind::Response,
                    what: flow.what,
                    origins: flow.origins,
                    sent_at: Some(send_span),
                    removal: None,
                    pure: false,
                    registry: RegistryContext::default(),
                    channel: None,
                    if_returns_response: Vec::new(),
                };
                if !state.facts.sinks.contains(&site) {
                    state.facts.sinks.push(site);
                }
            }
        }
    }

    // ----- questions about values ------------------------------------------------------------

    fn local(&self, name: &str) -> Option<&LocalInfo> {
        self.functions.last().and_then(|f| f.locals.get(name))
    }

    /// Whether an expression is, builds, or was derived from a JSON-RPC response message.
    fn is_response_valued(&self, expr: &Expr) -> bool {
        struct Finder<'b, 'v> {
            builder: &'b FactsBuilder<'v>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr(&mut self, expr: &'ast Expr) {
                if self.found {
                    return;
                }
                if is_response_construct(expr) {
                    self.found = true;
                    return;
                }
                if let Expr::Path(p) = expr {
                    if let Some(ident) = p.path.get_ident() {
                        if self
                            .builder
                            .local(&ident.to_string())
                            .is_some_and(|l| l.response)
                        {
                            self.found = true;
                            return;
                        }
                    }
                }
                if let Expr::Closure(_) = expr {
                    return;
                }
                visit::visit_expr(self, expr);
            }
            fn visit_macro(&mut self, mac: &'ast Macro) {
                if json_shape(mac).is_some_and(|s| s.is_response()) {
                    self.found = true;
                    return;
                }
                if vocab::QUIET_MACROS.contains(&macro_name(mac).as_str())
                    && macro_name(mac) != "format"
                {
                    return;
                }
                if let Some(body) = parse_macro_body(&mac.tokens) {
                    match body {
                        MacroBody::Exprs(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
                        MacroBody::Stmts(stmts) => stmts.iter().for_each(|s| self.visit_stmt(s)),
                    }
                }
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder {
            builder: self,
            found: false,
        };
        finder.visit_expr(expr);
        finder.found
    }

    /// Whether an expression is a further message for a request: a progress or log notification.
    fn is_further_message(&self, expr: &Expr) -> bool {
        struct Finder {
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder {
            fn visit_path(&mut self, path: &'ast syn::Path) {
                if path
                    .segments
                    .iter()
                    .any(|s| vocab::FURTHER_MESSAGE_TYPES.contains(&s.ident.to_string().as_str()))
                {
                    self.found = true;
                }
                visit::visit_path(self, path);
            }
            fn visit_macro(&mut self, mac: &'ast Macro) {
                if let Some(method) = json_shape(mac).and_then(|s| s.method) {
                    if vocab::FURTHER_MESSAGE_METHODS.contains(&method.as_str()) {
                        self.found = true;
                    }
                }
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder { found: false };
        finder.visit_expr(expr);
        finder.found
            || value_idents(expr)
                .iter()
                .any(|ident| self.local(ident).is_some_and(|l| l.further))
    }

    /// The cancel-path response values an expression carries through locals.
    fn flows_of(&self, expr: &Expr) -> Vec<FlowValue> {
        let mut flows = Vec::new();
        for ident in value_idents(expr) {
            if let Some(local) = self.local(&ident) {
                for flow in &local.flows {
                    if !flows.contains(flow) {
                        flows.push(flow.clone());
                    }
                }
            }
        }
        flows
    }

    /// Bind the identifiers of a pattern to what the value they come from carries.
    fn bind(&mut self, pat: &Pat, from: Option<&Expr>, extra_flows: Vec<FlowValue>) {
        let (response, further, mut flows) = match from {
            Some(expr) => (
                self.is_response_valued(expr),
                self.is_further_message(expr),
                self.flows_of(expr),
            ),
            None => (false, false, Vec::new()),
        };
        flows.extend(extra_flows);
        if let (Some(expr), false) = (from, self.origins.is_empty()) {
            flows.extend(self.cancel_value(expr));
        }
        let cancelled_future = from.is_some_and(|e| self.is_request_cancelled_future(e));
        let alias = match (pat, from.map(peel)) {
            (Pat::Ident(_), Some(value @ (Expr::Path(_) | Expr::Field(_)))) => {
                collection_name(value)
            }
            _ => None,
        };
        let bindings = pattern_bindings(pat);
        if let (Some(alias), [name]) = (alias, bindings.as_slice()) {
            if let Some(state) = self.functions.last_mut() {
                state.aliases.insert(name.clone(), alias);
            }
        }
        let evident_type = match pat {
            Pat::Type(typed) => type_name(&typed.ty),
            _ => from.and_then(constructed_type),
        };
        let built = from.map(|e| self.value_calls(e)).unwrap_or_default();
        if let [name] = bindings.as_slice() {
            if let Some(state) = self.functions.last_mut() {
                match evident_type {
                    Some(ty) => {
                        state.local_types.insert(name.clone(), ty);
                    }
                    None => {
                        state.local_types.remove(name);
                    }
                }
                if built.is_empty() {
                    state.built_from.remove(name);
                } else {
                    state.built_from.insert(name.clone(), built);
                }
            }
        }
        if let Some(state) = self.current() {
            for name in bindings {
                if cancelled_future {
                    state.cancelled_futures.push(name.clone());
                }
                state.locals.insert(
                    name,
                    LocalInfo {
                        response,
                        further,
                        flows: flows.clone(),
                        cancel_values: Vec::new(),
                    },
                );
            }
        }
    }

    /// `token.cancelled()` / `token.cancelled_owned()` on a per-request token (not a shutdown
    /// token), possibly wrapped (`Box::pin(..)`, `.fuse()`, `&mut fut`), or a local holding one.
    fn is_request_cancelled_future(&self, expr: &Expr) -> bool {
        match expr {
            Expr::MethodCall(m) if m.method == "cancelled" || m.method == "cancelled_owned" => {
                is_request_token(self.vocab, &m.receiver)
            }
            Expr::MethodCall(m) if m.args.is_empty() => {
                self.is_request_cancelled_future(&m.receiver)
            }
            Expr::Call(c) if c.args.len() == 1 => c
                .args
                .first()
                .is_some_and(|a| self.is_request_cancelled_future(a)),
            Expr::Reference(r) => self.is_request_cancelled_future(&r.expr),
            Expr::Paren(p) => self.is_request_cancelled_future(&p.expr),
            Expr::Group(g) => self.is_request_cancelled_future(&g.expr),
            Expr::Path(p) => p.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.functions
                    .last()
                    .is_some_and(|f| f.cancelled_futures.contains(&name))
            }),
            _ => false,
        }
    }

    /// `token.cancelled().await`: the code after it runs because of the cancellation.
    fn is_cancelled_await(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Await(a) => self.is_request_cancelled_future(&a.base),
            Expr::Paren(p) => self.is_cancelled_await(&p.expr),
            _ => false,
        }
    }

    /// How an `if` condition relates to cancellation.
    fn classify_condition(&self, cond: &Expr) -> Condition {
        match cond {
            Expr::Paren(p) => self.classify_condition(&p.expr),
            Expr::Group(g) => self.classify_condition(&g.expr),
            Expr::MethodCall(m)
                if m.method == "is_cancelled" && is_request_token(self.vocab, &m.receiver) =>
            {
                Condition::Cancelled(
                    OriginKind::IfCancelled,
                    self.span(cond),
                    "cancel path: this branch runs when the request has been cancelled".into(),
                    OriginCondition::Always,
                )
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                match self.classify_condition(&u.expr) {
                    Condition::Cancelled(OriginKind::IfCancelled, ..) => {
                        Condition::NotCancelled(self.span(cond))
                    }
                    _ => Condition::Plain,
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                match self.classify_condition(&b.left) {
                    Condition::Plain => self.classify_condition(&b.right),
                    other => other,
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => {
                match cancel_method_operand(self.vocab, &b.left)
                    .or_else(|| cancel_method_operand(self.vocab, &b.right))
                {
                    Some(condition) => Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles `notifications/cancelled`".into(),
                        condition,
                    ),
                    None => Condition::Plain,
                }
            }
            Expr::MethodCall(m) if m.method == "eq" && m.args.len() == 1 => {
                match m
                    .args
                    .first()
                    .and_then(|a| cancel_method_operand(self.vocab, a))
                {
                    Some(condition) => Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles `notifications/cancelled`".into(),
                        condition,
                    ),
                    None => Condition::Plain,
                }
            }
            Expr::Macro(m) if macro_name(&m.mac) == "matches" => {
                let cancels = parse_macro_body(&m.mac.tokens).is_some()
                    && tokens_mention_cancel(self.vocab, &m.mac.tokens);
                if cancels {
                    Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles `notifications/cancelled`".into(),
                        OriginCondition::Always,
                    )
                } else {
                    Condition::Plain
                }
            }
            Expr::Let(l) => match pattern_cancel_condition(self.vocab, &l.pat) {
                Some(condition) => Condition::Cancelled(
                    OriginKind::DispatchArm,
                    self.span(cond),
                    "cancel path: this branch handles the cancellation notification".into(),
                    condition,
                ),
                None if is_ok_pattern(&l.pat) && converts_to_cancel_notification(&l.expr) => {
                    Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles the cancellation notification".into(),
                        OriginCondition::Always,
                    )
                }
                None => Condition::Plain,
            },
            _ => Condition::Plain,
        }
    }

    /// Whether a statement starts a cancel path for the statements after it.
    fn starts_cancel_path(
        &self,
        stmt: &Stmt,
    ) -> Option<(OriginKind, ByteSpan, String, OriginCondition)> {
        match stmt {
            Stmt::Expr(expr, _) if self.is_cancelled_await(expr) => Some((
                OriginKind::AfterCancelledAwait,
                self.span(expr),
                "cancel path: the code after this runs once the request is cancelled".into(),
                OriginCondition::Always,
            )),
            Stmt::Expr(Expr::While(w), _) => match self.classify_condition(&w.cond) {
                Condition::NotCancelled(span) => Some((
                    OriginKind::AfterCancelLoop,
                    span,
                    "cancel path: the code after this loop runs once the request is cancelled"
                        .into(),
                    OriginCondition::Always,
                )),
                _ => None,
            },
            Stmt::Local(local) => {
                let init = local.init.as_ref()?;
                if self.is_cancelled_await(&init.expr) {
                    return Some((
                        OriginKind::AfterCancelledAwait,
                        self.span(&init.expr),
                        "cancel path: the code after this runs once the request is cancelled"
                            .into(),
                        OriginCondition::Always,
                    ));
                }
                init.diverge.as_ref()?;
                let cancels = pattern_cancel_condition(self.vocab, &local.pat).or_else(|| {
                    (is_ok_pattern(&local.pat) && converts_to_cancel_notification(&init.expr))
                        .then_some(OriginCondition::Always)
                })?;
                Some((
                    OriginKind::DispatchArm,
                    self.span(&local.pat),
                    "cancel path: the code after this handles the cancellation notification".into(),
                    cancels,
                ))
            }
            _ => None,
        }
    }

    /// `if token.is_cancelled() { return ..; }`: the code after it runs only for a request that
    /// was not cancelled.
    fn is_cancel_early_exit(&self, stmt: &Stmt) -> bool {
        let Stmt::Expr(Expr::If(i), _) = stmt else {
            return false;
        };
        let cancelled = matches!(
            self.classify_condition(&i.cond),
            Condition::Cancelled(OriginKind::IfCancelled, ..)
        );
        let diverges = match i.then_branch.stmts.last() {
            Some(Stmt::Expr(e, _)) => {
                matches!(e, Expr::Return(_) | Expr::Continue(_) | Expr::Break(_))
            }
            _ => false,
        };
        cancelled && diverges
    }

    /// The calls whose value an expression is or carries through conversions, and the calls
    /// that locals it names were built from: `error_reply(id)`, `serde_json::to_string(&reply)`
    /// with `let reply = self.reply_for(id)`.
    fn value_calls(&self, expr: &Expr) -> Vec<Callee> {
        let mut calls = Vec::new();
        let value = peel(expr);
        match value {
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    let segments = path_segments(&p.path);
                    if !segments
                        .iter()
                        .any(|s| s == "Some" || s == "Ok" || s == "Err")
                    {
                        calls.push(Callee::Path(segments));
                    }
                }
                for arg in &c.args {
                    calls.extend(self.value_calls(arg));
                }
            }
            Expr::MethodCall(m) => {
                let on_self = matches!(peel(&m.receiver), Expr::Path(p) if p.path.is_ident("self"));
                calls.push(Callee::Method {
                    name: m.method.to_string(),
                    on_self,
                    receiver: self.receiver_type(&m.receiver),
                });
                calls.extend(self.value_calls(&m.receiver));
            }
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    if let Some(state) = self.functions.last() {
                        if let Some(built) = state.built_from.get(&ident.to_string()) {
                            calls.extend(built.iter().cloned());
                        }
                    }
                }
            }
            _ => {}
        }
        calls
    }

    /// The type of a method call's receiver, when the code makes it evident.
    fn receiver_type(&self, receiver: &Expr) -> Option<ReceiverType> {
        match peel(receiver) {
            Expr::Path(p) => {
                let ident = p.path.get_ident()?.to_string();
                if ident == "self" {
                    return None;
                }
                self.functions
                    .last()
                    .and_then(|f| f.local_types.get(&ident))
                    .map(|t| ReceiverType::Named(t.clone()))
            }
            Expr::Field(f) => match (&*f.base, &f.member) {
                (Expr::Path(p), syn::Member::Named(field)) if p.path.is_ident("self") => {
                    Some(ReceiverType::SelfField(field.to_string()))
                }
                _ => None,
            },
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "lock"
                            | "read"
                            | "write"
                            | "unwrap"
                            | "as_ref"
                            | "as_mut"
                            | "borrow"
                            | "borrow_mut"
                    ) =>
            {
                self.receiver_type(&m.receiver)
            }
            Expr::Await(a) => self.receiver_type(&a.base),
            Expr::Try(t) => self.receiver_type(&t.expr),
            _ => None,
        }
    }

    /// A `select!` racing work against the request's token, whose cancel branch leaves nothing
    /// to send: the code after it runs only for a request that was not cancelled.
    fn starts_select_guard(&self, stmt: &Stmt) -> bool {
        let mac = match stmt {
            Stmt::Local(local) => match local.init.as_ref().map(|i| &*i.expr) {
                Some(Expr::Macro(m)) => &m.mac,
                _ => return false,
            },
            Stmt::Macro(m) => &m.mac,
            Stmt::Expr(Expr::Macro(m), _) => &m.mac,
            _ => return false,
        };
        if !super::syntax::is_select_macro(&macro_name(mac)) {
            return false;
        }
        let Some(arms) = parse_select(mac) else {
            return false;
        };
        arms.iter().any(|arm| {
            arm.future
                .as_ref()
                .is_some_and(|f| self.is_request_cancelled_future(f))
                && is_nothing_to_send(&arm.handler)
        })
    }

    // ----- statements and blocks -------------------------------------------------------------

    fn visit_stmts(&mut self, stmts: &[Stmt]) {
        let depth = self.origins.len();
        let guards = self.registry_guards.len();
        let guard_depth = self.guard_depth;
        let function_body = std::mem::take(&mut self.function_body_next);
        self.block_registries.push(Vec::new());
        for (index, stmt) in stmts.iter().enumerate() {
            let pending = self.functions.last().map_or(0, |f| f.pending_flows.len());
            let pending_returns = self.functions.last().map_or(0, |f| f.pending_returns.len());
            let removable = self.removable.len();
            match stmt {
                Stmt::Expr(expr, Some(_)) => {
                    self.note_removable(expr, Removal::Statement(self.span(stmt)))
                }
                Stmt::Expr(expr, None) if index + 1 == stmts.len() => self.note_removable(
                    expr,
                    Removal::Value {
                        span: self.span(expr),
                        replacement: UnitValue::Unit,
                    },
                ),
                Stmt::Local(local) if matches!(local.pat, Pat::Wild(_)) => {
                    if let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_none()) {
                        self.note_removable(&init.expr, Removal::Statement(self.span(stmt)));
                    }
                }
                Stmt::Macro(mac) => {
                    let span = self.span(&mac.mac);
                    self.removable
                        .push((span, Removal::Statement(self.span(stmt))));
                }
                _ => {}
            }
            self.visit_stmt(stmt);
            self.removable.truncate(removable);
            if function_body && index + 1 == stmts.len() {
                match stmt {
                    Stmt::Expr(tail, None) => self.note_returned(tail, pending_returns),
                    Stmt::Macro(m) if m.semi_token.is_none() => {
                        let tail = Expr::Macro(syn::ExprMacro {
                            attrs: Vec::new(),
                            mac: m.mac.clone(),
                        });
                        self.note_returned(&tail, pending_returns);
                    }
                    _ => {}
                }
            }
            if let Some(state) = self.current() {
                state.pending_flows.truncate(pending);
                state.pending_returns.truncate(pending_returns);
            }
            if let Some((kind, span, label, condition)) = self.starts_cancel_path(stmt) {
                let origin = self.add_origin(kind, span, label, condition);
                self.origins.push(origin);
            }
            // `let Some(..) = pool.remove(&id) else { .. };` guards the rest of the block.
            if let Stmt::Local(local) = stmt {
                if let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_some()) {
                    if let Some(collection) = registry_lookup(&init.expr) {
                        self.registry_guards.push(collection);
                    }
                }
            }
            if self.starts_select_guard(stmt) || self.is_cancel_early_exit(stmt) {
                self.guard_depth += 1;
            }
        }
        self.block_registries.pop();
        self.registry_guards.truncate(guards);
        self.guard_depth = guard_depth;
        self.origins.truncate(depth);
    }

    fn visit_with_origin(&mut self, origin: OriginId, f: impl FnOnce(&mut Self)) {
        self.origins.push(origin);
        f(self);
        self.origins.pop();
    }

    fn visit_guarded(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = std::mem::take(&mut self.origins);
        self.guard_depth += 1;
        f(self);
        self.guard_depth -= 1;
        self.origins = saved;
    }

    /// Visit code guarded by a registry's removal result.
    fn visit_registry_guarded(&mut self, collection: Option<String>, f: impl FnOnce(&mut Self)) {
        let pushed = collection.is_some();
        if let Some(collection) = collection {
            self.registry_guards.push(collection);
        }
        f(self);
        if pushed {
            self.registry_guards.pop();
        }
    }

    /// Note that the current statement touches an in-flight registry.
    fn touch_registry(&mut self, collection: String) {
        if let Some(state) = self.functions.last_mut() {
            if !state.facts.registries.contains(&collection) {
                state.facts.registries.push(collection.clone());
            }
        }
        if let Some(block) = self.block_registries.last_mut() {
            if !block.contains(&collection) {
                block.push(collection);
            }
        }
    }

    /// A response value built right here on a cancel path (for a local that receives it).
    fn cancel_value(&self, expr: &Expr) -> Option<FlowValue> {
        let value = peel(expr);
        (is_response_construct(value) || self.is_response_valued(value)).then(|| FlowValue {
            span: self.span(value),
            what: describe_construct(value),
            origins: self.origins.clone(),
        })
    }

    /// Remember the response values that a cancel-path branch evaluates to, for the `let` that
    /// receives them.
    fn note_flowing_values(&mut self, body: &Expr) {
        let origins = self.origins.clone();
        let values: Vec<FlowValue> = tail_values(body)
            .into_iter()
            .map(peel)
            .filter(|value| self.is_response_valued(value))
            .map(|value| FlowValue {
                span: self.span(value),
                what: describe_construct(value),
                origins: origins.clone(),
            })
            .collect();
        let returns: Vec<FlowValue> = tail_values(body)
            .into_iter()
            .filter(|value| !is_nothing_to_send(value))
            .map(|value| FlowValue {
                span: self.span(value),
                what: describe_value(value),
                origins: origins.clone(),
            })
            .collect();
        if let Some(state) = self.current() {
            state.pending_flows.extend(values);
            state.pending_returns.extend(returns);
        }
    }

    /// A value the function returns (its tail, or a `return`): record the cancel-path values it
    /// carries (from cancel branches inside it since `pending`, from locals it names, or itself
    /// when it is on a cancel path).
    fn note_returned(&mut self, value: &Expr, pending: usize) {
        let returns_response = tail_values(value)
            .into_iter()
            .any(|v| self.is_response_valued(v));
        let returned_calls: Vec<Callee> = tail_values(value)
            .into_iter()
            .flat_map(|v| self.value_calls(v))
            .collect();
        if let Some(state) = self.current() {
            state.facts.returns_response |= returns_response;
            for call in returned_calls {
                if !state.facts.returns_calls.contains(&call) {
                    state.facts.returns_calls.push(call);
                }
            }
        }
        let mut returned: Vec<FlowValue> = self
            .functions
            .last()
            .map(|f| f.pending_returns[pending.min(f.pending_returns.len())..].to_vec())
            .unwrap_or_default();
        for ident in value_idents(value) {
            if let Some(local) = self.local(&ident) {
                returned.extend(local.cancel_values.iter().cloned());
            }
        }
        if !self.origins.is_empty() {
            for tail in tail_values(value) {
                if !is_nothing_to_send(tail) {
                    returned.push(FlowValue {
                        span: self.span(tail),
                        what: describe_value(tail),
                        origins: self.origins.clone(),
                    });
                }
            }
        }
        if let Some(state) = self.current() {
            for value in returned {
                let site = ReturnSite {
                    span: value.span,
                    what: value.what,
                    origins: value.origins,
                };
                if !state.facts.cancel_returns.contains(&site) {
                    state.facts.cancel_returns.push(site);
                }
            }
        }
    }

    // ----- macros ----------------------------------------------------------------------------

    fn visit_macro_call(&mut self, mac: &Macro, span: ByteSpan) {
        let name = macro_name(mac);
        if name == "println" || name == "print" {
            if let Some(state) = self.current() {
                state.facts.touches_stdout = true;
            }
            // `println!()` has no body to parse: a bare newline.
            if mac.tokens.is_empty() {
                self.record_print(mac, &name, span, WriteContent::Unlabelled);
            }
        }
        if vocab::QUIET_MACROS.contains(&name.as_str()) || name == "json" {
            return;
        }
        if super::syntax::is_select_macro(&name) {
            if let Some(arms) = parse_select(mac) {
                self.visit_select(&arms);
                return;
            }
        }
        if vocab::WRITE_MACROS.contains(&name.as_str()) {
            if let Some(MacroBody::Exprs(args)) = parse_macro_body(&mac.tokens) {
                let skip = if name.starts_with("print") { 1 } else { 2 };
                // Identifiers captured inside the format string (`println!("{reply}")`) are
                // arguments too.
                let captured: Vec<Expr> = args
                    .get(skip - 1)
                    .and_then(str_literal)
                    .map(|format| inline_captures(&format))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|ident| syn::parse_str::<Expr>(&ident).ok())
                    .collect();
                let payload: Vec<&Expr> = args.iter().skip(skip).chain(captured.iter()).collect();
                // A write to stdout: `println!`/`print!`, or `write!`/`writeln!` into a stdout
                // handle.
                let to_stdout = skip == 1 || args.first().is_some_and(|a| self.is_stdout_expr(a));
                let content = to_stdout.then(|| {
                    self.format_content(args.get(skip - 1), args.get(skip..).unwrap_or(&[]))
                });
                match content {
                    Some(content) if skip == 1 => self.record_print(mac, &name, span, content),
                    Some(WriteContent::Text) => {
                        self.record_stdout(StdoutKind::Handle, span, span, WriteContent::Text)
                    }
                    _ => {}
                }
                let message = matches!(
                    content,
                    Some(WriteContent::Message | WriteContent::Unlabelled)
                );
                self.stdout_payload_depth += usize::from(message);
                for arg in &args {
                    self.visit_expr(arg);
                }
                self.stdout_payload_depth -= usize::from(message);
                if message {
                    let pretty: Vec<ByteSpan> =
                        payload.iter().flat_map(|a| self.pretty_behind(a)).collect();
                    self.record_pretty(pretty);
                }
                let pure = args.iter().all(is_pure);
                if payload.iter().any(|a| self.is_response_valued(a)) {
                    self.record_sink(span, SinkKind::Response, format!("`{name}!(..)`"), pure);
                } else if payload.iter().any(|a| self.is_further_message(a)) {
                    self.record_sink(
                        span,
                        SinkKind::FurtherMessage,
                        format!("`{name}!(..)`"),
                        pure,
                    );
                }
                if self.origins.is_empty() {
                    self.record_flows(&payload, span);
                }
            } else if (name == "println" || name == "print") && !mac.tokens.is_empty() {
                // A body that does not read as expressions: report it as text.
                self.record_print(mac, &name, span, WriteContent::Text);
            }
            return;
        }
        match parse_macro_body(&mac.tokens) {
            Some(MacroBody::Exprs(exprs)) => {
                for expr in &exprs {
                    self.visit_expr(expr);
                }
            }
            Some(MacroBody::Stmts(stmts)) => self.visit_stmts(&stmts),
            None => {}
        }
    }

    fn visit_select(&mut self, arms: &[super::syntax::SelectArm]) {
        let races_cancellation = arms.iter().any(|arm| {
            arm.future
                .as_ref()
                .is_some_and(|f| self.is_request_cancelled_future(f))
        });
        for arm in arms {
            if let Some(future) = &arm.future {
                self.visit_expr(future);
            }
            if let Some(guard) = &arm.guard {
                self.visit_expr(guard);
            }
            let cancels = arm
                .future
                .as_ref()
                .is_some_and(|f| self.is_request_cancelled_future(f));
            if let (true, Some(future)) = (cancels, &arm.future) {
                let origin = self.add_origin(
                    OriginKind::SelectArm,
                    self.span(future),
                    "cancel path: this `select!` branch runs when the request is cancelled".into(),
                    OriginCondition::Always,
                );
                self.visit_with_origin(origin, |this| {
                    this.visit_arm_body(&arm.handler);
                    this.note_flowing_values(&arm.handler);
                });
            } else {
                if let (Some(pattern), Some(future)) = (&arm.pattern, &arm.future) {
                    self.bind(pattern, Some(future), Vec::new());
                }
                // A branch raced against the request's cancellation runs only if it won.
                if races_cancellation {
                    self.guard_depth += 1;
                }
                self.visit_arm_body(&arm.handler);
                if races_cancellation {
                    self.guard_depth -= 1;
                }
            }
        }
    }

    /// `stdout()`, `tracing_subscriber::fmt()` and friends; `serde_json::to_string`.
    fn check_stdout_call(&mut self, segments: &[String], call: &syn::ExprCall) {
        let joined = segments.join("::");
        let last = segments.last().map(String::as_str).unwrap_or("");
        if segments.first().is_some_and(|s| s == "serde_json")
            && matches!(
                last,
                "to_string"
                    | "to_vec"
                    | "to_writer"
                    | "to_string_pretty"
                    | "to_writer_pretty"
                    | "to_vec_pretty"
            )
        {
            let pretty = last.ends_with("_pretty");
            let name_span = match &*call.func {
                Expr::Path(p) => p.path.segments.last().map(|s| self.span(&s.ident)),
                _ => None,
            };
            if let Some(state) = self.current() {
                state.facts.serializes_json = true;
            }
            // `to_writer(out, ..)` writes; the others make a value.
            let into_stdout = last.starts_with("to_writer")
                && call.args.first().is_some_and(|a| self.is_stdout_expr(a));
            if let Some(capture) = self.let_captures.last_mut() {
                capture.serialized |= !last.starts_with("to_writer");
            }
            if let (true, Some(name_span)) = (pretty, name_span) {
                if into_stdout || self.stdout_payload_depth > 0 {
                    self.record_pretty([name_span]);
                } else if let Some(capture) = self.let_captures.last_mut() {
                    capture.pretty.push(name_span);
                }
            }
        }
        let span = self.span(call);
        if last == "stdout"
            && call.args.is_empty()
            && (segments.len() == 1 || joined.ends_with("io::stdout"))
        {
            if let Some(state) = self.current() {
                state.facts.touches_stdout = true;
            }
            // Writes through the handle are judged where they are made (`write_all(..)`,
            // `writeln!(..)`); a `flush` or `lock` alone writes nothing.
            return;
        }
        let text = WriteContent::Text;
        let is_fmt_root = joined == "tracing_subscriber::fmt"
            || joined.ends_with("fmt::Subscriber::builder")
            || joined.ends_with("FmtSubscriber::builder")
            || joined == "tracing_subscriber::fmt::layer"
            || joined == "fmt::layer"
            || (joined == "fmt" && call.args.is_empty());
        if is_fmt_root {
            // `with_writer_stdout`: the chain names a writer that is stdout.
            if self.chain_methods.iter().any(|m| m == "with_writer_stdout") {
                self.record_stdout(StdoutKind::TracingFmtToStdout, span, span, text);
            } else if !self
                .chain_methods
                .iter()
                .any(|m| m == "with_writer" || m == "with_ansi_writer")
            {
                self.record_stdout(StdoutKind::TracingFmt, span, span, text);
            }
        } else if joined == "tracing_subscriber::fmt::init" || joined == "fmt::init" {
            self.record_stdout(StdoutKind::TracingFmtInit, span, span, text);
        } else if joined.ends_with("ConsoleAppender::builder") && call.args.is_empty() {
            // `target_stderr`: the chain sets `.target(Target::Stderr)`.
            if self.chain_methods.iter().any(|m| m == "target") {
                self.record_stdout(StdoutKind::Log4rsConsoleToStdout, span, span, text);
            } else if !self.chain_methods.iter().any(|m| m == "target_stderr") {
                self.record_stdout(StdoutKind::Log4rsConsole, span, span, text);
            }
        }
    }

    /// A `match` or `select!` arm's body: a send that is the whole body could become `{}`.
    fn visit_arm_body(&mut self, body: &Expr) {
        let removable = self.removable.len();
        if !matches!(body, Expr::Block(_)) {
            self.note_removable(
                body,
                Removal::Value {
                    span: self.span(body),
                    replacement: UnitValue::EmptyBlock,
                },
            );
        }
        self.visit_expr(body);
        self.removable.truncate(removable);
    }

    // ----- sends and calls -------------------------------------------------------------------

    fn check_send_call(
        &mut self,
        name: &str,
        span: ByteSpan,
        args: &[&Expr],
        what: String,
        pure: bool,
    ) {
        if self.vocab.is_sink_call(name) {
            self.record_sink(span, SinkKind::Response, what, pure);
        } else if vocab::FURTHER_MESSAGE_CALLS.contains(&name) {
            self.record_sink(span, SinkKind::FurtherMessage, what, pure);
        } else if vocab::TRANSPORT_CALLS.contains(&name) {
            if args.iter().any(|a| self.is_response_valued(a)) {
                self.record_sink(span, SinkKind::Response, what, pure);
            } else if args.iter().any(|a| self.is_further_message(a)) {
                self.record_sink(span, SinkKind::FurtherMessage, what, pure);
            } else {
                // `tx.send(error_reply(id))`: a response send if a called function returns one.
                let calls: Vec<Callee> = args.iter().flat_map(|a| self.value_calls(a)).collect();
                if !calls.is_empty() {
                    self.sink_condition = calls;
                    self.record_sink(span, SinkKind::Response, what, pure);
                }
            }
            if self.origins.is_empty() {
                self.record_flows(args, span);
            }
        }
    }
}

/// Calls that register a request in, or retire it from, an in-flight registry. (Looking one up
/// does not count: answering a `tasks/cancel` request looks up another request.)
const REGISTRY_TOUCH: &[&str] = &[
    "insert",
    "remove",
    "take",
    "remove_entry",
    "swap_remove",
    "shift_remove",
];
const REGISTRY_REMOVE: &[&str] = &[
    "remove",
    "take",
    "remove_entry",
    "swap_remove",
    "shift_remove",
];

/// The name of the collection an expression reaches: `self.in_flight.lock().await` gives
/// `in_flight`, `local_ct_pool` gives `local_ct_pool`.
fn collection_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(ident) => Some(ident.to_string()),
            syn::Member::Unnamed(_) => collection_name(&f.base),
        },
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "lock"
                    | "read"
                    | "write"
                    | "borrow"
                    | "borrow_mut"
                    | "unwrap"
                    | "expect"
                    | "as_mut"
                    | "as_ref"
            ) =>
        {
            collection_name(&m.receiver)
        }
        Expr::Await(a) => collection_name(&a.base),
        Expr::Try(t) => collection_name(&t.expr),
        Expr::Paren(p) => collection_name(&p.expr),
        Expr::Reference(r) => collection_name(&r.expr),
        _ => None,
    }
}

/// `pool.remove(&id)` (or `get`, `contains_key`, possibly followed by `.is_some()`): the
/// registry whose answer decides whether the request is still in flight.
fn registry_lookup(expr: &Expr) -> Option<String> {
    match expr {
        Expr::MethodCall(m) if m.method == "is_some" && m.args.is_empty() => {
            registry_lookup(&m.receiver)
        }
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "remove"
                    | "take"
                    | "remove_entry"
                    | "swap_remove"
                    | "shift_remove"
                    | "get"
                    | "get_mut"
                    | "contains_key"
            ) && m.args.len() == 1 =>
        {
            collection_name(&m.receiver)
        }
        Expr::Paren(p) => registry_lookup(&p.expr),
        Expr::Await(a) => registry_lookup(&a.base),
        _ => None,
    }
}

/// The type a value is evidently built as: `Session { .. }`, `Session::new(..)`,
/// `Arc::new(Session::new(..))`.
fn constructed_type(expr: &Expr) -> Option<String> {
    match peel(expr) {
        Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => {
                let segments = path_segments(&p.path);
                if segments.len() >= 2 {
                    let ty = &segments[segments.len() - 2];
                    if matches!(
                        ty.as_str(),
                        "Arc" | "Rc" | "Box" | "Mutex" | "RwLock" | "RefCell"
                    ) {
                        return c.args.first().and_then(constructed_type);
                    }
                    if ty.chars().next().is_some_and(|ch| ch.is_ascii_uppercase()) && ty != "Self" {
                        return Some(ty.clone());
                    }
                }
                None
            }
            _ => None,
        },
        _ => None,
    }
}

/// The identifiers a format string captures inline: `"{reply} {id:?}"` gives `reply`, `id`.
fn inline_captures(format: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = rest[..end].trim();
        if !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            found.push(name.to_string());
        }
    }
    found
}

/// A value without the calls that only unwrap or view it: `x?`, `x.unwrap()`, `x.as_bytes()`,
/// `&x`.
fn unwrap_chain(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => unwrap_chain(&p.expr),
        Expr::Group(g) => unwrap_chain(&g.expr),
        Expr::Reference(r) => unwrap_chain(&r.expr),
        Expr::Try(t) => unwrap_chain(&t.expr),
        Expr::Await(a) => unwrap_chain(&a.base),
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "unwrap"
                    | "expect"
                    | "unwrap_or_default"
                    | "unwrap_or"
                    | "unwrap_or_else"
                    | "as_bytes"
                    | "as_str"
                    | "as_slice"
                    | "clone"
                    | "to_string"
            ) =>
        {
            unwrap_chain(&m.receiver)
        }
        other => other,
    }
}

/// The local an expression writes, through [`unwrap_chain`]: `line`, `&line`, `line.as_bytes()`.
fn local_ident(expr: &Expr) -> Option<String> {
    match unwrap_chain(expr) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// A format string's own text: without its `{..}` placeholders (`{{` and `}}` are text).
fn format_text(format: &str) -> String {
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                for inner in chars.by_ref() {
                    if inner == '}' {
                        break;
                    }
                }
            }
            other => text.push(other),
        }
    }
    text
}

/// A call that serves over stdio, by its name: `serve`, `serve_server`, `stdin`, and any name
/// with `stdio` in it (`stdio()`, `run_stdio()`, `serve_stdio()`).
fn is_serve_name(name: &str) -> bool {
    name == "serve" || name == "serve_server" || name == "stdin" || name.contains("stdio")
}

/// Whether code reaches a call that serves over stdio (or names `StdioTransport`).
struct ServingFinder(bool);

impl<'ast> Visit<'ast> for ServingFinder {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*call.func {
            if p.path
                .segments
                .last()
                .is_some_and(|s| is_serve_name(&s.ident.to_string()))
            {
                self.0 = true;
            }
        }
        visit::visit_expr_call(self, call);
    }
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if is_serve_name(&call.method.to_string()) {
            self.0 = true;
        }
        visit::visit_expr_method_call(self, call);
    }
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.iter().any(|s| s.ident == "StdioTransport") {
            self.0 = true;
        }
        visit::visit_path(self, path);
    }
    fn visit_macro(&mut self, mac: &'ast Macro) {
        if let Some(body) = parse_macro_body(&mac.tokens) {
            match body {
                MacroBody::Exprs(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
                MacroBody::Stmts(stmts) => stmts.iter().for_each(|s| self.visit_stmt(s)),
            }
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn reaches_serving(expr: &Expr) -> bool {
    let mut finder = ServingFinder(false);
    finder.visit_expr(expr);
    finder.0
}

fn reaches_serving_block(block: &syn::Block) -> bool {
    let mut finder = ServingFinder(false);
    finder.visit_block(block);
    finder.0
}

/// Whether a block ends by leaving the function or the process: its last statement is a
/// `return` or an `exit(..)` call.
fn diverges(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, _)) => diverges_expr(expr),
        _ => false,
    }
}

fn diverges_expr(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) => true,
        Expr::Block(b) => diverges(&b.block),
        Expr::Call(call) => matches!(&*call.func, Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "exit")),
        _ => false,
    }
}

/// Whether tokens look at a command-line flag or sub-command: a string literal starting with
/// `-` (`"--version"`, `"-h"`), or the word `version` or `help` (`cli.version`, `"help"`).
fn tokens_check_cli(tokens: &str) -> bool {
    tokens.contains("\"-")
        || tokens
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|word| word == "version" || word == "help")
}

fn is_cli_check(cond: &Expr) -> bool {
    tokens_check_cli(&quote::ToTokens::to_token_stream(cond).to_string())
}

fn is_cli_check_pattern(pat: &Pat) -> bool {
    tokens_check_cli(&quote::ToTokens::to_token_stream(pat).to_string())
}

use super::syntax::is_test_item;

/// A channel's name without its end's suffix: `sink_proxy_tx` gives `sink_proxy`, `tx` gives `""`.
fn channel_base(name: &str, suffixes: &[&str]) -> Option<String> {
    suffixes
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .map(str::to_string)
}

/// Whether a pattern matches a response or error message variant: `JsonRpcMessage::Response(..)`.
fn is_response_variant_pattern(pat: &Pat) -> bool {
    let path = match pat {
        Pat::TupleStruct(ts) => &ts.path,
        Pat::Struct(st) => &st.path,
        Pat::Path(p) => &p.path,
        Pat::Or(or) => return or.cases.iter().any(is_response_variant_pattern),
        _ => return false,
    };
    let segments = path_segments(path);
    segments.len() >= 2
        && matches!(
            segments[segments.len() - 1].as_str(),
            "Response" | "Error" | "Result"
        )
        && {
            let ty = &segments[segments.len() - 2];
            ty.contains("Message")
                || ty.contains("JsonRpc")
                || ty.contains("Jsonrpc")
                || ty.contains("JSONRPC")
        }
}

/// Whether a branch's value is "nothing to send": it diverges (`return`, `continue`, `break`),
/// or is `()`, `None`, `Ok(None)` or a silent outcome.
fn is_nothing_to_send(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Continue(_) | Expr::Break(_) => true,
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "None" | "Silent" | "NoResponse" | "Ignore" | "Skip"
            )
        }),
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Ok") || p.path.is_ident("Some"))
                && c.args.first().is_some_and(is_nothing_to_send)
        }
        Expr::Block(b) => match b.block.stmts.last() {
            None => true,
            Some(Stmt::Expr(e, None)) => is_nothing_to_send(e),
            Some(_) => true,
        },
        Expr::Macro(m) => matches!(
            macro_name(&m.mac).as_str(),
            "unreachable" | "panic" | "todo"
        ),
        Expr::Paren(p) => is_nothing_to_send(&p.expr),
        _ => false,
    }
}

/// The value of a `#[path = ".."]` attribute.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => str_literal(&nv.value),
        _ => None,
    })
}

/// A short description of a value for messages: `Err(McpError::..)`.
fn describe_value(expr: &Expr) -> String {
    let text = quote::ToTokens::to_token_stream(expr).to_string();
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = text.chars().take(40).collect();
    if short.len() < text.len() {
        format!("`{short}..`")
    } else {
        format!("`{short}`")
    }
}

/// Whether the callee of a call is named like a sink (then it is a send, not a call to follow).
fn is_send_name(vocabulary: &vocab::Vocabulary, name: &str) -> bool {
    vocabulary.is_sink_call(name) || vocab::FURTHER_MESSAGE_CALLS.contains(&name)
}

/// A request token's receiver: anything not named like a server-wide shutdown token.
fn is_request_token(vocabulary: &vocab::Vocabulary, receiver: &Expr) -> bool {
    vocabulary.is_request_token(&expr_idents(receiver))
}

/// Whether an expression constructs a JSON-RPC response or error message.
fn is_response_construct(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return false;
            };
            let segments = path_segments(&func.path);
            let Some(last) = segments.last() else {
                return false;
            };
            if segments.len() >= 2 {
                let ty = &segments[segments.len() - 2];
                if ty == "ServerMessage" && last == "from_message" {
                    // `from_message(msg, Some(id))` is a response; `None` a notification.
                    return call.args.iter().nth(1).is_some_and(|a| {
                        matches!(a, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")))
                    });
                }
                if vocab::is_response_constructor(ty, last) {
                    return true;
                }
            }
            vocab::is_response_builder_name(last)
                && !segments
                    .iter()
                    .any(|s| s == "http" || s == "axum" || s == "hyper")
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            vocab::is_response_builder_name(&name) && name != "response"
        }
        Expr::Struct(s) => {
            let segments = path_segments(&s.path);
            let type_name = segments.last().cloned().unwrap_or_default();
            if vocab::is_response_struct(&type_name) {
                return true;
            }
            let fields: Vec<String> = s
                .fields
                .iter()
                .filter_map(|f| match &f.member {
                    syn::Member::Named(ident) => Some(ident.to_string()),
                    syn::Member::Unnamed(_) => None,
                })
                .collect();
            let has = |name: &str| fields.iter().any(|f| f == name);
            has("id")
                && (has("result") || has("error"))
                && (has("jsonrpc") || type_name.contains("Response") || type_name.contains("Reply"))
        }
        Expr::Macro(m) => json_shape(&m.mac).is_some_and(|s| s.is_response()),
        _ => false,
    }
}

/// A short description of a response construct for messages.
fn describe_construct(expr: &Expr) -> String {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => format!("`{}(..)`", path_segments(&p.path).join("::")),
            _ => "the response".into(),
        },
        Expr::Struct(s) => format!("`{} {{ .. }}`", path_segments(&s.path).join("::")),
        Expr::Macro(m) => format!("`{}!({{ .. }})`", macro_name(&m.mac)),
        Expr::MethodCall(m) => format!("`.{}(..)`", m.method),
        _ => "the response".into(),
    }
}

/// How a call expression reads in a message: `self.send_error(..)`, `transport::send(..)`.
fn describe_call(receiver: Option<&Expr>, name: &str) -> String {
    match receiver {
        Some(receiver) => {
            let text = quote::ToTokens::to_token_stream(receiver).to_string();
            let text: String = text.split_whitespace().collect::<Vec<_>>().join("");
            if text.len() <= 40 {
                format!("`{text}.{name}(..)`")
            } else {
                format!("`.{name}(..)`")
            }
        }
        None => format!("`{name}(..)`"),
    }
}

/// `"notifications/cancelled"` or a constant that may hold it.
fn cancel_method_operand(vocabulary: &vocab::Vocabulary, expr: &Expr) -> Option<OriginCondition> {
    if str_literal(expr).is_some_and(|s| vocabulary.is_cancel_method(&s)) {
        return Some(OriginCondition::Always);
    }
    match expr {
        Expr::Path(p) => const_condition(&path_segments(&p.path)),
        Expr::Reference(r) => cancel_method_operand(vocabulary, &r.expr),
        Expr::MethodCall(m) if m.args.is_empty() => cancel_method_operand(vocabulary, &m.receiver),
        _ => None,
    }
}

fn const_condition(segments: &[String]) -> Option<OriginCondition> {
    let last = segments.last()?;
    let is_const_like = last.chars().any(|c| c.is_ascii_uppercase())
        && !last.chars().any(|c| c.is_ascii_lowercase());
    is_const_like.then(|| OriginCondition::ConstNamed(last.clone()))
}

/// Whether a pattern selects the cancellation notification: its method string, a constant, or an
/// enum variant such as `ClientNotification::CancelledNotification(..)`.
fn pattern_cancel_condition(v: &vocab::Vocabulary, pat: &Pat) -> Option<OriginCondition> {
    match pat {
        Pat::Lit(lit) => str_literal(&Expr::Lit(lit.clone()))
            .is_some_and(|s| v.is_cancel_method(&s))
            .then_some(OriginCondition::Always),
        Pat::Ident(ident) if ident.subpat.is_none() => const_condition(&[ident.ident.to_string()]),
        Pat::Ident(ident) => ident
            .subpat
            .as_ref()
            .and_then(|(_, sub)| pattern_cancel_condition(v, sub)),
        Pat::Path(p) => {
            let segments = path_segments(&p.path);
            if v.is_cancel_notification_path(&segments) {
                Some(OriginCondition::Always)
            } else if segments.len() >= 2 {
                const_condition(&segments)
            } else {
                None
            }
        }
        Pat::TupleStruct(ts) => {
            let turbofish = ts
                .path
                .segments
                .iter()
                .any(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| {
                        matches!(arg, syn::GenericArgument::Type(syn::Type::Path(t))
                        if v.is_cancel_notification_path(&path_segments(&t.path)))
                    }),
                    _ => false,
                });
            if turbofish || v.is_cancel_notification_path(&path_segments(&ts.path)) {
                Some(OriginCondition::Always)
            } else {
                ts.elems.iter().find_map(|p| pattern_cancel_condition(v, p))
            }
        }
        Pat::Struct(s) => {
            if v.is_cancel_notification_path(&path_segments(&s.path)) {
                Some(OriginCondition::Always)
            } else {
                s.fields
                    .iter()
                    .find_map(|f| pattern_cancel_condition(v, &f.pat))
            }
        }
        Pat::Or(or) => or.cases.iter().find_map(|p| pattern_cancel_condition(v, p)),
        Pat::Paren(p) => pattern_cancel_condition(v, &p.pat),
        Pat::Reference(r) => pattern_cancel_condition(v, &r.pat),
        Pat::Tuple(t) => t.elems.iter().find_map(|p| pattern_cancel_condition(v, p)),
        _ => None,
    }
}

fn is_ok_pattern(pat: &Pat) -> bool {
    matches!(pat, Pat::TupleStruct(ts) if ts.path.is_ident("Ok") || ts.path.is_ident("Some"))
}

/// `x.try_into::<CancelledNotification>()`, `CancelledNotification::try_from(x)`,
/// `serde_json::from_value::<CancelledNotification>(..)`.
fn converts_to_cancel_notification(expr: &Expr) -> bool {
    // A call that extracts the cancellation from a notification: `R::peer_cancelled_params(&n)`,
    // `n.as_cancelled()`.
    let callee = match strip_statement_wrappers(expr) {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        Expr::MethodCall(m) => Some(m.method.to_string()),
        _ => None,
    };
    if let Some(name) = callee {
        let lower = name.to_ascii_lowercase();
        if (lower.contains("cancelled") || lower.contains("cancellation"))
            && !matches!(
                lower.as_str(),
                "cancelled" | "cancelled_owned" | "is_cancelled"
            )
            && !lower.contains("task")
            && !lower.contains("token")
        {
            return true;
        }
    }
    let idents = expr_idents(expr);
    idents
        .iter()
        .any(|i| i == "CancelledNotification" || i == "CancelledNotificationParam")
        && idents
            .iter()
            .any(|i| i.starts_with("try_") || i.starts_with("from_") || i == "parse")
}

fn tokens_mention_cancel(v: &vocab::Vocabulary, tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Literal(lit) => {
            v.is_cancel_method(lit.to_string().trim_matches('"'))
        }
        proc_macro2::TokenTree::Ident(ident) => {
            let text = ident.to_string();
            text == "CancelledNotification" || vocab::is_cancel_const_name(&text)
        }
        proc_macro2::TokenTree::Group(g) => tokens_mention_cancel(v, &g.stream()),
        proc_macro2::TokenTree::Punct(_) => false,
    })
}

impl FactsBuilder<'_> {
    /// What a method call does to the in-flight registries: drains a channel (`rx.recv()`),
    /// touches or (on a cancel path) removes from a registry keyed by request, aborts a task.
    fn note_registry_method(&mut self, call: &syn::ExprMethodCall, name: &str, span: ByteSpan) {
        if matches!(
            name,
            "recv" | "try_recv" | "recv_async" | "blocking_recv" | "recv_many"
        ) {
            let drained = collection_name(&call.receiver)
                .and_then(|n| channel_base(&n, &["_rx", "_receiver", "rx", "receiver"]));
            if let (Some(drained), Some(state)) = (drained, self.functions.last_mut()) {
                if !state.facts.drains.contains(&drained) {
                    state.facts.drains.push(drained);
                }
            }
        }
        // A registry is keyed by request: `Option::take()` and friends (no key) are not one.
        if REGISTRY_TOUCH.contains(&name) && !call.args.is_empty() {
            if let Some(collection) = collection_name(&call.receiver) {
                if REGISTRY_REMOVE.contains(&name) && !self.origins.is_empty() {
                    self.facts.registry_removals.push(RegistryRemoval {
                        collection: collection.clone(),
                        span,
                        origins: self.origins.clone(),
                    });
                }
                self.touch_registry(collection);
            }
        }
        if name == "abort" && call.args.is_empty() && !self.origins.is_empty() {
            self.facts.cancel_aborts.push(self.origins.clone());
        }
    }

    /// A `write_all`/`write`/.. into stdout: recorded; whether it writes a message (whose
    /// arguments are then a payload).
    fn note_stdout_method_write(&mut self, call: &syn::ExprMethodCall, span: ByteSpan) -> bool {
        let writes = matches!(
            call.method.to_string().as_str(),
            "write_all" | "write" | "write_fmt" | "write_str" | "write_vectored"
        );
        let mut message = false;
        if writes && self.is_stdout_expr(&call.receiver) {
            let content = self.bytes_content(call.args.first());
            // A write straight into `stdout()` is judged with the function (the transport's
            // write site serialises JSON); one through a local handle only when it is text,
            // since the transport's helpers write the lines they are handed.
            let direct = local_ident(&call.receiver).is_none();
            if content == WriteContent::Text || direct {
                self.record_stdout(StdoutKind::Handle, span, span, content);
            }
            message = content != WriteContent::Text;
            if message {
                let pretty: Vec<ByteSpan> = call
                    .args
                    .iter()
                    .flat_map(|a| self.pretty_behind(a))
                    .collect();
                self.record_pretty(pretty);
            }
        }
        message
    }
}

impl<'ast> Visit<'ast> for FactsBuilder<'_> {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        let saved = std::mem::take(&mut self.impls);
        let span = self.span(item);
        let test = is_test_item(&item.attrs);
        self.test_depth += usize::from(test);
        self.with_function(span, &item.sig, None, None, &item.block);
        self.test_depth -= usize::from(test);
        self.impls = saved;
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        let (self_ty, trait_name) = self.impls.last().cloned().unwrap_or((None, None));
        let span = self.span(item);
        self.with_function(span, &item.sig, self_ty, trait_name, &item.block);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            let trait_name = self.impls.last().and_then(|(_, t)| t.clone());
            let span = self.span(item);
            self.with_function(span, &item.sig, None, trait_name, block);
        }
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        let self_ty = match &*item.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let trait_name = item
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last().map(|s| s.ident.to_string()));
        let span = self.span(item);
        self.facts.items.push(span);
        self.impls.push((self_ty, trait_name));
        for impl_item in &item.items {
            self.visit_impl_item(impl_item);
        }
        self.impls.pop();
    }

    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        let span = self.span(item);
        self.facts.items.push(span);
        self.impls.push((None, Some(item.ident.to_string())));
        for trait_item in &item.items {
            self.visit_trait_item(trait_item);
        }
        self.impls.pop();
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        let path_attr = path_attribute(&item.attrs);
        let span = self.span(item);
        self.facts.items.push(span);
        let test = is_test_item(&item.attrs);
        match &item.content {
            Some((_, items)) => {
                self.module.push(name.clone());
                self.inline_modules.push(InlineModule { name, path_attr });
                self.test_depth += usize::from(test);
                for nested in items {
                    self.visit_item(nested);
                }
                self.test_depth -= usize::from(test);
                self.inline_modules.pop();
                self.module.pop();
            }
            None if self.functions.is_empty() => self.facts.mod_decls.push(ModDecl {
                name,
                path_attr,
                inline: self.inline_modules.clone(),
            }),
            None => {}
        }
    }

    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        let name = item.ident.to_string();
        for field in &item.fields {
            if let (Some(ident), Some(ty)) = (&field.ident, type_name(&field.ty)) {
                self.facts
                    .struct_fields
                    .push((name.clone(), ident.to_string(), ty));
            }
        }
    }

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if let Some(value) = str_literal(&item.expr) {
            self.facts
                .string_consts
                .push((item.ident.to_string(), value));
        }
    }

    fn visit_impl_item_const(&mut self, item: &'ast syn::ImplItemConst) {
        if let Some(value) = str_literal(&item.expr) {
            self.facts
                .string_consts
                .push((item.ident.to_string(), value));
        }
    }

    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        if let Some(value) = str_literal(&item.expr) {
            self.facts
                .string_consts
                .push((item.ident.to_string(), value));
        }
    }

    fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
        // `macro_rules!` definitions hold patterns, not code; other item macros are not read.
        let _ = item;
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.visit_stmts(&block.stmts);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let Some(init) = &local.init else {
            return;
        };
        let pending = self.functions.last().map_or(0, |f| f.pending_flows.len());
        let pending_returns = self.functions.last().map_or(0, |f| f.pending_returns.len());
        self.let_captures.push(LetCapture::default());
        self.visit_expr(&init.expr);
        let capture = self.let_captures.pop().unwrap_or_default();
        let stdout_handle = self.is_stdout_expr(&init.expr);
        let aliased = local_ident(&init.expr)
            .and_then(|name| self.functions.last()?.serialized_locals.get(&name).cloned());
        if capture.serialized || stdout_handle || aliased.is_some() {
            let bindings = pattern_bindings(&local.pat);
            if let Some(state) = self.current() {
                for name in bindings {
                    if stdout_handle {
                        state.stdout_locals.push(name.clone());
                    }
                    if capture.serialized || aliased.is_some() {
                        let mut pretty = capture.pretty.clone();
                        pretty.extend(aliased.iter().flatten().copied());
                        state.serialized_locals.insert(name, pretty);
                    }
                }
            }
        }
        let flows = self
            .current()
            .map(|f| {
                f.pending_flows
                    .split_off(pending.min(f.pending_flows.len()))
            })
            .unwrap_or_default();
        let returns = self
            .current()
            .map(|f| {
                f.pending_returns
                    .split_off(pending_returns.min(f.pending_returns.len()))
            })
            .unwrap_or_default();
        self.bind(&local.pat, Some(&init.expr), flows);
        let mut carried: Vec<FlowValue> = returns;
        for ident in value_idents(&init.expr) {
            if let Some(l) = self.local(&ident) {
                carried.extend(l.cancel_values.iter().cloned());
            }
        }
        if !carried.is_empty() {
            let bindings = pattern_bindings(&local.pat);
            if let Some(state) = self.current() {
                for name in bindings {
                    state
                        .locals
                        .entry(name)
                        .or_default()
                        .cancel_values
                        .extend(carried.iter().cloned());
                }
            }
        }
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        let span = self.span(&stmt.mac);
        self.visit_macro_call(&stmt.mac, span);
    }

    fn visit_expr_macro(&mut self, expr: &'ast syn::ExprMacro) {
        let span = self.span(expr);
        self.visit_macro_call(&expr.mac, span);
    }

    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        let pending = self.functions.last().map_or(0, |f| f.pending_flows.len());
        self.visit_expr(&assign.right);
        let flows = self
            .current()
            .map(|f| {
                f.pending_flows
                    .split_off(pending.min(f.pending_flows.len()))
            })
            .unwrap_or_default();
        if let Expr::Path(p) = &*assign.left {
            if let Some(ident) = p.path.get_ident() {
                let response = self.is_response_valued(&assign.right);
                let further = self.is_further_message(&assign.right);
                let mut carried = self.flows_of(&assign.right);
                carried.extend(flows);
                if !self.origins.is_empty() {
                    carried.extend(self.cancel_value(&assign.right));
                }
                let name = ident.to_string();
                if let Some(state) = self.current() {
                    let entry = state.locals.entry(name).or_default();
                    entry.response |= response;
                    entry.further |= further;
                    for flow in carried {
                        if !entry.flows.contains(&flow) {
                            entry.flows.push(flow);
                        }
                    }
                }
                return;
            }
        }
        self.visit_expr(&assign.left);
    }

    fn visit_expr_if(&mut self, expr: &'ast syn::ExprIf) {
        self.note_off_path_if(expr);
        self.visit_expr(&expr.cond);
        if let Expr::Let(l) = &*expr.cond {
            self.bind(&l.pat, Some(&l.expr), Vec::new());
        }
        match self.classify_condition(&expr.cond) {
            Condition::Cancelled(kind, span, label, condition) => {
                let origin = self.add_origin(kind, span, label, condition);
                self.visit_with_origin(origin, |this| {
                    this.visit_block(&expr.then_branch);
                    let value = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: expr.then_branch.clone(),
                    });
                    this.note_flowing_values(&value);
                });
                if let Some((_, else_branch)) = &expr.else_branch {
                    self.visit_expr(else_branch);
                }
            }
            Condition::NotCancelled(span) => {
                self.visit_guarded(|this| this.visit_block(&expr.then_branch));
                if let Some((_, else_branch)) = &expr.else_branch {
                    let origin = self.add_origin(
                        OriginKind::IfCancelled,
                        span,
                        "cancel path: this `else` branch runs when the request has been cancelled"
                            .into(),
                        OriginCondition::Always,
                    );
                    self.visit_with_origin(origin, |this| this.visit_expr(else_branch));
                }
            }
            Condition::Plain => {
                let guard = match &*expr.cond {
                    Expr::Let(l) if matches!(&*l.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some")) => {
                        registry_lookup(&l.expr)
                    }
                    other => registry_lookup(other),
                };
                self.visit_registry_guarded(guard, |this| this.visit_block(&expr.then_branch));
                if let Some((_, else_branch)) = &expr.else_branch {
                    self.visit_expr(else_branch);
                }
            }
        }
    }

    fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
        self.note_off_path_match(expr);
        self.visit_expr(&expr.expr);
        // `match &m { JsonRpcMessage::Response(..) => .. }`: `m` holds a response message.
        if expr
            .arms
            .iter()
            .any(|arm| is_response_variant_pattern(&arm.pat))
        {
            if let Expr::Path(p) = peel(&expr.expr) {
                if let Some(ident) = p.path.get_ident() {
                    let name = ident.to_string();
                    if let Some(state) = self.current() {
                        state.locals.entry(name).or_default().response = true;
                    }
                }
            }
        }
        let lookup = registry_lookup(&expr.expr);
        let converts = converts_to_cancel_notification(&expr.expr);
        for arm in &expr.arms {
            let mut condition = pattern_cancel_condition(self.vocab, &arm.pat);
            if condition.is_none() && converts && is_ok_pattern(&arm.pat) {
                condition = Some(OriginCondition::Always);
            }
            if condition.is_none() {
                if let Some((_, guard)) = &arm.guard {
                    if let Condition::Cancelled(_, _, _, c) = self.classify_condition(guard) {
                        condition = Some(c);
                    }
                }
            }
            self.bind(&arm.pat, Some(&expr.expr), Vec::new());
            match condition {
                Some(condition) => {
                    let origin = self.add_origin(
                        OriginKind::DispatchArm,
                        self.span(&arm.pat),
                        "cancel path: this arm handles the cancellation notification".into(),
                        condition,
                    );
                    self.visit_with_origin(origin, |this| {
                        if let Some((_, guard)) = &arm.guard {
                            this.visit_expr(guard);
                        }
                        this.visit_arm_body(&arm.body);
                    });
                }
                None => {
                    if let Some((_, guard)) = &arm.guard {
                        self.visit_expr(guard);
                    }
                    let guarded =
                        matches!(&arm.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some"))
                            .then(|| lookup.clone())
                            .flatten();
                    self.visit_registry_guarded(guarded, |this| this.visit_arm_body(&arm.body));
                }
            }
        }
    }

    fn visit_expr_return(&mut self, expr: &'ast syn::ExprReturn) {
        if let Some(value) = &expr.expr {
            let pending = self.functions.last().map_or(0, |f| f.pending_returns.len());
            self.visit_expr(value);
            self.note_returned(value, pending);
        }
    }

    fn visit_expr_try(&mut self, expr: &'ast syn::ExprTry) {
        self.visit_expr(&expr.expr);
        // `Err(..)?` on a cancel path returns the error from the function.
        if !self.origins.is_empty() {
            if let Expr::Call(call) = &*expr.expr {
                if matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Err")) {
                    let pending = self.functions.last().map_or(0, |f| f.pending_returns.len());
                    self.note_returned(&expr.expr, pending);
                }
            }
        }
    }

    fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
        self.visit_expr(&expr.expr);
        self.bind(&expr.pat, Some(&expr.expr), Vec::new());
        self.visit_block(&expr.body);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        let span = self.span(call);
        let args: Vec<&Expr> = call.args.iter().collect();
        let what = describe_call(Some(&call.receiver), &name);
        let pure = is_pure(&call.receiver) && call.args.iter().all(is_pure);
        self.sink_channel = self.channel_of(&call.receiver);
        self.check_send_call(&name, span, &args, what, pure);
        self.sink_channel = None;
        self.note_registry_method(call, &name, span);
        let spawns = name == "spawn" || name == "spawn_local";
        if !is_send_name(self.vocab, &name) {
            let on_self = matches!(peel(&call.receiver), Expr::Path(p) if p.path.is_ident("self"));
            let receiver = self.receiver_type(&call.receiver);
            self.record_call(
                span,
                Callee::Method {
                    name,
                    on_self,
                    receiver,
                },
            );
        }
        let message = self.note_stdout_method_write(call, span);
        let args_text = || {
            call.args
                .iter()
                .map(|a| quote::ToTokens::to_token_stream(a).to_string())
                .collect::<String>()
        };
        let marker = match call.method.to_string().as_str() {
            "with_writer" | "with_ansi_writer" if args_text().contains("stdout") => {
                "with_writer_stdout".to_string()
            }
            "target" if args_text().contains("Stderr") => "target_stderr".to_string(),
            other => other.to_string(),
        };
        self.chain_methods.push(marker);
        self.visit_expr(&call.receiver);
        self.chain_methods.pop();
        let chain = std::mem::take(&mut self.chain_methods);
        if spawns {
            self.spawn_depth += 1;
        }
        self.stdout_payload_depth += usize::from(message);
        for arg in &call.args {
            self.visit_expr(arg);
        }
        self.stdout_payload_depth -= usize::from(message);
        if spawns {
            self.spawn_depth -= 1;
        }
        self.chain_methods = chain;
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(func) = &*call.func {
            let segments = path_segments(&func.path);
            self.check_stdout_call(&segments, call);
            if let Some(name) = segments.last().cloned() {
                let span = self.span(call);
                let args: Vec<&Expr> = call.args.iter().collect();
                let what = format!("`{}(..)`", segments.join("::"));
                let pure = call.args.iter().all(is_pure);
                let sink_path = self.vocab.is_sink_path(&segments);
                if sink_path {
                    self.record_sink(span, SinkKind::Response, what.clone(), pure);
                } else {
                    self.check_send_call(&name, span, &args, what, pure);
                }
                if !sink_path && !is_send_name(self.vocab, &name) {
                    self.record_call(span, Callee::Path(segments));
                }
                if matches!(name.as_str(), "spawn" | "spawn_local" | "spawn_blocking") {
                    self.spawn_depth += 1;
                    for arg in &call.args {
                        self.visit_expr(arg);
                    }
                    self.spawn_depth -= 1;
                    return;
                }
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        for input in &closure.inputs {
            self.bind(input, None, Vec::new());
        }
        self.visit_expr(&closure.body);
    }

    fn visit_expr_while(&mut self, expr: &'ast syn::ExprWhile) {
        self.visit_expr(&expr.cond);
        if let Expr::Let(l) = &*expr.cond {
            self.bind(&l.pat, Some(&l.expr), Vec::new());
        }
        match self.classify_condition(&expr.cond) {
            Condition::NotCancelled(_) => self.visit_guarded(|this| this.visit_block(&expr.body)),
            _ => self.visit_block(&expr.body),
        }
    }
}
