//! The error codes MCP006 judges: integer literals used as JSON-RPC error codes, collected by a
//! hook on the shared walk.
//!
//! * `"code": <literal>` inside the `"error"` object of a `json!` literal;
//! * `const PARSE_ERROR: i64 = -32700;`: an integer constant named as an error code, which counts
//!   only where product code reads it (a constant nothing reads sends nothing);
//! * `ErrorCode(<literal>)`, `send_error(id, <literal>, ..)` and other calls named after errors;
//! * `code: <literal>` in a struct literal whose type is named after an error (not an enum
//!   variant's: `AppError::Upstream { code: 0 }` holds the crate's own data, which the crate
//!   maps to a code of its own before anything is sent);
//! * rmcp's `ErrorCode::RESOURCE_NOT_FOUND` (the retired -32002);
//! * the integer literals a function of the crate returns (`fn code(&self) -> i32 { match self
//!   { .. => -32604 } }`) when its value is used as a code (`ErrorCode(err.code())`, `code:
//!   err.code()` in an error's struct literal): the literal is the code.

use crate::analysis::spans::{end_of, start_of};
use proc_macro2::{TokenStream, TokenTree};
use syn::Expr;

use crate::analysis::facts::{FactKey, FileFacts};
use crate::analysis::syntax::{macro_name, type_name};
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::{Collects, Hook, Node, Scope};
use crate::source::ByteSpan;

/// The error codes of a file, where and their value (MCP006).
pub static FACTS: FactKey<Vec<(ByteSpan, i64)>> = FactKey::new("MCP006");

/// The functions of a file that return an integer (by their type) and the integer literals they
/// return: name, and each literal's place and value.
pub static RETURNED: FactKey<ReturnedCodes> = FactKey::new("MCP006 returned");

/// Functions and the integer literals each returns: name, and each literal's place and value.
pub type ReturnedCodes = Vec<(String, Vec<(ByteSpan, i64)>)>;

/// The calls of a file whose value is used as an error code (`ErrorCode(err.code())`): the
/// called function's simple name, and where the call is.
pub static USED: FactKey<Vec<(String, ByteSpan)>> = FactKey::new("MCP006 used");

/// The integer-returning functions of a file whose tail values include constants or calls
/// (`fn sdk_error_to_code(e: &SdkError) -> i32 { match e { .. => TRANSACTION_FAILED, .. =>
/// Self::other_code(e) } }`): the function's name, each constant returned (where, its simple
/// name) and the simple names of the functions whose value it returns. Followed from a function
/// whose value is used as an error code, the constants are codes, whatever they are called.
pub static RETURNED_FLOW: FactKey<Vec<ReturnedFlow>> = FactKey::new("MCP006 returned flow");

/// See [`RETURNED_FLOW`].
pub type ReturnedFlow = (String, Vec<(ByteSpan, String)>, Vec<String>);

/// Every integer constant of a file, whatever its name (`const TRANSACTION_FAILED: i32 =
/// -32101;`, an associated constant too): name, where the value is, the value. A code only where
/// a function whose value is used as a code returns it (see [`RETURNED_FLOW`]).
pub static INT_CONSTANTS: FactKey<Vec<(String, ByteSpan, i64)>> =
    FactKey::new("MCP006 integer constants");

/// The integer constants of a file named as error codes: name, where the value is, the value.
pub static CONSTANTS: FactKey<Vec<(String, ByteSpan, i64)>> = FactKey::new("MCP006 constants");

/// The constants a file's product code reads (`PARSE_ERROR`, `Self::PARSE_ERROR`,
/// `codes::PARSE_ERROR`): each name once, where it is first read.
pub static READ: FactKey<Vec<(String, ByteSpan)>> = FactKey::new("MCP006 read");

/// The codes of a file given to a call named for an error at a code's place (`send_error(id,
/// -32601, ..)`): where the literal is, the called function's simple name and the argument's
/// position (a method's receiver is not one).
pub static CALL_CODES: FactKey<Vec<(ByteSpan, String, usize)>> = FactKey::new("MCP006 call codes");

