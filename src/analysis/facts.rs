//! Per-file facts: the functions of a file with their response sinks, their calls, and the marked
//! paths those lie on (see [`super::sends::marks`]); the file's items. Built by hooks on one walk of
//! the file's syntax tree ([`super::walk`]); the syntax tree is dropped afterwards and the rules
//! read only these facts.

use crate::source::ByteSpan;
use crate::unit::ModDecl;

/// Index of a [`PathOrigin`] in its file's [`FileFacts::origins`].
pub type OriginId = usize;

/// How a marked path starts (the examples are a request's cancellation's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OriginKind {
    /// A function that runs because the condition held (`on_cancelled`, `cancel(&self)`).
    Hook,
    /// A `match` arm or `if` branch selected by the condition's message.
    DispatchArm,
    /// A `select!` branch on the condition's future.
    SelectArm,
    /// The statements after the condition's future is awaited (`token.cancelled().await`).
    AfterAwait,
    /// The body of an `if` that tests the condition (`if token.is_cancelled()`, or the `else`
    /// of `if !token.is_cancelled()`).
    IfTest,
    /// The statements after a loop that runs while it does not hold
    /// (`while !token.is_cancelled() { .. }`).
    AfterLoop,
    /// A function registered as the handler of the condition's message in a handler table
    /// (`handlers.insert("notifications/cancelled", on_note)`, `("..", on_note as Handler)`):
    /// the registration is a call of the handler on the path.
    Registration,
}

/// When an origin holds: always, or only if a constant of the crate holds the condition's method.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OriginCondition {
    Always,
    /// The arm matched a constant by this name; it is a marked path if the constant's value is
    /// the condition's method (or, when the value is not visible, if its name says so).
    ConstNamed(String),
    /// A test of an atomic flag (`if flag.load(Ordering::..)`): a marked path when the crate
    /// sets its atomic flags (`.store(true, ..)`) on marked paths and nowhere else, so that a
    /// set flag means the condition held (see [`FileFacts::flag_sets`]).
    FlagSet,
    /// A `select!` branch on a one-shot channel's receiver (`_ = cancel_rx => ..`): a marked
    /// path when the crate signals its one-shot channels (`.send(())`) on marked paths and
    /// nowhere else, so that a signal means the condition held (see
    /// [`FileFacts::signal_sends`]).
    SignalSent,
    /// A hook known only by a name the crate gives its own function (`cancel(&self)`): a
    /// marked path when a call on a marked path reaches it, or when the crate's product code
    /// calls it nowhere (an entry point the crate's users call); not when every call to it
    /// lies elsewhere (a timeout's clean-up named `cancel`).
    CalledOnPath,
}

/// Where a marked path starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PathOrigin {
    pub kind: OriginKind,
    pub span: ByteSpan,
    /// A label for the start of the path, from the condition (see
    /// [`super::sends::marks::PathMarks::label`]).
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
    /// The marked paths this site lies on, innermost last.
    pub origins: Vec<OriginId>,
    /// For a value built on a marked path and sent later: where it is sent.
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
    /// A call of a function of the crate handed a message (at the argument positions of the
    /// mask): a send when the callee writes one of those arguments to the wire, whatever it is
    /// called (see [`FunctionFacts::writes_params`]).
    pub through: Option<(Callee, u64)>,
    /// For a send known by its name (`reply`, `send_error`, .. in the vocabulary): that name. A
    /// function of the crate by that name may do more than send, so removing the call may
    /// remove more.
    pub named: Option<String>,
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

/// An in-flight registry that a marked path removes a request from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RegistryRemoval {
    pub collection: String,
    pub span: ByteSpan,
    pub origins: Vec<OriginId>,
}

/// A value a function returns on a marked path (for a request handler on a cancel path, the
/// response, unless the SDK drops responses for cancelled requests).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ReturnSite {
    pub span: ByteSpan,
    pub what: String,
    pub origins: Vec<OriginId>,
    /// The value is (or carries) a JSON-RPC response message built on the path.
    pub response: bool,
}

/// A call whose value a function writes to the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct WrittenCall {
    pub callee: Callee,
    /// The write.
    pub span: ByteSpan,
    /// The write lies in a branch whose test looks at something else than the call's value
    /// (`if msg.id.is_some() { write(handle(msg)) }`): it may not run for every value.
    pub guarded: bool,
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
    /// The value a call returns (`Builder::new().root(p)`, `create_server(..).await?`, `match
    /// open(..) { Ok(s) => s, .. }`): the type its targets declare they return, when they agree.
    Returned(Box<Callee>),
    /// A field of a value whose type is known another way (`state.waiter` with `state:
    /// &Arc<State>`): the type the struct's definition gives the field.
    FieldOf(Box<ReceiverType>, String),
}

