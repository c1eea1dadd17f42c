//! Hand-written JSON-RPC method dispatchers as the rules see them (built by [`super::dispatch`]):
//! each arm with the methods it takes, and the catch-all; and the signs that a file speaks MCP.

use serde::{Deserialize, Serialize};

use crate::source::ByteSpan;

/// One arm of a method dispatcher that names methods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodArm {
    /// The method names the arm's pattern lists (string literals, or the names of constants).
    pub methods: Vec<String>,
    /// Patterns that name a constant rather than a literal: resolved through `string_consts`.
    pub constants: Vec<String>,
    /// Patterns that name an enum variant (`Type::Variant`): resolved through the unit's
    /// variant-to-method pairs ([`crate::analysis::facts::FileFacts::method_variants`]).
    #[serde(default)]
    pub variants: Vec<String>,
    /// The arm's body.
    pub body: ByteSpan,
    /// Where the arm answers the message, if it visibly does: a response built or sent, or a
    /// value returned for the caller to send.
    pub responds: Option<ByteSpan>,
    /// Whether the arm answers (when it does) only by the value it gives its caller: nothing
    /// in it builds or sends a response itself.
    #[serde(default)]
    pub responds_by_value: bool,
    /// The simple names of the functions the arm's body calls.
    pub calls: Vec<String>,
    /// A `json!({..})` object in a body that is one expression with no other `json!`: the arm's
    /// shape, from which an arm answering with an empty result can be written.
    pub result_template: Option<ResultTemplate>,
}

/// An arm body that builds one JSON object, and how to make it answer with an empty result:
/// replace `replace` (the whole `json!` macro, or the value of its `"result"` key when the macro
/// builds the whole message) by `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultTemplate {
    pub body: ByteSpan,
    pub replace: ByteSpan,
    pub replacement: String,
    /// The replaced value's tokens, printed, when the arm is code one of the file's own macros
    /// stands for (whose spans may be the invocation's, not the value's): what the value is
    /// is read from them, and no fix is offered.
    #[serde(default)]
    pub value: Option<String>,
}

/// The last arm of a dispatcher when it takes every other method (`_ =>`, `other =>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatchAllArm {
    /// The whole arm (its pattern's start to its body's end).
    pub span: ByteSpan,
    /// A dispatcher over an `Option` of variants (`Some(McpMethod::Initialize) =>`), or a
    /// catch-all that is the variant a conversion makes of every other method
    /// (`Some(McpMethod::Unknown(name)) =>`): a shape in preview (first contact, batch 60).
    #[serde(default)]
    pub by_conversion: bool,
    pub body: ByteSpan,
    /// The arm answers with method-not-found: `-32601`, a `METHOD_NOT_FOUND`-like name.
    pub method_not_found: bool,
    /// The arm's value is an error for the caller (`Err(anyhow!("unknown method: {m}"))`) that
    /// names method-not-found: it answers when a caller of the dispatcher's function turns the
    /// `Err` into a reply ([`DispatchFacts::err_answered`]).
    pub err_method_not_found: bool,
    /// That `Err` is answered in the dispatcher's own function: the dispatcher's value is bound
    /// to a local whose `match` turns the `Err` into a reply (`let result = match method { ..
    /// }; match result { .., Err(e) => Response { .. } }`).
    #[serde(default)]
    pub err_answered_here: bool,
    /// The enum variant of the arm's `Err` value, as `Type::Variant`
    /// (`Err(McpError::InvalidMethod(m))`): the catch-all answers method-not-found when a
    /// caller answers that `Err` and the unit maps the variant to `-32601`
    /// ([`crate::analysis::facts::FileFacts::not_found_variants`]).
    #[serde(default)]
    pub err_variant: Option<String>,
    /// The simple names of the functions the arm's body calls.
    pub calls: Vec<String>,
    /// The arm answers with an HTTP error status (`Err((StatusCode::BAD_REQUEST, Json(..)))`):
    /// an HTTP transport's rejection, which is how a server refuses a notification it does not
    /// accept over Streamable HTTP.
    #[serde(default)]
    pub http_error_status: bool,
    /// The arm does nothing (`_ => {}`): the other methods fall through to the code after the
    /// `match`, maybe a second dispatcher of the same function.
    #[serde(default)]
    pub falls_through: bool,
    /// The arm hands the method on to a call whose value it tests before it answers (`_ =>
    /// match server.handle_method(method, params) { Some(v) => .., None => not_found() }`):
    /// that call may answer methods the `match` does not list (batch 90: kern's servers
    /// answer `ping` there).
    #[serde(default)]
    pub delegates: bool,
    /// The arm's value is no answer (`_ => None`, `Ok(None)`, `continue`, `return None`): a
    /// request of any other method, `ping` among them, gets no response at all.
    #[serde(default)]
    pub answers_nothing: bool,
    /// The arm answers only under a condition of its own: an `if` in its body whose one branch
    /// names method-not-found and whose other does not (`if ctx.is_notification { nothing() }
    /// else { not_found(id) }`), or that leaves the arm before the answer (`if quiet { return
    /// json!({}); } error_response(..)`). Whether the condition lets a notification through
    /// is not shown.
    #[serde(default)]
    pub answers_under_condition: bool,
}