/// Integers of JSON-RPC's reserved range (-32768 to -32000) a file hands to a call not named for
/// an error (`zz1(id, -32604, ..)`): where, the called function's simple name, the argument's
/// position and the value. A code when the crate's function of that name uses the parameter as
/// one (see [`PARAM_CODES`]), whatever it is called.
pub static HANDED_CODES: FactKey<Vec<HandedCode>> = FactKey::new("MCP006 handed codes");

/// See [`HANDED_CODES`].
pub type HandedCode = (ByteSpan, String, usize, i64);

/// The file's functions that write a parameter as the `code` of the JSON they build themselves
/// (`"code": p` in a `json!`, a map's `insert("code", ..)`, `{code}` inlined in JSON text): the
/// function's name and those parameters. Only such a function makes an integer handed to it
/// under any name a code on the wire (a struct's `code` field may be a private protocol's).
pub static WIRE_CODES: FactKey<Vec<(String, Vec<usize>)>> = FactKey::new("MCP006 wire codes");

/// The file's functions named for an error, and those whose body uses a parameter as an error
/// code itself: which of their parameters (by position among the typed ones) the body uses so
/// (a `code` field, `"code": p` in a `json!` literal, `ErrorCode(p)`), and which it hands on to a
/// call (see [`Forward`]). A literal handed to a function named for an error at a place whose
/// parameter is no code is its other data (a private protocol's request id, a count).
pub static PARAM_CODES: FactKey<Vec<ParamCodes>> = FactKey::new("MCP006 param codes and forwards");

/// A function (see [`PARAM_CODES`]): its name, the parameters its body uses as a code, and those
/// it hands on to a call.
pub type ParamCodes = (String, Vec<usize>, Vec<Forward>);

/// A parameter handed on to a call: the parameter, the called function's simple name, the
/// argument's position, and whether the call is named for an error with the argument at a code's
/// place. The parameter is a code if the called function is the crate's and uses that argument
/// as one, or is none of the crate's and is named for an error with it at a code's place.
pub type Forward = (usize, String, usize, bool);

/// MCP006's collector.
pub struct ErrorCodes;

impl Collects for ErrorCodes {
    fn key(&self) -> &'static str {
        FACTS.name()
    }

    fn hook<'a>(
        &self,
        text: &'a str,
        base: usize,
        _vocabulary: &'a Vocabulary,
    ) -> Option<Box<dyn Hook + 'a>> {
        // Every shape names an error or a code: `"code"`, `_ERROR`, `ErrorCode`, `send_error`,
        // `reply_err`, `with_code`, `JsonRpcError { code: .. }`.
        let might = ["rror", "RROR", "ode", "ODE", "reply_err"]
            .iter()
            .any(|w| text.contains(w));
        might.then(|| -> Box<dyn Hook + 'a> {
            Box::new(Collector {
                text,
                base,
                codes: Vec::new(),
                returned: Vec::new(),
                returned_flow: Vec::new(),
                code_fields: Vec::new(),
                field_calls: Vec::new(),
                int_constants: Vec::new(),
                used: Vec::new(),
                constants: Vec::new(),
                read: Vec::new(),
                call_codes: Vec::new(),
                handed_codes: Vec::new(),
                wire_codes: Vec::new(),
                param_codes: Vec::new(),
                in_constant: 0,
            })
        })
    }
}

/// The error codes a file's facts hold: where, and the value.
pub fn error_codes(facts: &FileFacts) -> Vec<(ByteSpan, i64)> {
    facts.rules.get(&FACTS)
}

/// The functions of a file that return integer literals (see [`RETURNED`]).
pub fn returned_codes(facts: &FileFacts) -> ReturnedCodes {
    facts.rules.get(&RETURNED)
}

/// The integer-returning functions' returned constants and calls (see [`RETURNED_FLOW`]).
pub fn returned_flow(facts: &FileFacts) -> Vec<ReturnedFlow> {
    facts.rules.get(&RETURNED_FLOW)
}