/// A call of something that may be a function of the same crate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CallSite {
    pub span: ByteSpan,
    pub callee: Callee,
    pub origins: Vec<OriginId>,
    /// How the call could be removed, when its value is not used.
    pub removal: Option<Removal>,
    /// The in-flight registries around the call: what the callee's writes inherit.
    pub registry: RegistryContext,
    /// The collections its arguments name (`&self.in_flight` is `in_flight`), by position.
    pub args: Vec<Option<String>>,
    /// Per argument position, the caller's parameters (a mask of their positions) whose value
    /// the argument carries; empty when none does.
    pub arg_params: Vec<u64>,
}

impl CallSite {
    /// A call of `callee` from nowhere in particular: what resolving a callee needs.
    pub fn to(callee: Callee) -> Self {
        CallSite {
            span: ByteSpan::default(),
            callee,
            origins: Vec::new(),
            removal: None,
            registry: RegistryContext::default(),
            args: Vec::new(),
            arg_params: Vec::new(),
        }
    }

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
    /// Test code (`#[test]`, inside `#[cfg(test)]`): it runs under the test harness, never in
    /// the program, so it neither serves nor calls into what serves.
    pub in_test: bool,
    /// `#[allow(dead_code)]` on the function: its author says the compiler finds nothing that
    /// calls it in some target.
    #[serde(default)]
    pub allows_dead_code: bool,
    /// Declared with a visibility (`pub fn`, `pub(crate) fn`): code outside its module may
    /// call it (code outside the crate, when every module around it is public too).
    #[serde(default)]
    pub public: bool,
    /// Something other than a call may run it: it has an ABI or exports a symbol (`extern "C"
    /// fn`, `#[no_mangle]`), or an attribute that may register it (`#[tauri::command]`,
    /// `#[ctor]`, any attribute not known to leave a function as it is).
    #[serde(default)]
    pub registered: bool,
    /// Set when the whole function is a marked path (a hook).
    pub hook: Option<OriginId>,
    /// Values returned on a marked path.
    pub path_returns: Vec<ReturnSite>,
    /// Channels this function drains (`x_rx.recv()`), by name without the `_rx` suffix.
    pub drains: Vec<String>,
    /// In-flight registries this function touches anywhere.
    pub registries: Vec<String>,
    /// The function returns a response message (its tail or a `return` builds one).
    pub returns_response: bool,
    /// Calls whose value the function returns (a response if theirs is).
    pub returns_calls: Vec<Callee>,
    /// The type the function declares it returns, as a receiver's type is named (`Self` as
    /// the implementing type), out of a `Result`, an `Option` or a future's `Output`.
    pub returns_type: Option<String>,
    /// Calls whose error the function returns through `?` (`helper(..).await?`).
    pub propagates_calls: Vec<Callee>,
    /// Calls whose value the function writes to the wire (a writing macro or a transport's send
    /// takes it, or a local bound from it), with the write's span: what the callee returns is
    /// sent.
    pub written_calls: Vec<WrittenCall>,
    /// Registries keyed by request that the function is handed as a parameter and acts on:
    /// (the parameter's position, whether it removes from it): `fn cancel_in_flight(in_flight:
    /// &InFlight, id: &Id) { in_flight.lock()?.remove(id) }` is `(0, true)`.
    pub registry_params: Vec<(usize, bool)>,
    /// The parameters (a mask of their positions, the receiver not counted) whose value the
    /// function itself writes to the wire: a writing macro, a transport's send or a sink call
    /// takes something derived from them. Through calls, see
    /// [`super::crate_graph::CrateGraph::writes_params`].
    pub writes_params: u64,
    /// All the function does is send: each statement of its body is a send (a whole statement,
    /// known to send) or a `let` of a value without effects. A call of it on a cancel path can
    /// be taken out without taking out anything else the function does.
    pub only_sends: bool,
    /// Every statement of the function's body is a `let` of a value without effects or one call
    /// of a transport's send or a writer (`let _ = self.out.send(format!(..))`, `tx.send(v)?`,
    /// `writeln!(out, ..)`), and there is at least one such call: the function builds a message
    /// and hands it on, and does nothing else.
    pub sends_alone: bool,
    /// A `let` of the function's body computes its value with effects (`let tx = match
    /// self.tx.lock() { Ok(mut g) => g.take(), .. }`): the function does more than build and
    /// send a message.
    pub binds_with_effects: bool,
    pub sinks: Vec<SinkSite>,
    pub calls: Vec<CallSite>,
}

impl FunctionFacts {
    /// Whether the function's code touched an in-flight registry before one of its calls or
    /// sends, or sends from a spawned task: what a missing-guard analysis starts from; a
    /// function without either matters to it only through its callers.
    pub fn uses_registries(&self) -> bool {
        self.calls.iter().any(|c| !c.registry.touched.is_empty())
            || self
                .sinks
                .iter()
                .any(|s| !s.registry.touched.is_empty() || s.registry.in_spawn)
    }
}