/// A `match` over method names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodDispatcher {
    /// The `match` expression, or the `if`/`else if` chain (its first `if` to its last block).
    pub span: ByteSpan,
    /// An `if method == ".." {..} else if ..` chain rather than a `match`: its last `else` is
    /// the catch-all, and no arm can be inserted before it.
    pub chain: bool,
    /// The enclosing function's name and span, if any.
    pub function: Option<(String, ByteSpan)>,
    /// The enclosing function's parameters: (name, type's last path segment).
    pub params: Vec<(String, String)>,
    /// The local or parameter the method is read from (`request` in `match
    /// request.method.as_str()`), if the code shows one.
    #[serde(default)]
    pub subject: Option<String>,
    /// The type the code names for that local (`let request: Request = ..`), if it is one.
    #[serde(default)]
    pub subject_type: Option<String>,
    /// When the subject is a parameter of the function: its position among the parameters
    /// (`self` aside). What the callers hand there decides which messages reach the arms.
    #[serde(default)]
    pub subject_position: Option<usize>,
    pub arms: Vec<MethodArm>,
    pub catch_all: Option<CatchAllArm>,
    /// Its arms name methods by constants only (`methods::INITIALIZE =>`): a dispatcher only if
    /// the constants' values (read across the unit, see
    /// [`crate::rules::RuleContext::string_const`]) are MCP methods.
    pub by_constants: bool,
    /// Its arms name enum variants only (`ClientRequest::Initialize(p) =>`, `_ =>` last): a
    /// dispatcher only if the unit reads MCP methods into those variants.
    #[serde(default)]
    pub by_variants: bool,
    /// The dispatcher is code one of the file's own macros stands for: its spans may be the
    /// invocation's, so no fix edits it.
    #[serde(default)]
    pub in_macro: bool,
    /// A handler table looked up by the method (see `dispatch::tables`): where the table's `let`
    /// starts. Its arms are the table's entries, `span` is the `match` that looks it up, and no
    /// arm can be inserted there.
    #[serde(default)]
    pub table: Option<usize>,
    /// The methods arms with a guard list (`Some("initialize") if legacy => ..`): not among
    /// [`Self::arms`], since a method may pass them when the guard fails; each names a method
    /// the dispatcher answers at least sometimes.
    #[serde(default)]
    pub guarded: Vec<String>,
}

impl MethodDispatcher {
    /// The dispatcher's code: its `match` or chain, from a handler table's `let` when it has one.
    pub fn whole(&self) -> ByteSpan {
        ByteSpan::new(
            self.table
                .map_or(self.span.start, |t| t.min(self.span.start)),
            self.span.end,
        )
    }

    /// Whether an arm lists a method.
    pub fn handles(&self, method: &str) -> bool {
        self.arms
            .iter()
            .any(|arm| arm.methods.iter().any(|m| m == method))
    }
}