/// Every integer constant of a file (see [`INT_CONSTANTS`]).
pub fn int_constants(facts: &FileFacts) -> Vec<(String, ByteSpan, i64)> {
    facts.rules.get(&INT_CONSTANTS)
}

/// The constants of a file named as error codes (see [`CONSTANTS`]).
pub fn constant_codes(facts: &FileFacts) -> Vec<(String, ByteSpan, i64)> {
    facts.rules.get(&CONSTANTS)
}

/// The constants a file's product code reads (see [`READ`]).
pub fn read_constants(facts: &FileFacts) -> Vec<(String, ByteSpan)> {
    facts.rules.get(&READ)
}

/// The codes a file hands to calls named for an error (see [`CALL_CODES`]).
pub fn call_codes(facts: &FileFacts) -> Vec<(ByteSpan, String, usize)> {
    facts.rules.get(&CALL_CODES)
}

/// The reserved-range integers a file hands to calls not named for an error (see
/// [`HANDED_CODES`]).
pub fn handed_codes(facts: &FileFacts) -> Vec<HandedCode> {
    facts.rules.get(&HANDED_CODES)
}

/// The file's functions that write a parameter as a JSON `code` themselves (see
/// [`WIRE_CODES`]).
pub fn wire_codes(facts: &FileFacts) -> Vec<(String, Vec<usize>)> {
    facts.rules.get(&WIRE_CODES)
}

/// The file's functions named for an error and the parameters they use as codes (see
/// [`PARAM_CODES`]).
pub fn param_codes(facts: &FileFacts) -> Vec<ParamCodes> {
    facts.rules.get(&PARAM_CODES)
}

/// The calls of a file whose value is an error code (see [`USED`]).
pub fn used_as_codes(facts: &FileFacts) -> Vec<(String, ByteSpan)> {
    facts.rules.get(&USED)
}

struct Collector<'a> {
    /// The file's text, from `base` on.
    text: &'a str,
    base: usize,
    codes: Vec<(ByteSpan, i64)>,
    returned: ReturnedCodes,
    returned_flow: Vec<ReturnedFlow>,
    /// The fields a JSON error object of the file reads as its `"code"` (`"code": err.code`,
    /// under any field name).
    code_fields: Vec<String>,
    /// Calls given to a struct literal's field (the field, the called function, where): a code
    /// when the field is one of `code_fields`.
    field_calls: Vec<(String, String, ByteSpan)>,
    int_constants: Vec<(String, ByteSpan, i64)>,
    used: Vec<(String, ByteSpan)>,
    constants: Vec<(String, ByteSpan, i64)>,
    read: Vec<(String, ByteSpan)>,
    call_codes: Vec<(ByteSpan, String, usize)>,
    handed_codes: Vec<HandedCode>,
    wire_codes: Vec<(String, Vec<usize>)>,
    param_codes: Vec<ParamCodes>,
    /// How many constant or static items enclose the node: their initialisers are read only as
    /// a whole (a constant named as an error code).
    in_constant: usize,
}

/// Whether a node is a constant or static item.
fn is_constant(node: Node<'_>) -> bool {
    matches!(
        node,
        Node::Item(syn::Item::Const(_) | syn::Item::Static(_))
            | Node::ImplItem(syn::ImplItem::Const(_))
    )
}