/// Everything the rules need to know about one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileFacts {
    pub functions: Vec<FunctionFacts>,
    pub origins: Vec<PathOrigin>,
    /// String constants of the file: name and value.
    pub string_consts: Vec<(String, String)>,
    /// The out-of-line modules (`mod x;`) the file declares.
    pub mod_decls: Vec<ModDecl>,
    /// The names the file's `use` items bring in by their own name, and the paths they name
    /// (`use crate::mcp::helpers::run;`): what a bare call of one of several functions of the
    /// name reaches.
    #[serde(default)]
    pub imports: Vec<(String, Vec<String>)>,
    /// The spans of the file's items that a suppression comment can cover (functions, impls,
    /// traits, modules), attributes included.
    pub items: Vec<ByteSpan>,
    /// In-flight registries that marked paths remove requests from.
    pub registry_removals: Vec<RegistryRemoval>,
    /// `.abort()` calls on marked paths (a task aborted on cancellation cannot answer).
    pub path_aborts: Vec<Vec<OriginId>>,
    /// Lookups in a registry keyed by request on marked paths (`in_flight.get(&id)`): with a
    /// token cancelled on the same path, a cancellation cancels the request's token and leaves
    /// it registered.
    pub registry_lookups: Vec<RegistryRemoval>,
    /// `.cancel()` calls on marked paths (a token cancelled on cancellation).
    pub path_cancels: Vec<Vec<OriginId>>,
    /// Where the file's product code sets an atomic flag (`.store(true, ..)`, `.swap(true, ..)`,
    /// `.fetch_or(true, ..)`): the marked paths each lies on (none: off every path).
    pub flag_sets: Vec<Vec<OriginId>>,
    /// Where the file's product code sends a unit signal (`sender.send(())`): the marked paths
    /// each lies on (none: off every path).
    pub signal_sends: Vec<Vec<OriginId>>,
    /// Where the file's product code cancels something (`token.cancel()`): the marked paths each
    /// lies on (none: off every path).
    #[serde(default)]
    pub token_cancels: Vec<Vec<OriginId>>,
    /// The functions (by index, ascending) whose code touched an in-flight registry before a
    /// call or a send, or that send from a spawned task: the only ones the missing-guard
    /// analysis starts from (see [`FunctionFacts::uses_registries`]), so that it need not look
    /// at every function of a crate for each of its targets.
    pub registry_users: Vec<usize>,
    /// Field types of the file's structs: (struct, field, type's last path segment).
    pub struct_fields: Vec<(String, String, String)>,
    /// The structs the file declares private to its own module (no `pub`, not in an inline
    /// module or a function body): code of other modules, but those inside it, cannot name them.
    #[serde(default)]
    pub private_structs: Vec<String>,
    /// Of those, the `Option` fields, with the type they hold: (struct, field, type). A method
    /// called on what such a field holds (`if let Some(h) = &self.handler { h.run() }`) is
    /// that type's.
    pub optional_fields: Vec<(String, String, String)>,
    /// Fields a missing key deserialises to their default (`#[serde(default)]` on the field or
    /// its struct): (struct, field).
    #[serde(default)]
    pub defaulted_fields: Vec<(String, String)>,
    /// Fields serde reads and writes under another name (`#[serde(rename = "id")] id_value`):
    /// (struct, field, the name on the wire).
    #[serde(default)]
    pub renamed_fields: Vec<(String, String, String)>,
    /// The traits the file defines: a call through one of them as a trait object reaches the
    /// crate's implementations only when the crate defines it (another crate's trait may be
    /// implemented anywhere).
    pub traits: Vec<String>,
    /// The file speaks MCP or JSON-RPC (it names `jsonrpc`, an MCP SDK or MCP types).
    pub mentions_mcp: bool,
    /// The file's code may hold a method dispatcher: it speaks MCP or names a `tools/` method
    /// (see [`super::dispatch::might_apply`]), read without the constants nothing reads. The
    /// dispatcher hooks look only in such files.
    pub may_dispatch: bool,
    /// The file serves over stdio: it reads `stdin()`, calls a `stdio()` transport, or names
    /// `StdioTransport`.
    pub serves_stdio: bool,
    /// Hand-written method dispatchers, and the signs that the file speaks MCP.
    pub dispatch: super::dispatchers::DispatchFacts,
    /// The enum variants (`Type::Variant`) that a `match` arm of the file's product code turns
    /// into the method-not-found code and no other (`McpError::InvalidMethod(m) =>
    /// JsonRpcError { code: -32601, .. }`), whatever the file speaks of: sorted, each once (see
    /// [`super::err_variants`]).
    #[serde(default)]
    pub not_found_variants: Vec<String>,
    /// The enum variants (`Type::Variant`) the file's product code reads MCP methods into, with
    /// their methods: sorted (see [`super::method_variants`]).
    #[serde(default)]
    pub method_variants: Vec<(String, String)>,
    /// How many `"ping"` literals of the file's product code turn a variant into its method
    /// (`Self::Ping => "ping"`): the literal names no answer.
    #[serde(default)]
    pub ping_mapping_literals: u32,
    /// The paths of the file's product code that may name an enum variant (`Type::Variant`,
    /// `Self` read as the impl's type; at least two segments), with how many times each is
    /// named outside the arms that pair a variant with its method: sorted. Against a typed
    /// dispatcher's `ping` arms, whether the variant `ping` is read into is handled elsewhere.
    #[serde(default)]
    pub variant_mentions: Vec<(String, u32)>,
    /// The identifiers the file's code names other than as a function's name where it is
    /// defined, a method or field after a `.`, a macro's name, or the callee of a call the
    /// file's facts record (`handler` in `post(handler)`, `run` in `spawn(run)` or in a macro's
    /// input, a path-like string's last segment, every segment of a `use`): sorted, once each.
    /// A function named here may run without a call the crate graph holds (see
    /// [`super::references`]).
    #[serde(default)]
    pub named: Vec<String>,
    /// The identifiers of the file's `pub use` items (any visibility): the modules and items it
    /// re-exports. Sorted, once each.
    #[serde(default)]
    pub pub_uses: Vec<String>,
    /// The file's module path within the crate (best effort, as its functions'), known also
    /// for a file that defines no function (`commands/simple.rs`, which only re-exports).
    #[serde(default)]
    pub module: Vec<String>,
    /// What single rules collect for themselves, by rule code.
    pub rules: RuleFacts,
}