/// What a file says about method dispatch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DispatchFacts {
    pub dispatchers: Vec<MethodDispatcher>,
    /// The MCP method names (see [`super::dispatch::is_mcp_method`]) the file's code spells as
    /// string literals, sorted, each once. Here and below, a literal of code: not in test code,
    /// nor in a doc comment, nor in the value of a private constant or static that no code of the
    /// file reads (an unused `const` is words, not behaviour).
    pub method_literals: Vec<String>,
    /// The file's code holds the string literals `"jsonrpc"` and `"2.0"`.
    pub jsonrpc_literals: bool,
    /// The file's code holds the string literal `"initialize"`, `"tools/list"` or `"tools/call"`.
    pub mcp_method_literals: bool,
    /// The file's code names an MCP SDK crate (`use rmcp::..`, `pmcp::Server`).
    pub names_sdk: bool,
    /// Where the file's code spells the string literal `"ping"` (patterns and conditions of
    /// dispatchers included; the file's byte offsets, in the walk's order): against the
    /// dispatchers' `ping` arms, whether `ping` is named anywhere else.
    #[serde(default)]
    pub ping_sites: Vec<usize>,
    /// Of those, where a request's method is: the first argument of a call whose other
    /// arguments are plain values (`call_daemon("ping", json!({}))`, `request("ping", None)`),
    /// not a handler (`route("ping", on_ping)`). A program that sends `ping` answers none.
    #[serde(default)]
    pub ping_request_sites: Vec<usize>,
    /// The simple names of the functions whose `Err` a caller in this file turns into a reply:
    /// `match process(line) { .., Err(e) => { let reply = json!({"jsonrpc": "2.0", "error":
    /// ..}); writeln!(out, "{reply}")?; } }`. Sorted, each once.
    pub err_answered: Vec<String>,
    /// The simple names of the functions that build a method-not-found answer and dispatch
    /// nothing (`fn handle_unknown_method(id, method) -> Response { Response::error(id, -32601,
    /// ..) }`): a catch-all that calls one answers with it. Sorted, each once.
    #[serde(default)]
    pub not_found_builders: Vec<String>,
    /// Calls handed a member of a local whose type the code names (`self.route(&request.method,
    /// ..)` after `let request: JsonRpcRequest = serde_json::from_str(line)?`): (the callee's
    /// simple name, the argument's position, `self` aside, the local's type's last segment).
    #[serde(default)]
    pub typed_member_args: Vec<(String, usize, String)>,
}

impl MethodDispatcher {
    /// Whether the catch-all answers with method-not-found, itself or through the `Err` it
    /// returns to a caller that answers it (what the unit's files say of such errors: `unit`).
    pub fn catch_all_answers_method_not_found(&self, unit: &dyn UnitErrors) -> bool {
        let Some(catch_all) = &self.catch_all else {
            return false;
        };
        let not_found = catch_all.err_method_not_found
            || catch_all
                .err_variant
                .as_deref()
                .is_some_and(|v| unit.means_method_not_found(v));
        catch_all.method_not_found
            || catch_all
                .calls
                .iter()
                .any(|name| unit.builds_method_not_found(name))
            || (not_found
                && (catch_all.err_answered_here
                    || self
                        .function
                        .as_ref()
                        .is_some_and(|(name, _)| unit.err_answered(name))))
    }
}

/// What the unit's files say about the errors a dispatcher's catch-all returns to its caller.
pub trait UnitErrors {
    /// Whether a caller somewhere in the unit turns the `Err` of a call of `function` into a
    /// reply ([`DispatchFacts::err_answered`]).
    fn err_answered(&self, function: &str) -> bool;
    /// Whether the unit maps the enum variant (`Type::Variant`) to the method-not-found code
    /// ([`crate::analysis::facts::FileFacts::not_found_variants`]).
    fn means_method_not_found(&self, variant: &str) -> bool;
    /// Whether a function of that simple name builds a method-not-found answer and dispatches
    /// nothing ([`DispatchFacts::not_found_builders`]).
    fn builds_method_not_found(&self, function: &str) -> bool;
}

/// Whether a method name is a notification's (by MCP's naming; the test that matters at run
/// time is the missing `id`).
pub fn is_notification_method(name: &str) -> bool {
    name.starts_with("notifications/") || name == "initialized"
}