impl Hook for Collector<'_> {
    fn reads_macro_body(&self, _name: &str) -> bool {
        // `select! { _ = ct.cancelled() => send_error(id, 0, ..) }`, `println!("{}", json!(..))`:
        // an error code can be built in any macro whose body is code.
        true
    }

    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        // Test code answers no client: a mock's error codes are the test's business.
        if self.in_constant > 0 || scope.in_test() {
            return;
        }
        match node {
            Node::Item(syn::Item::Const(item)) => {
                self.constant(&item.ident, &item.ty, &item.expr, scope)
            }
            Node::ImplItem(syn::ImplItem::Const(item)) => {
                self.int_constant(&item.ident, &item.ty, &item.expr, scope)
            }
            Node::Macro(mac)
                if !matches!(scope.parent(), Some(Node::Item(_))) && macro_name(mac) == "json" =>
            {
                self.json(mac.tokens.clone(), false, scope);
            }
            Node::Expr(expr) => self.expr(expr, scope),
            Node::Item(syn::Item::Fn(f)) => self.function(&f.sig, &f.block, scope),
            Node::ImplItem(syn::ImplItem::Fn(f)) => self.function(&f.sig, &f.block, scope),
            _ => {}
        }
        if is_constant(node) {
            self.in_constant += 1;
        }
    }

    fn leave(&mut self, node: Node<'_>, _scope: &Scope<'_>) {
        if is_constant(node) {
            self.in_constant = self.in_constant.saturating_sub(1);
        }
    }

    fn finish(mut self: Box<Self>, facts: &mut FileFacts) {
        let code_fields = std::mem::take(&mut self.code_fields);
        for (field, callee, span) in std::mem::take(&mut self.field_calls) {
            if code_fields.contains(&field) {
                self.used.push((callee, span));
            }
        }
        if !self.codes.is_empty() {
            facts.rules.put(&FACTS, &self.codes);
        }
        if !self.returned.is_empty() {
            facts.rules.put(&RETURNED, &self.returned);
        }
        if !self.returned_flow.is_empty() {
            facts.rules.put(&RETURNED_FLOW, &self.returned_flow);
        }
        if !self.int_constants.is_empty() {
            facts.rules.put(&INT_CONSTANTS, &self.int_constants);
        }
        if !self.used.is_empty() {
            facts.rules.put(&USED, &self.used);
        }
        if !self.constants.is_empty() {
            facts.rules.put(&CONSTANTS, &self.constants);
        }
        if !self.read.is_empty() {
            facts.rules.put(&READ, &self.read);
        }
        if !self.call_codes.is_empty() {
            facts.rules.put(&CALL_CODES, &self.call_codes);
        }
        if !self.param_codes.is_empty() {
            facts.rules.put(&PARAM_CODES, &self.param_codes);
        }
        if !self.handed_codes.is_empty() {
            facts.rules.put(&HANDED_CODES, &self.handed_codes);
        }
        if !self.wire_codes.is_empty() {
            facts.rules.put(&WIRE_CODES, &self.wire_codes);
        }
    }
}