impl FileFacts {
    /// The innermost function of the file whose whole item holds `span`.
    pub fn function_at(&self, span: ByteSpan) -> Option<&FunctionFacts> {
        self.functions
            .iter()
            .filter(|f| f.item_span.start <= span.start && span.end <= f.item_span.end)
            .min_by_key(|f| f.item_span.end - f.item_span.start)
    }
}

/// The facts that single rules collect for themselves (their hooks on the shared walk), each
/// under its [`FactKey`], in the cache's encoding: the shared layer holds them without knowing
/// their types, and only the rule that wrote them reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RuleFacts(Vec<(String, Vec<u8>)>);

/// The name a rule's own facts are stored under, and their type: the hook that writes them and
/// the check that reads them name the same key, so they cannot disagree on the type.
pub struct FactKey<T> {
    name: &'static str,
    facts: std::marker::PhantomData<fn() -> T>,
}

impl<T> FactKey<T> {
    /// A key; its name is also part of the cache key (see [`super::walk::Collects::key`]).
    pub const fn new(name: &'static str) -> Self {
        FactKey {
            name,
            facts: std::marker::PhantomData,
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl RuleFacts {
    /// Store a rule's facts (replacing what it stored before).
    pub fn put<T: serde::Serialize>(&mut self, key: &FactKey<T>, value: &T) {
        let Ok(bytes) = postcard::to_stdvec(value) else {
            return;
        };
        self.0.retain(|(k, _)| k != key.name);
        self.0.push((key.name.to_string(), bytes));
    }

    /// A rule's facts, or their default when the file gave none. What was stored under a key
    /// was written with its type, so it decodes (the cache checks its entries' integrity).
    pub fn get<T: serde::de::DeserializeOwned + Default>(&self, key: &FactKey<T>) -> T {
        let Some((_, bytes)) = self.0.iter().find(|(k, _)| k == key.name) else {
            return T::default();
        };
        let decoded = postcard::from_bytes(bytes);
        debug_assert!(decoded.is_ok(), "the facts under {} decode", key.name);
        decoded.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rules_facts_come_back_under_their_key() {
        const CODES: FactKey<Vec<(ByteSpan, i64)>> = FactKey::new("codes");
        const NAMES: FactKey<Vec<String>> = FactKey::new("names");
        let mut facts = RuleFacts::default();
        assert!(facts.get(&CODES).is_empty(), "nothing stored: the default");
        facts.put(&CODES, &vec![(ByteSpan::new(1, 2), -32600)]);
        facts.put(&NAMES, &vec!["a".to_string()]);
        facts.put(&NAMES, &vec!["b".to_string()]);
        assert_eq!(facts.get(&CODES), [(ByteSpan::new(1, 2), -32600)]);
        assert_eq!(facts.get(&NAMES), ["b"], "a second put replaces the first");
    }
}