impl Collector<'_> {
    /// A function that returns an integer (`-> i32`): the integer literals it returns, where its
    /// body's value is one (its tail, through blocks, `if`s and `match` arms).
    fn function(&mut self, sig: &syn::Signature, block: &syn::Block, scope: &Scope<'_>) {
        // A function not named for an error counts only if its body uses a parameter as a code
        // itself, which it cannot without a word of a code (`code`, `Code`): the others' bodies
        // are not read again.
        let named = is_error_call(&sig.ident.to_string());
        let body = scope.raw_span(
            block.brace_token.span.open(),
            block.brace_token.span.close(),
        );
        let mentions_code = || {
            let at = |offset: usize| offset.saturating_sub(self.base).min(self.text.len());
            self.text
                .get(at(body.start)..at(body.end))
                .is_none_or(|text| text.contains("ode"))
        };
        if named || mentions_code() {
            let (used, forwarded, wire) = params_used_as_codes(sig, block);
            if !wire.is_empty() {
                self.wire_codes.push((sig.ident.to_string(), wire));
            }
            if named || !used.is_empty() {
                self.param_codes
                    .push((sig.ident.to_string(), used, forwarded));
            }
        }
        let integer = match &sig.output {
            syn::ReturnType::Type(_, ty) => matches!(
                type_name(ty).as_deref(),
                Some("i16" | "i32" | "i64" | "isize")
            ),
            syn::ReturnType::Default => false,
        };
        let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last().filter(|_| integer) else {
            return;
        };
        let values = crate::analysis::syntax::tail_values(tail);
        // The constants and calls among them: followed from a function used as a code.
        let mut constants = Vec::new();
        let mut calls = Vec::new();
        for value in &values {
            match crate::analysis::syntax::peel(value) {
                Expr::Path(path) if path.qself.is_none() => {
                    if let Some(last) = path.path.segments.last() {
                        let name = last.ident.to_string();
                        if crate::analysis::syntax::is_constant_name(&name) {
                            constants.push((scope.span(*value), name));
                        }
                    }
                }
                Expr::Call(call) => {
                    if let Expr::Path(func) = &*call.func {
                        calls.push(crate::analysis::syntax::last_segment(&func.path));
                    }
                }
                Expr::MethodCall(call) => calls.push(call.method.to_string()),
                _ => {}
            }
        }
        if !constants.is_empty() || !calls.is_empty() {
            calls.sort_unstable();
            calls.dedup();
            self.returned_flow
                .push((sig.ident.to_string(), constants, calls));
        }
        let literals: Vec<(ByteSpan, i64)> = values
            .into_iter()
            .filter_map(|value| match value {
                // `zz!(-32604)`: a macro whose body is the value (read as code, as the walk
                // reads macro bodies for this hook).
                Expr::Macro(m) => {
                    let inner: Expr = syn::parse2(m.mac.tokens.clone()).ok()?;
                    Some((scope.span(&inner), int_literal(&inner)?))
                }
                _ => Some((scope.span(value), int_literal(value)?)),
            })
            .collect();
        if !literals.is_empty() {
            self.returned.push((sig.ident.to_string(), literals));
        }
    }

    /// A code given as a call's value (`ErrorCode(err.code())`): the called function.
    fn code_call(&mut self, value: &Expr, scope: &Scope<'_>) {
        if let Some(name) = callee_name(value) {
            self.used.push((name, scope.span(value)));
        }
    }

    fn expr(&mut self, expr: &Expr, scope: &Scope<'_>) {
        match expr {
            Expr::Path(path) => {
                let segments = &path.path.segments;
                if let Some(last) = segments.last().map(|s| s.ident.to_string()) {
                    let constant = crate::analysis::syntax::is_constant_name(&last);
                    if constant && !self.read.iter().any(|(name, _)| *name == last) {
                        self.read.push((last, scope.span(expr)));
                    }
                }
                let named = segments.len() >= 2
                    && segments[segments.len() - 1].ident == "RESOURCE_NOT_FOUND"
                    && segments[segments.len() - 2].ident == "ErrorCode";
                if named {
                    self.codes.push((scope.span(expr), -32002));
                }
            }
            Expr::MethodCall(call) => self.call(&call.method.to_string(), call.args.iter(), scope),
            Expr::Call(call) => {
                if let Expr::Path(func) = &*call.func {
                    let name = crate::analysis::syntax::last_segment(&func.path);
                    self.call(&name, call.args.iter(), scope);
                }
            }
            Expr::Struct(literal) => {
                let type_name = literal
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                // `AppError::Upstream { code: 0 }`: an enum variant's field is the crate's own
                // data (an upstream service's status), not the code of a JSON-RPC error.
                let segments = &literal.path.segments;
                let variant = segments.len() >= 2
                    && segments[segments.len() - 2]
                        .ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase());
                if variant {
                    return;
                }
                if !type_name.contains("Error") {
                    // Under any type name, a call given to a field the file's JSON errors read
                    // as their code (see `code_fields`): known at the file's end.
                    for field in &literal.fields {
                        if let syn::Member::Named(name) = &field.member {
                            if let Some(callee) = callee_name(&field.expr) {
                                self.field_calls.push((
                                    name.to_string(),
                                    callee,
                                    scope.span(&field.expr),
                                ));
                            }
                        }
                    }
                    return;
                }
                for field in &literal.fields {
                    if matches!(&field.member, syn::Member::Named(m) if m == "code") {
                        match int_literal(&field.expr) {
                            Some(value) => self.codes.push((scope.span(&field.expr), value)),
                            None => self.code_call(&field.expr, scope),
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// `"code": <lit>` inside the `"error"` object of a `json!` literal.
    fn json(&mut self, tokens: TokenStream, in_error: bool, scope: &Scope<'_>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(group) => {
                    let key_is_error = i >= 2
                        && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                        && matches!(&trees[i - 2], TokenTree::Literal(l) if l.to_string() == "\"error\"");
                    self.json(group.stream(), key_is_error, scope);
                }
                TokenTree::Literal(key) if in_error && key.to_string() == "\"code\"" => {
                    if !matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                    {
                        continue;
                    }
                    let (negative, at) = match trees.get(i + 2) {
                        Some(TokenTree::Punct(p)) if p.as_char() == '-' => (true, i + 3),
                        _ => (false, i + 2),
                    };
                    let Some(TokenTree::Literal(value)) = trees.get(at) else {
                        // `"code": err.code()`, `"code": e.code`: the value up to the next
                        // member. A call's value is a code; a field read is a field that holds
                        // one.
                        if !negative {
                            self.json_code_value(&trees[at.min(trees.len())..], scope);
                        }
                        continue;
                    };
                    let Ok(parsed) = value.to_string().parse::<i64>() else {
                        continue;
                    };
                    let start = if negative {
                        start_of(trees[i + 2].span())
                    } else {
                        start_of(value.span())
                    };
                    let span = ByteSpan::new(start + self.base, end_of(value.span()) + self.base);
                    self.codes
                        .push((span, if negative { -parsed } else { parsed }));
                }
                _ => {}
            }
        }
    }

    /// The value of a JSON error's `"code"` member that is not a literal (the tokens after the
    /// colon): a call's value is a code (`"code": err.to_code()`), and a field read (`"code":
    /// err.code`, under any field name) makes that field one whose struct literals' calls give a
    /// code.
    fn json_code_value(&mut self, rest: &[TokenTree], scope: &Scope<'_>) {
        let end = rest
            .iter()
            .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
            .unwrap_or(rest.len());
        let tokens: TokenStream = rest[..end].iter().cloned().collect();
        let Ok(value) = syn::parse2::<Expr>(tokens) else {
            return;
        };
        match crate::analysis::syntax::peel(&value) {
            Expr::Field(field) => {
                if let syn::Member::Named(name) = &field.member {
                    let name = name.to_string();
                    if !self.code_fields.contains(&name) {
                        self.code_fields.push(name);
                    }
                }
            }
            Expr::Call(_) | Expr::MethodCall(_) => self.code_call(&value, scope),
            _ => {}
        }
    }

    /// `const PARSE_ERROR: i64 = -32700;`: an integer constant named as an error code.
    fn constant(&mut self, ident: &syn::Ident, ty: &syn::Type, value: &Expr, scope: &Scope<'_>) {
        self.int_constant(ident, ty, value, scope);
        let name = ident.to_string();
        let named =
            name.ends_with("_ERROR") || name.ends_with("_CODE") || name.starts_with("ERROR_");
        let integer = matches!(
            type_name(ty).as_deref(),
            Some("i16" | "i32" | "i64" | "isize")
        );
        if let (true, true, Some(code)) = (named, integer, int_literal(value)) {
            self.constants.push((name, scope.span(value), code));
        }
    }

    /// An integer constant under any name (see [`INT_CONSTANTS`]).
    fn int_constant(
        &mut self,
        ident: &syn::Ident,
        ty: &syn::Type,
        value: &Expr,
        scope: &Scope<'_>,
    ) {
        let integer = matches!(
            type_name(ty).as_deref(),
            Some("i16" | "i32" | "i64" | "isize")
        );
        let judged = |code: &i64| *code == 0 || (-32768..=-32000).contains(code);
        if let (true, Some(code)) = (integer, int_literal(value).filter(judged)) {
            self.int_constants
                .push((ident.to_string(), scope.span(value), code));
        }
    }

    /// `ErrorCode(<lit>)`, `send_error(id, <lit>, ..)`, `error_response(id, <lit>, ..)`. In a
    /// call named for an error, an integer is its code where an answer's code goes: negative
    /// (JSON-RPC's codes are), or first or second and followed by the message. Not a count or an
    /// index that such a call also takes (`error_envelope(&msg, &[], 0, ..)`,
    /// `with_error(rows, 0)`).
    fn call<'e>(&mut self, name: &str, args: impl Iterator<Item = &'e Expr>, scope: &Scope<'_>) {
        let args: Vec<&Expr> = args.collect();
        if name != "ErrorCode" && !is_error_call(name) {
            for (position, arg) in args.iter().enumerate() {
                if let Some(value) = int_literal(arg).filter(|v| (-32768..=-32000).contains(v)) {
                    self.handed_codes
                        .push((scope.span(*arg), name.to_string(), position, value));
                }
            }
            return;
        }
        if let (true, [only]) = (name == "ErrorCode", args.as_slice()) {
            if int_literal(only).is_none() {
                self.code_call(only, scope);
            }
        }
        let code = args.iter().enumerate().find_map(|(position, a)| {
            let value = int_literal(a)?;
            let placed = name == "ErrorCode" || code_place(value < 0, position, args.len());
            placed.then_some((*a, value, position))
        });
        if let Some((arg, value, position)) = code {
            self.codes.push((scope.span(arg), value));
            if name != "ErrorCode" {
                self.call_codes
                    .push((scope.span(arg), name.to_string(), position));
            }
        }
    }
}

/// Whether an integer at `position` of `count` arguments of a call named for an error is where
/// its code goes: negative (JSON-RPC's codes are), or first or second and followed by more.
fn code_place(negative: bool, position: usize, count: usize) -> bool {
    negative || (position <= 1 && position + 1 < count)
}

/// The positions (among the typed parameters) of the parameters a function's body uses as an
/// error code, and those it hands to a call named for an error at a code's place (see
/// [`PARAM_CODES`]).
fn params_used_as_codes(
    sig: &syn::Signature,
    block: &syn::Block,
) -> (Vec<usize>, Vec<Forward>, Vec<usize>) {
    let params: Vec<String> = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(arg) => match &*arg.pat {
                syn::Pat::Ident(ident) => Some(ident.ident.to_string()),
                _ => Some(String::new()),
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let mut uses = Uses {
        params: &params,
        found: Vec::new(),
        wire: Vec::new(),
        forwarded: Vec::new(),
    };
    syn::visit::Visit::visit_block(&mut uses, block);
    uses.found.sort_unstable();
    uses.found.dedup();
    uses.wire.sort_unstable();
    uses.wire.dedup();
    uses.forwarded.sort_unstable();
    uses.forwarded.dedup();
    (uses.found, uses.forwarded, uses.wire)
}

/// The simple name of the function a call expression calls, through parentheses (`err.code()`:
/// `code`; `Self::to_code(e)`: `to_code`).
fn callee_name(value: &Expr) -> Option<String> {
    crate::analysis::dispatch::called_name(crate::analysis::syntax::peel(value))
}

/// The value of an integer literal, through negation, parentheses and casts.
fn int_literal(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i64>().ok(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => int_literal(&u.expr).map(|v| -v),
        Expr::Paren(p) => int_literal(&p.expr),
        Expr::Group(g) => int_literal(&g.expr),
        Expr::Cast(c) => int_literal(&c.expr),
        _ => None,
    }
}

/// Calls whose integer-literal argument is an error code.
pub fn is_error_call(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("error") || lower == "reply_err" || lower == "with_code"
}

/// The `"code"` key of a JSON object, as a map's `insert` takes it (`"code".to_string()`,
/// `"code".into()`, `String::from("code")`, `"code".to_owned()`).
fn code_key(expr: &Expr) -> bool {
    match crate::analysis::syntax::peel(expr) {
        Expr::MethodCall(call) if call.args.is_empty() => code_key(&call.receiver),
        Expr::Call(call) if call.args.len() == 1 => call.args.first().is_some_and(code_key),
        other => crate::analysis::syntax::str_literal(other).as_deref() == Some("code"),
    }
}

/// The value a JSON value is made of: `Value::Number(code.into())`, `Value::from(code)`,
/// `json!(code)` and `code.into()` are `code`.
fn json_value_of(expr: &Expr) -> &Expr {
    match crate::analysis::syntax::peel(expr) {
        Expr::MethodCall(call) if call.args.is_empty() => json_value_of(&call.receiver),
        Expr::Call(call) if call.args.len() == 1 => call.args.first().map_or(expr, json_value_of),
        other => other,
    }
}

/// A function body's uses of its parameters as error codes (see [`params_used_as_codes`]).
struct Uses<'p> {
    params: &'p [String],
    found: Vec<usize>,
    /// Of those, the ones written as the `code` of JSON the body builds.
    wire: Vec<usize>,
    forwarded: Vec<Forward>,
}
impl Uses<'_> {
    /// The parameter an expression is, through parentheses and a cast.
    fn param(&self, expr: &Expr) -> Option<usize> {
        let expr = match crate::analysis::syntax::peel(expr) {
            Expr::Cast(c) => &*c.expr,
            other => other,
        };
        let Expr::Path(p) = crate::analysis::syntax::peel(expr) else {
            return None;
        };
        let ident = p.path.get_ident()?;
        self.params.iter().position(|n| ident == n.as_str())
    }
    fn note(&mut self, expr: &Expr) {
        if let Some(i) = self.param(expr) {
            self.found.push(i);
        }
    }
    fn note_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(g) => self.note_tokens(g.stream()),
                TokenTree::Ident(ident) if i >= 2 => {
                    let keyed = matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                        && matches!(&trees[i - 2], TokenTree::Literal(l) if l.to_string() == "\"code\"");
                    let position = self.params.iter().position(|n| ident == n.as_str());
                    if let (true, Some(position)) = (keyed, position) {
                        self.found.push(position);
                        self.wire.push(position);
                    }
                }
                // `format!(r#"{{"error":{{"code":{code},..}}}}"#)`: the parameter inlined as
                // the value of a `"code"` member of the JSON text a format string writes.
                TokenTree::Literal(literal) => {
                    let text: String = literal
                        .to_string()
                        .chars()
                        .filter(|c| !matches!(c, '"' | '\\' | ' '))
                        .collect();
                    for (position, name) in self.params.iter().enumerate() {
                        if !name.is_empty() && text.contains(&format!("code:{{{name}}}")) {
                            self.found.push(position);
                            self.wire.push(position);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    fn note_call<'e>(&mut self, name: &str, args: impl Iterator<Item = &'e Expr>) {
        let args: Vec<&Expr> = args.collect();
        if name == "ErrorCode" {
            args.iter().for_each(|a| self.note(a));
            return;
        }
        let named = is_error_call(name);
        for (position, arg) in args.iter().enumerate() {
            if let Some(param) = self.param(arg) {
                let at_code = named && code_place(false, position, args.len());
                self.forwarded
                    .push((param, name.to_string(), position, at_code));
            }
        }
    }
}
impl<'ast> syn::visit::Visit<'ast> for Uses<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Struct(literal) => {
                for field in &literal.fields {
                    if matches!(&field.member, syn::Member::Named(m) if m == "code") {
                        self.note(&field.expr);
                    }
                }
            }
            Expr::Call(call) => {
                if let Expr::Path(func) = &*call.func {
                    let name = crate::analysis::syntax::last_segment(&func.path);
                    self.note_call(&name, call.args.iter());
                }
            }
            Expr::MethodCall(call) => {
                // `err.insert("code".to_string(), Value::Number(code.into()))`: the parameter
                // put into a JSON object under the `code` key.
                if call.method == "insert" && call.args.len() == 2 {
                    let mut args = call.args.iter();
                    if let (Some(key), Some(value)) = (args.next(), args.next()) {
                        if let Some(i) = self.param(json_value_of(value)).filter(|_| code_key(key))
                        {
                            self.found.push(i);
                            self.wire.push(i);
                        }
                    }
                }
                self.note_call(&call.method.to_string(), call.args.iter())
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.note_tokens(mac.tokens.clone());
    }
}
