//! Where a file starts serving MCP over its own stdio, and how its functions branch: a hook on
//! the shared walk. The server model ([`super::server_model`]) joins these facts over a target
//! to find what runs while the target serves stdio; MCP002 and MCP007 read it.

use std::collections::{HashMap, HashSet};

use syn::{Expr, Stmt};

use super::exits::{ends, ends_block, exits_process, exits_process_block};
use super::facts::{ServingFacts, SERVING};
use crate::analysis::facts::FileFacts;
use crate::analysis::syntax::{macro_name, path_segments};
use crate::analysis::text;
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::{is_function_body, Collects, Hook, Node, Scope};
use crate::source::ByteSpan;

/// Collects serve sites and branches, for the rules that read the server model (MCP002,
/// MCP007): each names this collector, so it runs once when either is enabled.
pub static COLLECTOR: ServingCollector = ServingCollector;

pub struct ServingCollector;

impl Collects for ServingCollector {
    fn key(&self) -> &'static str {
        SERVING.name()
    }

    fn hook<'a>(&self, text: &'a str, _: usize, _: &'a Vocabulary) -> Option<Box<dyn Hook + 'a>> {
        Some(Box::new(Serving {
            stdio: text::serves_stdio(text),
            // A loop on stdin serves MCP when the file reads JSON (JSON-RPC messages); a
            // program that reads a person's answers from stdin does not.
            json: text.contains("json") || text.contains("Json") || text.contains("JSON"),
            facts: ServingFacts::default(),
            functions: Vec::new(),
            flags: Vec::new(),
            cfg_functions: Vec::new(),
            json_parsers: HashSet::new(),
            handed_reads: Vec::new(),
            stdin_fields: HashSet::new(),
        }))
    }
}

struct Serving {
    /// The file's code serves stdio at all (see [`text::serves_stdio`]): its sites are looked
    /// for only then.
    stdio: bool,
    json: bool,
    facts: ServingFacts,
    /// Per enclosing function, its reads of stdin and what decides whether they serve.
    functions: Vec<StdinReads>,
    /// Per enclosing function, its `bool` locals that stand for a test of the sub-command.
    flags: Vec<super::command_flags::CommandFlags>,
    /// Functions and methods under a `#[cfg(..)]`: name, predicate, item.
    cfg_functions: Vec<(String, String, ByteSpan)>,
    /// The file's functions that parse JSON (`serde_json::from_str(..)`), by simple name.
    json_parsers: HashSet<String>,
    /// Reads of stdin in a loop that hand the reader to functions of the file (their simple
    /// names): they serve when one of those parses JSON ([`StdinReads::handed_to`]).
    handed_reads: Vec<(Vec<ByteSpan>, Vec<String>)>,
    /// The fields of the file's structs that hold stdin (`stdin: io::StdinLock<'static>`, `Stdin`,
    /// `BufReader<Stdin>`): (struct, field). A method reading lines from such a field of `self`
    /// reads stdin (batch 61's kokoro-tiny: `self.stdin.read_line(&mut line)` in its server's
    /// loop).
    stdin_fields: HashSet<(String, String)>,
}

/// Whether a field's type holds the process's stdin: `Stdin`, `StdinLock<'_>`, or a reader
/// over one (`BufReader<Stdin>`).
fn holds_stdin(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    if matches!(last.ident.to_string().as_str(), "Stdin" | "StdinLock") {
        return true;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    last.ident == "BufReader"
        && args.args.iter().any(|arg| match arg {
            syn::GenericArgument::Type(inner) => holds_stdin(inner),
            _ => false,
        })
}

/// `true` or `false`, as a literal.
fn bool_literal(expr: &Expr) -> Option<bool> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) => Some(b.value),
        Expr::Paren(p) => bool_literal(&p.expr),
        Expr::Group(g) => bool_literal(&g.expr),
        _ => None,
    }
}

/// A function's `stdin()` calls. They serve messages when the function parses JSON from what it
/// reads as a stream (`.lines()`, or in a loop), or hands stdin to a transport in a pair
/// (`(stdin(), stdout())`); a single `read_line` for a person's answer does not, nor does a
/// REPL that reads a person's commands line by line.
#[derive(Default)]
struct StdinReads {
    sites: Vec<ByteSpan>,
    /// Locals bound to stdin or to a reader of it (`let reader = stdin.lock();`): what `lines`
    /// and `looped` ask about, so that a `.lines()` of a string or a loop over a list elsewhere
    /// in the function does not make a prompt's `read_line` a server.
    readers: Vec<String>,
    /// Locals bound to a piece of a value (`let json = args[2..].join(" ");`): a command's
    /// argument, not a whole message.
    pieces: Vec<String>,
    /// Locals bound to what was read from elsewhere than stdin: a file's contents (`let content =
    /// fs::read_to_string(&path)?;`) or a response body (`let text = resp.text().await?;`). JSON
    /// parsed from them is a configuration or a peer's answer, not a message.
    read_elsewhere: Vec<String>,
    paired: bool,
    lines: bool,
    looped: bool,
    parses_json: bool,
    /// Stdin is read whole (`read_to_string`, `read_to_end`): one payload, to the end of the
    /// input, as a hook or a filter reads it; a server answers each message as it comes.
    whole: bool,
    /// The function serialises JSON on one line (`serde_json::to_string`, `to_vec`,
    /// `to_writer`): with stdin read as lines, a JSON-lines server whose parsing is in a helper
    /// (`handle_line(&line)`); a REPL pretty-prints, or prints text.
    writes_json_lines: bool,
    /// Locals bound to a struct literal, with the `bool` fields it sets to literals (`let
    /// options = SearchOptions { benchmark: false, .. };`).
    struct_locals: HashMap<String, Vec<(String, bool)>>,
    /// Stdio transports bound to locals (`let transport = StdioTransport::new();`): the local,
    /// the constructor's span, its uses, and those that hand it to a value nothing uses
    /// (`let _client = Client::new(transport);`).
    transports: Vec<BoundTransport>,
    /// The function's simple name.
    name: String,
    /// The fields of `self` that hold the process's stdin (see [`Serving::stdin_fields`]):
    /// `self.stdin` reads it as `stdin()` does.
    stdin_fields: Vec<String>,
    /// The function launches a child process to talk to over its pipes ([`launches_child`]):
    /// its reads of stdin are a client's (a prompt, or input relayed to the child).
    launches: bool,
    /// The simple names of the functions stdin or a reader of it is handed to
    /// (`read_message(&mut reader)`): what they do with it is what the function does.
    handed_to: Vec<String>,
    /// The closures and `async` blocks made once (see [`once_task`]) that parse JSON: a parse
    /// there is the function's when the task reads stdin too (batch 96's elevenlabs-cli: a
    /// chat that prompts on stdin and parses its WebSocket's messages in a spawned task).
    task_parses: Vec<ByteSpan>,
}

struct BoundTransport {
    name: String,
    site: ByteSpan,
    uses: usize,
    unused: usize,
    /// Bound in one arm of a `match` (see [`in_match_arm`]).
    chosen: bool,
    /// Handed to a client's constructor (see [`client_constructor`]).
    client: bool,
}

/// Whether the current node lies in an arm of a `match` of its function: built only when a
/// value chooses that arm.
fn in_match_arm(scope: &Scope<'_>) -> bool {
    for n in 0.. {
        match scope.ancestor(n) {
            Some(Node::Arm(_)) => return true,
            Some(Node::Item(_) | Node::ImplItem(_) | Node::TraitItem(_)) | None => return false,
            Some(Node::Expr(Expr::Closure(_))) => return false,
            _ => {}
        }
    }
    false
}

/// Whether a node is the call of a client type's constructor (`Client::new(transport)`,
/// `pmcp::Client::with_options(transport, ..)`): the SDKs' clients, whose transport on the
/// process's own stdio talks to a server on the other end.
fn client_constructor(node: Option<Node<'_>>) -> bool {
    let Some(Node::Expr(Expr::Call(call))) = node else {
        return false;
    };
    let Expr::Path(p) = &*call.func else {
        return false;
    };
    let segments = path_segments(&p.path);
    segments.len() >= 2 && segments[segments.len() - 2].ends_with("Client")
}

impl StdinReads {
    /// A local bound to a piece of a value (`&json` of `let json = args[2..].join(" ");`).
    fn is_piece_local(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Reference(r) => self.is_piece_local(&r.expr),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|ident| self.pieces.iter().any(|n| ident == n.as_str())),
            _ => false,
        }
    }

    /// What was read from elsewhere than stdin (see [`StdinReads::read_elsewhere`]): read where
    /// it is used (`fs::read_to_string(&path)?`) or a local bound to it, under a reference or a
    /// view (`&content`, `content.trim()`).
    fn is_read_elsewhere(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Reference(r) => self.is_read_elsewhere(&r.expr),
            Expr::Paren(p) => self.is_read_elsewhere(&p.expr),
            Expr::MethodCall(call) if call.args.is_empty() => {
                self.is_read_elsewhere(&call.receiver)
            }
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|ident| self.read_elsewhere.iter().any(|n| ident == n.as_str())),
            _ => reads_elsewhere(expr),
        }
    }

    /// `self.stdin`, a field of `self` that holds the process's stdin.
    fn is_stdin_field(&self, expr: &Expr) -> bool {
        let Expr::Field(field) = expr else {
            return false;
        };
        let (Expr::Path(base), syn::Member::Named(name)) = (&*field.base, &field.member) else {
            return false;
        };
        base.path.is_ident("self") && self.stdin_fields.iter().any(|f| name == f.as_str())
    }

    /// A local that reads stdin, by its name.
    fn is_stdin_reader(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::Path(p) if p.path.get_ident()
            .is_some_and(|ident| self.readers.iter().any(|r| ident == r.as_str())))
    }

    /// Whether an expression reads stdin: a call of `stdin()` or a local that reads it anywhere
    /// in it (`BufReader::new(stdin)`).
    fn mentions_stdin(&self, expr: &Expr) -> bool {
        struct Finder<'a>(&'a StdinReads, bool);
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_expr(&mut self, expr: &'ast Expr) {
                if self.1 {
                    return;
                }
                if is_stdin_call(expr)
                    || self.0.is_stdin_reader(expr)
                    || self.0.is_stdin_field(expr)
                {
                    self.1 = true;
                } else {
                    syn::visit::visit_expr(self, expr);
                }
            }
        }
        let mut finder = Finder(self, false);
        syn::visit::Visit::visit_expr(&mut finder, expr);
        finder.1
    }

    /// Whether the value of an expression reads stdin (see [`StdinReads::mentions_stdin`]):
    /// for an `if`, a `match` or a block, the values its branches give, not what their
    /// statements read on the way (`let claim = if from_stdin { stdin().read_to_string(&mut
    /// buf)?; buf } else { arg };` holds text that was read, no reader).
    fn value_reads_stdin(&self, expr: &Expr) -> bool {
        let tail = |block: &syn::Block| match block.stmts.last() {
            Some(syn::Stmt::Expr(value, None)) => self.value_reads_stdin(value),
            _ => false,
        };
        match expr {
            Expr::If(expr_if) => {
                tail(&expr_if.then_branch)
                    || expr_if
                        .else_branch
                        .as_ref()
                        .is_some_and(|(_, other)| self.value_reads_stdin(other))
            }
            Expr::Match(expr_match) => expr_match
                .arms
                .iter()
                .any(|arm| self.value_reads_stdin(&arm.body)),
            Expr::Block(block) => tail(&block.block),
            Expr::Unsafe(block) => tail(&block.block),
            Expr::Paren(inner) => self.value_reads_stdin(&inner.expr),
            _ => self.mentions_stdin(expr),
        }
    }

    fn serve(&self) -> bool {
        self.paired
            || (self.lines && (self.parses_json || self.writes_json_lines))
            || (self.looped && self.parses_json && !self.whole)
    }
}

/// Whether a call by this path starts serving over the process's own stdio: rmcp's `stdio()`
/// transport, a call named for serving stdio (`run_stdio()`, `serve_stdio()`,
/// `start_stdio_server()`), a stdio transport type's constructor (`StdioTransport::new()`,
/// `StdioServerTransport::default()`), or (`stdin()`) a read of stdin. Not any other function
/// of a stdio transport type (`StdioTransport::parse_message(..)`), nor a client's transport
/// (`ClientStdioTransport::new(..)`).
fn serving_path(segments: &[String], no_args: bool) -> Option<Site> {
    let last = segments.last()?;
    if last == "stdin" && no_args {
        return Some(Site::Stdin);
    }
    if (last == "stdio" && no_args) || names_serving_stdio(last) {
        return Some(Site::Transport);
    }
    let owner = segments
        .len()
        .checked_sub(2)
        .and_then(|i| segments.get(i))?;
    let constructor = last == "new" || last == "default" || last.starts_with("with_");
    // A client's stdio transport (`ClientStdioTransport::new(program, ..)`) launches the server
    // as a child and talks over the child's pipes: the process's own stdout stays its own.
    let client = owner.contains("Client");
    (owner.contains("Stdio") && owner.contains("Transport") && constructor && !client)
        .then_some(Site::Transport)
}

/// Whether an item derives clap's `Subcommand` (`#[derive(Subcommand)]`,
/// `#[derive(clap::Subcommand)]`).
fn derives_subcommand(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && quote::ToTokens::to_token_stream(&attr.meta)
                .to_string()
                .contains("Subcommand")
    })
}

/// A function or method named for serving over stdio: `run_stdio`, `serve_stdio`,
/// `start_stdio_server`, `listen_stdio`.
fn names_serving_stdio(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("stdio")
        && ["serve", "run", "start", "listen"]
            .iter()
            .any(|verb| name.contains(verb))
}

enum Site {
    Transport,
    Stdin,
}

impl Serving {
    /// What an item tells: a handler trait's implementation, a sub-command enum, the fields of a
    /// struct that hold stdin.
    fn note_item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Impl(item) => self.note_handler_impl(item),
            syn::Item::Enum(item) if derives_subcommand(&item.attrs) => {
                self.facts.subcommand_enums.push(item.ident.to_string())
            }
            syn::Item::Struct(item) => {
                for field in &item.fields {
                    if let Some(name) = field.ident.as_ref().filter(|_| holds_stdin(&field.ty)) {
                        self.stdin_fields
                            .insert((item.ident.to_string(), name.to_string()));
                    }
                }
            }
            _ => {}
        }
    }

    /// `self.stdin.read_line(&mut line)`: a read of the stdin a field of `self` holds (test code
    /// serves nothing while the program runs).
    fn note_stdin_field_read(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let Node::Expr(Expr::MethodCall(call)) = node else {
            return;
        };
        // `self.stdin.lock()`: a reader of the stdin the field holds, as `stdin().lock()` is
        // (batch 111's use_aws_mcp: `BufReader::new(self.stdin.lock()).lines()`).
        let locked = call.method == "lock"
            && self
                .functions
                .last()
                .is_some_and(|f| f.is_stdin_field(crate::analysis::syntax::peel(&call.receiver)));
        if self.stdio && !scope.in_test() && (locked || self.reads_a_stdin_field(call, scope)) {
            if let Some(function) = self.functions.last_mut() {
                function.looped |= in_loop(scope);
            }
            self.site(Some(Site::Stdin), scope.span(call), scope);
        }
    }

    /// Whether a method call reads lines from a field of `self` that holds stdin (see
    /// [`Serving::stdin_fields`]).
    fn reads_a_stdin_field(&self, call: &syn::ExprMethodCall, scope: &Scope<'_>) -> bool {
        if !matches!(
            call.method.to_string().as_str(),
            "read_line" | "lines" | "read_until"
        ) {
            return false;
        }
        let Expr::Field(field) = crate::analysis::syntax::peel(&call.receiver) else {
            return false;
        };
        let (Expr::Path(base), syn::Member::Named(name)) = (&*field.base, &field.member) else {
            return false;
        };
        let Some(ty) = scope.impl_scope().and_then(|i| i.self_ty.as_deref()) else {
            return false;
        };
        base.path.is_ident("self")
            && self
                .stdin_fields
                .contains(&(ty.to_string(), name.to_string()))
    }

    fn site(&mut self, site: Option<Site>, span: ByteSpan, scope: &Scope<'_>) {
        if site.is_some() && !scope.required_features().is_empty() {
            self.facts.feature_gated_sites = true;
        }
        match site {
            Some(Site::Transport) => self.facts.serve_sites.push(span),
            Some(Site::Stdin) => {
                if let Some(function) = self.functions.last_mut() {
                    function.sites.push(span);
                }
            }
            _ => {}
        }
    }

    /// `let x = matches!(cli.command, ..) || y;`, `y = true` under such a test, `if x { .. }`:
    /// see [`super::command_flags`].
    fn note_command_flags(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let Some(flags) = self.flags.last_mut() else {
            return;
        };
        match node {
            Node::Local(local) => flags.note_local(local, variant_test),
            Node::Expr(Expr::Assign(assign)) => flags.note_assign(assign, scope, variant_test),
            Node::Expr(Expr::If(expr_if)) => {
                let otherwise = match expr_if.else_branch.as_ref().map(|(_, e)| &**e) {
                    Some(Expr::Block(block)) => Some(block_span(&block.block, scope)),
                    _ => None,
                };
                flags.note_if(expr_if, block_span(&expr_if.then_branch, scope), otherwise)
            }
            _ => {}
        }
    }

    /// Calls for the process's own stdio (`stdin()`), and calls that launch a child process to
    /// talk to over its pipes.
    fn note_process_calls(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let Node::Expr(expr) = node else {
            return;
        };
        if matches!(expr, Expr::Call(_)) && is_process_stdio_call(expr) {
            self.facts.stdio_calls.push(scope.span(expr));
        }
        if launches_child(expr) {
            self.facts.child_launches.push(scope.span(expr));
            if let Some(function) = self.functions.last_mut() {
                function.launches = true;
            }
        }
    }

    /// A function's body is entered: its reads of stdin and its flags start.
    fn enter_function(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let name = scope.function().map(|f| f.name()).unwrap_or_default();
        let self_ty = scope.impl_scope().and_then(|i| i.self_ty.as_deref());
        let stdin_fields = self_ty.map_or_else(Vec::new, |ty| {
            let ty = ty.to_string();
            (self.stdin_fields.iter())
                .filter(|(owner, _)| *owner == ty)
                .map(|(_, field)| field.clone())
                .collect()
        });
        self.functions.push(StdinReads {
            name,
            stdin_fields,
            ..StdinReads::default()
        });
        self.flags.push(Default::default());
        if let Node::Block(block) = node {
            self.note_function_body(block, scope);
        }
    }

    /// A serve site that constructs a stdio transport type (`StdioTransport::new()`): whether it
    /// serves depends on what the type's code does (see `server_model::own_type_serves`).
    fn note_constructed(&mut self, site: &Option<Site>, segments: &[String], span: ByteSpan) {
        if let (Some(Site::Transport), [.., owner, last]) = (site, segments) {
            if !names_serving_stdio(last) {
                self.facts.constructed_sites.push((span, owner.clone()));
            }
        }
    }

    /// `if f(..) { return .. }` with no `else`: the call decides whether the function goes on.
    fn note_leaving_test(&mut self, expr: &syn::ExprIf, scope: &Scope<'_>) {
        if expr.else_branch.is_some() || !leaves_function_block(&expr.then_branch) {
            return;
        }
        if let call @ (Expr::Call(_) | Expr::MethodCall(_)) =
            crate::analysis::syntax::peel(&expr.cond)
        {
            self.facts.leaving_tests.push(scope.span(call));
        }
    }

    /// A function or method compiled under a `cfg`: a pair for a predicate and its negation is
    /// one function in two builds.
    fn note_cfg_function(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let cfg_fn = match node {
            Node::Item(syn::Item::Fn(f)) => Some((&f.attrs, &f.sig.ident, scope.span(f))),
            Node::ImplItem(syn::ImplItem::Fn(f)) => Some((&f.attrs, &f.sig.ident, scope.span(f))),
            _ => None,
        };
        if let Some((attrs, name, span)) = cfg_fn {
            if let Some(predicate) = attrs_cfg_predicate(attrs) {
                self.cfg_functions.push((name.to_string(), predicate, span));
            }
        }
    }

    /// `impl ServerHandler for X` (any trait named `*Handler`): the SDK calls `X`'s methods
    /// while it serves, when the trait is an SDK's (see [`super::server_model`]).
    fn note_handler_impl(&mut self, item: &syn::ItemImpl) {
        let Some((_, path, _)) = &item.trait_ else {
            return;
        };
        // `impl jetpack::output::OutputHandler for X`: a library's callback trait.
        if path.segments.len() > 1
            && path.segments.first().is_some_and(|root| {
                crate::analysis::dispatch::names_other_library(&root.ident.to_string())
            })
        {
            return;
        }
        let Some(handler) = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .filter(|t| t.ends_with("Handler"))
        else {
            return;
        };
        let syn::Type::Path(ty) = &*item.self_ty else {
            return;
        };
        if let Some(name) = ty.path.segments.last() {
            let entry = (name.ident.to_string(), handler);
            if !self.facts.handler_types.contains(&entry) {
                self.facts.handler_types.push(entry);
            }
        }
    }

    /// What runs on other threads: the bodies handed to `tokio::spawn` and its kin, and whether
    /// the file builds a single-threaded runtime (`#[tokio::main(flavor = "current_thread")]`,
    /// `Builder::new_current_thread()`).
    fn note_threads(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        match node {
            Node::Item(syn::Item::Fn(f)) => {
                self.facts.current_thread |= f.attrs.iter().any(|a| {
                    quote::ToTokens::to_token_stream(a)
                        .to_string()
                        .contains("current_thread")
                });
            }
            Node::Expr(Expr::Call(call)) if scope.in_function_body() => {
                for body in super::locks::spawned_bodies(call) {
                    self.facts.spawned.push(scope.span(body));
                }
                let single = matches!(&*call.func, Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "new_current_thread"));
                self.facts.current_thread |= single;
            }
            _ => {}
        }
    }

    /// A function's body: the call whose value it gives (`fn maybe_handle_help(args) -> bool {
    /// help::maybe_handle_help(args) }`), and the statements from which it gives `Some(..)` on
    /// every way out.
    fn note_function_body(&mut self, block: &syn::Block, scope: &Scope<'_>) {
        if let Some(first) = super::locks::stdout_lock_from(block) {
            if let (Some(first), Some(last)) = (block.stmts.get(first), block.stmts.last()) {
                let (first, last) = (scope.span(first), scope.span(last));
                self.facts
                    .stdout_locks
                    .push(ByteSpan::new(first.start, last.end));
            }
        }
        let sig = match scope.parent() {
            Some(Node::Item(syn::Item::Fn(f))) => Some(&f.sig),
            Some(Node::ImplItem(syn::ImplItem::Fn(f))) => Some(&f.sig),
            _ => None,
        };
        if let Some(names) = sig.and_then(parameter_names) {
            self.facts
                .parameter_names
                .push((block_span(block, scope), names));
        }
        if let Some(field) = sig.and_then(|sig| setter_field(sig, block)) {
            self.facts.setters.push((block_span(block, scope), field));
        }
        if sig.is_some_and(|sig| super::exits::decides_nothing(sig, block)) {
            self.facts.decide_nothing.push(block_span(block, scope));
        }
        for value in super::exits::some_returns(block) {
            self.facts.some_returns.push(scope.span(value));
        }
        // The arms of its tail `match` that give `Some(..)`: from there on, it gives `Some`.
        for arm in super::exits::some_arms(block) {
            self.facts.some_tails.push(scope.span(arm));
        }
        if let Some(first) = super::exits::some_from(block) {
            if let (Some(first), Some(last)) = (block.stmts.get(first), block.stmts.last()) {
                let (first, last) = (scope.span(first), scope.span(last));
                self.facts
                    .some_tails
                    .push(ByteSpan::new(first.start, last.end));
            }
        }
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
            if let call @ (Expr::Call(_) | Expr::MethodCall(_)) =
                crate::analysis::syntax::peel(tail)
            {
                self.facts.returned_calls.push(scope.span(call));
            }
        }
    }

    /// `init_tracing(true)`, `search(&q, &SearchOptions { benchmark: false, .. })`: what a
    /// `bool` parameter, or a `bool` field of a parameter, is given (see
    /// [`super::facts::StdoutWrite::runs_if`] and `runs_if_fields`).
    fn note_literal_args(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let (expr, args) = match node {
            Node::Expr(expr @ Expr::Call(call)) => (expr, &call.args),
            Node::Expr(expr @ Expr::MethodCall(call)) => (expr, &call.args),
            _ => return,
        };
        // `commands::execute(&config, cli.command)`: which value a parameter of the callee
        // holds, for a `match` on it there (see `server_model::deciding_matches_elsewhere`).
        let places: Vec<Option<String>> = args.iter().map(place_text).collect();
        if places.iter().any(Option::is_some) {
            self.facts.place_args.push((scope.span(expr), places));
        }
        let values: Vec<Option<bool>> = args.iter().map(bool_literal).collect();
        if values.iter().any(Option::is_some) {
            self.facts.bool_args.push((scope.span(expr), values));
        }
        let locals = self.functions.last().map(|f| &f.struct_locals);
        let fields: Vec<super::facts::FieldArg> = args
            .iter()
            .enumerate()
            .filter_map(|(position, arg)| {
                let fields = struct_bool_fields(arg, locals)?;
                (!fields.is_empty()).then_some((position, fields))
            })
            .collect();
        if !fields.is_empty() {
            self.facts.field_args.push((scope.span(expr), fields));
        }
    }

    /// A `match`: its arms exclude each other; the variants each admits; those that end the
    /// process.
    /// Each arm of a `match` on `scrutinee` for named variants, as a test of the value.
    fn note_variant_guards(&mut self, scrutinee: &str, arms: &[super::facts::VariantArm]) {
        for (arm, variants) in arms {
            if let Some(variants) = variants {
                self.facts
                    .variant_guards
                    .push((*arm, scrutinee.to_string(), variants.clone()));
            }
        }
    }

    fn note_match(&mut self, expr: &syn::ExprMatch, scope: &Scope<'_>) {
        let arms = expr.arms.iter().map(|arm| scope.span(&*arm.body)).collect();
        self.facts.branches.push(arms);
        let by_variant: Vec<super::facts::VariantArm> = expr
            .arms
            .iter()
            .map(|arm| (scope.span(&*arm.body), pattern_variants(&arm.pat)))
            .collect();
        let scrutinee = scrutinee_text(&expr.expr);
        // Each arm for named variants is also a test of the value, as `if matches!(..)` is:
        // `match command { Http => init_logging(), Stdio => init_stderr_logging() }` before a
        // second `match command` that serves stdio in its `Stdio` arm runs its `Http` arm only
        // when the program does not serve stdio.
        self.note_variant_guards(&scrutinee, &by_variant);
        // `_ => init_logging()` after arms that name variants, none with a guard: the
        // catch-all admits every variant but those.
        let named: Option<Vec<String>> = expr
            .arms
            .iter()
            .filter(|arm| !is_catch_all(&arm.pat))
            .map(|arm| match arm.guard {
                None => pattern_variants(&arm.pat),
                Some(_) => None,
            })
            .try_fold(Vec::new(), |mut all, variants| {
                all.extend(variants?);
                Some(all)
            });
        if let Some(named) = named.filter(|n| !n.is_empty()) {
            for arm in expr.arms.iter().filter(|arm| is_catch_all(&arm.pat)) {
                self.facts.except_guards.push((
                    scope.span(&*arm.body),
                    scrutinee.clone(),
                    named.clone(),
                ));
            }
        }
        // `Commands::Mcp(mcp) => match mcp { McpCommands::Stdio => .., .. }`: the inner arms
        // are also arms of the outer value, for the nested variants (`Mcp/Stdio`), as a test
        // `matches!(cli.command, Commands::Mcp(McpCommands::Stdio))` names them (batch 88:
        // ryht's two binaries install their stdout logger only when the command is not `mcp
        // stdio`).
        for arm in &expr.arms {
            let Some((outer, inner)) = nested_variant_match(arm) else {
                continue;
            };
            let nested: Vec<super::facts::VariantArm> = inner
                .arms
                .iter()
                .map(|arm| {
                    let variants = pattern_variants(&arm.pat)
                        .map(|vs| vs.iter().map(|v| format!("{outer}/{v}")).collect());
                    (scope.span(&*arm.body), variants)
                })
                .collect();
            self.note_variant_guards(&scrutinee, &nested);
            self.facts.variant_matches.push((scrutinee.clone(), nested));
        }
        self.facts.variant_matches.push((scrutinee, by_variant));
        for arm in expr.arms.iter().filter(|arm| exits_process(&arm.body)) {
            self.facts.exits.push(scope.span(&*arm.body));
        }
    }

    /// An `if`: the variants its condition admits, the branches that end the process, and (for
    /// a chain, not a link of one) its branches.
    fn note_if_node(&mut self, whole: &Expr, expr: &syn::ExprIf, scope: &Scope<'_>) {
        if let Some((scrutinee, variants, admits)) = variant_test(&expr.cond) {
            let guard = (block_span(&expr.then_branch, scope), scrutinee, variants);
            // `if !matches!(cli.command, Command::Stdio { .. }) { init_logging() }`: the block
            // runs for every variant but those.
            // `if matches!(cli.command, Some(Command::Mcp)) { stderr } else { stdout }`: the
            // `else` block runs for the other variants (the test being the whole condition).
            let otherwise = match expr.else_branch.as_ref().map(|(_, e)| &**e) {
                Some(Expr::Block(block)) if is_whole_variant_test(&expr.cond) => Some((
                    block_span(&block.block, scope),
                    guard.1.clone(),
                    guard.2.clone(),
                )),
                _ => None,
            };
            match admits {
                true => self.facts.variant_guards.push(guard),
                false => self.facts.except_guards.push(guard),
            }
            match (otherwise, admits) {
                (Some(other), true) => self.facts.except_guards.push(other),
                (Some(other), false) => self.facts.variant_guards.push(other),
                (None, _) => {}
            }
        }
        self.note_flag_test(expr, scope);
        if exits_process_block(&expr.then_branch) {
            self.facts.exits.push(block_span(&expr.then_branch, scope));
        }
        if let Some((_, other)) = &expr.else_branch {
            if !matches!(&**other, Expr::If(_)) && exits_process(other) {
                self.facts.exits.push(scope.span(&**other));
            }
        }
        let is_link = matches!(scope.parent(), Some(Node::Expr(Expr::If(parent)))
            if parent.else_branch.as_ref().is_some_and(|(_, e)| std::ptr::eq(&**e, whole)));
        if !is_link {
            self.note_if(expr, scope);
        }
    }

    /// `if cli.mcp { return serve().await }` and `if !cli.mcp { print_banner() }`: a test of a
    /// `bool` place is a test of a value with two variants, `true` and `false`, as a `match` on
    /// it would be. The branch it chooses runs only for its variant (a conjunction's branch only
    /// for its conjunct's; its `else` is not known then).
    fn note_flag_test(&mut self, expr: &syn::ExprIf, scope: &Scope<'_>) {
        let Some((place, value, alone)) = flag_test(&expr.cond) else {
            return;
        };
        let then = block_span(&expr.then_branch, scope);
        let other = expr
            .else_branch
            .as_ref()
            .filter(|_| alone)
            .map(|(_, e)| scope.span(&**e));
        let name = |v: bool| vec![v.to_string()];
        self.facts
            .variant_guards
            .push((then, place.clone(), name(value)));
        let mut arms = vec![(then, Some(name(value)))];
        if let Some(other) = other {
            self.facts
                .variant_guards
                .push((other, place.clone(), name(!value)));
            arms.push((other, Some(name(!value))));
        }
        self.facts.variant_matches.push((place, arms));
    }

    /// An `if` chain (not a link of one): its branches, when it has an `else`.
    fn note_if(&mut self, first: &syn::ExprIf, scope: &Scope<'_>) {
        let mut arms = vec![block_span(&first.then_branch, scope)];
        let mut next = first.else_branch.as_ref().map(|(_, e)| &**e);
        while let Some(expr) = next {
            match expr {
                Expr::If(link) => {
                    arms.push(block_span(&link.then_branch, scope));
                    next = link.else_branch.as_ref().map(|(_, e)| &**e);
                }
                other => {
                    arms.push(scope.span(other));
                    next = None;
                }
            }
        }
        if first.else_branch.is_some() {
            self.facts.branches.push(arms);
        }
    }

    /// In a block, a statement that waits for the session to end (`service.waiting().await`):
    /// the statements after it run once the client is gone, not while serving; they are a
    /// branch of their own beside the block up to that statement.
    fn note_session_end(&mut self, block: &syn::Block, scope: &Scope<'_>) {
        let Some(index) = block.stmts.iter().position(waits_for_session_end) else {
            return;
        };
        let (Some(first), Some(end), Some(next), Some(last)) = (
            block.stmts.first(),
            block.stmts.get(index),
            block.stmts.get(index + 1),
            block.stmts.last(),
        ) else {
            return;
        };
        let serving = ByteSpan::new(scope.span(first).start, scope.span(end).end);
        let after = ByteSpan::new(scope.span(next).start, scope.span(last).end);
        self.facts.branches.push(vec![serving, after]);
    }

    /// In a block, statements compiled under opposite `#[cfg]` predicates (`#[cfg(P)] { .. }`
    /// and `#[cfg(not(P))] { .. }`): only one of them is in any build, so they exclude each
    /// other.
    fn note_cfg_alternatives(&mut self, block: &syn::Block, scope: &Scope<'_>) {
        let predicates: Vec<Option<String>> = block.stmts.iter().map(cfg_predicate).collect();
        for (i, first) in predicates.iter().enumerate() {
            let Some(first) = first else { continue };
            for (j, second) in predicates.iter().enumerate().skip(i + 1) {
                let Some(second) = second else { continue };
                if *second == format!("not({first})") || *first == format!("not({second})") {
                    let (Some(a), Some(b)) = (block.stmts.get(i), block.stmts.get(j)) else {
                        continue;
                    };
                    self.facts.branches.push(vec![scope.span(a), scope.span(b)]);
                }
            }
        }
    }

    /// In a block, `if cond { ..; return }` with no `else`: its branch and the rest of the block
    /// exclude each other.
    fn note_early_exits(&mut self, block: &syn::Block, scope: &Scope<'_>) {
        // `let cli = match parse() { Ok(c) => c, Err(e) => { print!("{e}"); return .. } };`: an
        // arm (or branch) that leaves excludes the rest of the block, which only the others
        // reach.
        for (index, stmt) in block.stmts.iter().enumerate() {
            let decision = match stmt {
                Stmt::Local(local) => local.init.as_ref().map(|init| &*init.expr),
                Stmt::Expr(expr, _) => Some(expr),
                _ => None,
            };
            let (Some(next), Some(last)) = (block.stmts.get(index + 1), block.stmts.last()) else {
                continue;
            };
            let rest = ByteSpan::new(scope.span(next).start, scope.span(last).end);
            // `let Some(command) = cli.command else { print_welcome(); return Ok(()); };`: the
            // `else` never comes back, and the rest runs only when the pattern matched.
            if let Stmt::Local(syn::Local {
                init:
                    Some(syn::LocalInit {
                        diverge: Some((_, otherwise)),
                        ..
                    }),
                ..
            }) = stmt
            {
                self.facts
                    .branches
                    .push(vec![scope.span(&**otherwise), rest]);
            }
            match decision {
                Some(Expr::Match(m)) if m.arms.len() > 1 => {
                    for arm in m.arms.iter().filter(|arm| diverges_expr(&arm.body)) {
                        self.facts.branches.push(vec![scope.span(&*arm.body), rest]);
                    }
                }
                Some(Expr::If(i)) if i.else_branch.is_some() => {
                    if diverges(&i.then_branch) {
                        self.facts
                            .branches
                            .push(vec![block_span(&i.then_branch, scope), rest]);
                    }
                    if let Some((_, other)) = &i.else_branch {
                        if diverges_expr(other) {
                            self.facts.branches.push(vec![scope.span(&**other), rest]);
                        }
                    }
                }
                _ => {}
            }
        }
        // `if let Some(first) = args.first() { match first { "mcp" => return serve(), .. } }`
        // then the rest of `main`: an arm nested in the statement (a few `if`/`match` levels
        // down) that leaves the function excludes the rest of this block too.
        for (index, stmt) in block.stmts.iter().enumerate() {
            let (Some(next), Some(last)) = (block.stmts.get(index + 1), block.stmts.last()) else {
                continue;
            };
            let rest = ByteSpan::new(scope.span(next).start, scope.span(last).end);
            let mut leaving = Vec::new();
            nested_leaving_arms(stmt, NESTED_ARM_DEPTH, scope, &mut leaving);
            for arm in leaving {
                self.facts.leaving.push((arm, rest));
            }
        }
        for (index, stmt) in block.stmts.iter().enumerate() {
            let Stmt::Expr(Expr::If(expr), _) = stmt else {
                continue;
            };
            if expr.else_branch.is_some() || !diverges(&expr.then_branch) {
                continue;
            }
            let (Some(next), Some(last)) = (block.stmts.get(index + 1), block.stmts.last()) else {
                continue;
            };
            let rest = ByteSpan::new(scope.span(next).start, scope.span(last).end);
            if let Some(call) = some_leaving_call(expr) {
                self.facts.leaving_on_some.push((scope.span(call), rest));
            }
            self.facts
                .branches
                .push(vec![block_span(&expr.then_branch, scope), rest]);
        }
    }
}

/// `if let Some(code) = f(..) { return code; }`: the call, when the branch leaves the function.
fn some_leaving_call(expr: &syn::ExprIf) -> Option<&Expr> {
    let Expr::Let(test) = &*expr.cond else {
        return None;
    };
    let some = matches!(&*test.pat, syn::Pat::TupleStruct(p)
        if p.path.segments.last().is_some_and(|s| s.ident == "Some"));
    if !some || !leaves_function_block(&expr.then_branch) {
        return None;
    }
    match crate::analysis::syntax::peel(&test.expr) {
        call @ (Expr::Call(_) | Expr::MethodCall(_)) => Some(call),
        _ => None,
    }
}

/// The expression a statement evaluates: an expression statement's, or a `let`'s initialiser.
fn stmt_value(stmt: &Stmt) -> Option<&Expr> {
    match stmt {
        Stmt::Expr(expr, _) => Some(expr),
        Stmt::Local(local) => local.init.as_ref().map(|init| &*init.expr),
        _ => None,
    }
}

/// How many `if`/`match` levels down a statement [`nested_leaving_arms`] looks: a bound, so
/// that each block's look costs a constant share of its statements (deep nesting stays linear).
const NESTED_ARM_DEPTH: usize = 3;

/// The arms and branches inside `stmt`, below its own `if`/`match` (whose arms the block's
/// other passes take), within `depth` levels of `if`/`match` nesting, whose body leaves the
/// function (`return`, `exit(..)`, `bail!`): not `break`/`continue`, which stay in it.
fn nested_leaving_arms(stmt: &Stmt, depth: usize, scope: &Scope<'_>, out: &mut Vec<ByteSpan>) {
    let Some(expr) = stmt_value(stmt) else {
        return;
    };
    // The statement's own arms: their nested statements are looked into.
    let bodies: Vec<&Expr> = match expr {
        Expr::Match(m) => m.arms.iter().map(|arm| &*arm.body).collect(),
        Expr::If(_) => {
            let mut bodies = Vec::new();
            let mut current = expr;
            while let Expr::If(i) = current {
                for stmt in &i.then_branch.stmts {
                    inner_leaving_arms(stmt, depth, scope, out);
                }
                match &i.else_branch {
                    Some((_, other)) => current = other,
                    None => break,
                }
            }
            if !matches!(current, Expr::If(_)) {
                bodies.push(current);
            }
            bodies
        }
        // A loop's body (an argument-parsing `while i < args.len() { match .. }`): a `return`
        // in it leaves the function.
        Expr::While(w) => return looped_leaving_arms(&w.body, depth, scope, out),
        Expr::Loop(l) => return looped_leaving_arms(&l.body, depth, scope, out),
        Expr::ForLoop(f) => return looped_leaving_arms(&f.body, depth, scope, out),
        // A plain block (`{ let s = args[i].as_str(); if s == "convert" { return .. } }`).
        Expr::Block(b) => return looped_leaving_arms(&b.block, depth, scope, out),
        _ => return,
    };
    for body in bodies {
        if let Expr::Block(b) = body {
            for stmt in &b.block.stmts {
                inner_leaving_arms(stmt, depth, scope, out);
            }
        }
    }
}

/// [`nested_leaving_arms`] for a loop's body or a plain block: its statements' arms that leave
/// the function.
fn looped_leaving_arms(
    body: &syn::Block,
    depth: usize,
    scope: &Scope<'_>,
    out: &mut Vec<ByteSpan>,
) {
    for stmt in &body.stmts {
        inner_leaving_arms(stmt, depth, scope, out);
    }
}

/// [`nested_leaving_arms`] one level down: this statement's own arms count.
fn inner_leaving_arms(stmt: &Stmt, depth: usize, scope: &Scope<'_>, out: &mut Vec<ByteSpan>) {
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    let Some(expr) = stmt_value(stmt) else {
        return;
    };
    match expr {
        Expr::Match(m) => {
            out.extend(
                m.arms
                    .iter()
                    .filter(|arm| leaves_function(&arm.body))
                    .map(|arm| scope.span(&*arm.body)),
            );
        }
        Expr::If(_) => {
            // Each link's branch, and the final `else`, that leaves.
            let mut current = expr;
            while let Expr::If(i) = current {
                if leaves_function_block(&i.then_branch) {
                    out.push(block_span(&i.then_branch, scope));
                }
                match &i.else_branch {
                    Some((_, other)) => current = other,
                    None => break,
                }
            }
            if !matches!(current, Expr::If(_)) && leaves_function(current) {
                out.push(scope.span(current));
            }
        }
        _ => {}
    }
    nested_leaving_arms(stmt, depth, scope, out);
}

/// Whether an expression leaves the function: `return`, `exit(..)`, a diverging macro
/// (`bail!`), or a block, `match` or `if` whose every way does; not `break`/`continue`.
fn leaves_function(expr: &Expr) -> bool {
    ends(expr, false)
}

fn leaves_function_block(block: &syn::Block) -> bool {
    ends_block(block, false)
}

/// The predicate of a statement's `#[cfg(..)]`, as its tokens' text without spaces.
fn cfg_predicate(stmt: &Stmt) -> Option<String> {
    let attrs = match stmt {
        Stmt::Expr(Expr::Block(b), _) => &b.attrs,
        Stmt::Expr(Expr::If(i), _) => &i.attrs,
        Stmt::Expr(Expr::Call(c), _) => &c.attrs,
        Stmt::Expr(Expr::MethodCall(m), _) => &m.attrs,
        Stmt::Local(local) => &local.attrs,
        Stmt::Macro(mac) => &mac.attrs,
        _ => return None,
    };
    attrs_cfg_predicate(attrs)
}

/// The predicate of the first `#[cfg(..)]` among `attrs`, as its tokens' text without spaces.
fn attrs_cfg_predicate(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        if !attr.path().is_ident("cfg") {
            return None;
        }
        let list = attr.meta.require_list().ok()?;
        let text: String = list
            .tokens
            .to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        Some(text)
    })
}

/// An expression's tokens without white space: how two mentions of `cli.command` compare.
fn tokens_text(expr: &Expr) -> String {
    quote::ToTokens::to_token_stream(expr)
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// The `bool` fields a struct literal sets to literals (`SearchOptions { benchmark: false, ..
/// }`), through `&` and parentheses, or those of the struct literal a local is bound to.
fn struct_bool_fields(
    expr: &Expr,
    locals: Option<&HashMap<String, Vec<(String, bool)>>>,
) -> Option<Vec<(String, bool)>> {
    match expr {
        Expr::Reference(r) => struct_bool_fields(&r.expr, locals),
        Expr::Paren(p) => struct_bool_fields(&p.expr, locals),
        Expr::Struct(literal) => Some(
            literal
                .fields
                .iter()
                .filter_map(|field| match (&field.member, bool_literal(&field.expr)) {
                    (syn::Member::Named(name), Some(value)) => Some((name.to_string(), value)),
                    _ => None,
                })
                .collect(),
        ),
        Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            locals?.get(&name).cloned()
        }
        // `Options::new().with_json(true).with_strict(strict)`: the calls of a builder, each
        // named (see [`super::facts::SETTER`]); which field each sets is the method's to say,
        // wherever the crate defines it.
        Expr::MethodCall(call) => {
            let mut fields = match &*call.receiver {
                Expr::Call(base) if base.args.is_empty() && is_constructor(&base.func) => {
                    Vec::new()
                }
                receiver => struct_bool_fields(receiver, locals)?,
            };
            let name = call.method.to_string();
            match (call.args.len(), call.args.first().and_then(bool_literal)) {
                (1, Some(value)) => fields.push((format!("{}{name}", super::facts::SETTER), value)),
                _ => fields.push((format!("{}{name}", super::facts::OTHER_CALL), false)),
            }
            Some(fields)
        }
        _ => None,
    }
}

/// `Options::new`, `Options::default`, `Default::default`: a value built without arguments.
fn is_constructor(func: &Expr) -> bool {
    matches!(func, Expr::Path(p) if p.path.segments.len() >= 2
        && p.path.segments.last().is_some_and(|s| s.ident == "new" || s.ident == "default"))
}

/// `fn with_json(mut self, json: bool) -> Self { self.json = json; self }` (or `&mut self`,
/// or `Self { json, ..self }`): the field a builder's method sets from its one parameter.
fn setter_field(sig: &syn::Signature, block: &syn::Block) -> Option<String> {
    let mut inputs = sig.inputs.iter();
    let (Some(syn::FnArg::Receiver(_)), Some(syn::FnArg::Typed(param)), None) =
        (inputs.next(), inputs.next(), inputs.next())
    else {
        return None;
    };
    let syn::Pat::Ident(param) = &*param.pat else {
        return None;
    };
    let is_param = |e: &Expr| matches!(e, Expr::Path(p) if p.path.is_ident(&param.ident));
    let is_self = |e: &Expr| matches!(e, Expr::Path(p) if p.path.is_ident("self"));
    let named = |member: &syn::Member| match member {
        syn::Member::Named(name) => Some(name.to_string()),
        syn::Member::Unnamed(_) => None,
    };
    match block.stmts.as_slice() {
        // `self.json = json; self`, or `self.json = json;` alone (`&mut self`).
        [Stmt::Expr(Expr::Assign(assign), Some(_)), rest @ ..] if is_param(&assign.right) => {
            let returns_self = match rest {
                [] => true,
                [Stmt::Expr(tail, None)] => is_self(tail),
                _ => false,
            };
            match &*assign.left {
                Expr::Field(f) if returns_self && is_self(&f.base) => named(&f.member),
                _ => None,
            }
        }
        // `Self { json, ..self }`.
        [Stmt::Expr(Expr::Struct(literal), None)]
            if literal.rest.as_deref().is_some_and(is_self) =>
        {
            match literal.fields.iter().collect::<Vec<_>>().as_slice() {
                [field] if is_param(&field.expr) => named(&field.member),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether the current node is in the body of a function named `main`, outside closures and
/// `async` blocks (whose `return` leaves them, not `main`).
fn directly_in_main(scope: &Scope<'_>) -> bool {
    if scope.function().is_none_or(|f| f.name() != "main") {
        return false;
    }
    let mut n = 0;
    while let Some(node) = scope.ancestor(n) {
        match node {
            Node::Expr(Expr::Closure(_) | Expr::Async(_)) => return false,
            Node::Item(_) | Node::ImplItem(_) | Node::TraitItem(_) => return true,
            _ => n += 1,
        }
    }
    true
}

/// A scrutinee's tokens without white space, through references and parentheses: `match
/// &cli.command` and `match cli.command` test one value.
fn scrutinee_text(expr: &Expr) -> String {
    match expr {
        Expr::Reference(r) => scrutinee_text(&r.expr),
        Expr::Paren(p) => scrutinee_text(&p.expr),
        Expr::Group(g) => scrutinee_text(&g.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => scrutinee_text(&u.expr),
        // The same value seen through a view or with its default filled in:
        // `cli.command.as_ref().unwrap_or(&default)` is `cli.command` where another `match`
        // takes `cli.command.unwrap_or_else(default_command)`.
        Expr::MethodCall(call) if is_view_of_receiver(&call.method.to_string()) => {
            scrutinee_text(&call.receiver)
        }
        _ => tokens_text(expr),
    }
}

/// Methods whose value is their receiver's, seen through a reference or with a default for an
/// absent one (see [`scrutinee_text`]).
fn is_view_of_receiver(method: &str) -> bool {
    matches!(
        method,
        "as_ref"
            | "as_deref"
            | "as_mut"
            | "as_deref_mut"
            | "borrow"
            | "clone"
            | "to_owned"
            | "unwrap"
            | "expect"
            | "unwrap_or"
            | "unwrap_or_else"
            | "unwrap_or_default"
    )
}

/// `cli.mcp`, `!cli.mcp`, `(mcp)`, alone or as a conjunct of `&&`: the place tested (its tokens
/// without spaces), the value its branch runs for, and whether the test is the whole condition.
fn flag_test(cond: &Expr) -> Option<(String, bool, bool)> {
    match cond {
        Expr::Paren(p) => flag_test(&p.expr),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => flag_test(&b.left)
            .or_else(|| flag_test(&b.right))
            .map(|(place, value, _)| (place, value, false)),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            let mut inner = &*u.expr;
            while let Expr::Paren(p) = inner {
                inner = &p.expr;
            }
            match inner {
                Expr::Path(_) | Expr::Field(_) => {
                    flag_test(inner).map(|(place, value, alone)| (place, !value, alone))
                }
                _ => None,
            }
        }
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            Some((scrutinee_text(cond), true, true))
        }
        Expr::Field(field) if is_place(&field.base) => Some((scrutinee_text(cond), true, true)),
        _ => None,
    }
}

/// An argument that hands on a place (`cli.command`, `&args`, `cli.command.clone()`): its text
/// as a scrutinee's (see [`scrutinee_text`]).
fn place_text(arg: &Expr) -> Option<String> {
    let mut inner = arg;
    loop {
        inner = match inner {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::MethodCall(call) if is_view_of_receiver(&call.method.to_string()) => {
                &call.receiver
            }
            _ => break,
        };
    }
    is_place(inner).then(|| scrutinee_text(arg))
}

/// The names of a function's parameters by position (the receiver not counted; None for a
/// pattern that is not a plain name); None when no parameter has a plain name.
fn parameter_names(sig: &syn::Signature) -> Option<Vec<Option<String>>> {
    let names: Vec<Option<String>> = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Receiver(_) => None,
            syn::FnArg::Typed(typed) => Some(match &*typed.pat {
                syn::Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
                _ => None,
            }),
        })
        .collect();
    names.iter().any(Option::is_some).then_some(names)
}

/// A local or a field of one (`cli`, `self.args`, `cli.opts`).
fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Field(field) => is_place(&field.base),
        _ => false,
    }
}

/// An arm `Variant(inner) => match inner { .. }` (the `match` alone, or as its block's one
/// statement): the variant's name and the inner `match`.
fn nested_variant_match(arm: &syn::Arm) -> Option<(String, &syn::ExprMatch)> {
    if arm.guard.is_some() {
        return None;
    }
    let syn::Pat::TupleStruct(p) = &arm.pat else {
        return None;
    };
    let [syn::Pat::Ident(binding)] = p.elems.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    if binding.subpat.is_some() {
        return None;
    }
    let outer = p.path.segments.last()?.ident.to_string();
    let inner = match &*arm.body {
        Expr::Match(m) => m,
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [Stmt::Expr(Expr::Match(m), _)] => m,
            _ => return None,
        },
        _ => return None,
    };
    (binding.ident == scrutinee_text(&inner.expr)).then_some((outer, inner))
}

/// A pattern that admits any value: `_`, or a plain binding (`other`).
fn is_catch_all(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(p) => p.subpat.is_none(),
        _ => false,
    }
}

/// The enum variants a pattern admits (`Command::Index { .. } | Command::Reindex`), by their
/// last path segment; None for a catch-all, a binding or another shape. A variant inside a
/// variant is named by both (`Some(Command::Stdio { .. })`: `Some/Stdio`; see
/// [`super::facts::variant_covers`]). Constraints on fields are not read: `Command::Index {
/// force: true, .. }` is `Index`, so a negated test of it is taken to leave out every `Index`
/// (silence, where the tool cannot tell).
fn pattern_variants(pat: &syn::Pat) -> Option<Vec<String>> {
    let last = |path: &syn::Path| path.segments.last().map(|s| s.ident.to_string());
    match pat {
        syn::Pat::Struct(p) => last(&p.path).map(|name| vec![name]),
        syn::Pat::TupleStruct(p) => {
            let name = last(&p.path)?;
            let inner = match p.elems.iter().collect::<Vec<_>>().as_slice() {
                [inner] => pattern_variants(inner),
                _ => None,
            };
            Some(match inner {
                Some(inner) => inner.iter().map(|v| format!("{name}/{v}")).collect(),
                None => vec![name],
            })
        }
        syn::Pat::Path(p) if p.path.segments.len() > 1 => last(&p.path).map(|name| vec![name]),
        syn::Pat::Paren(p) => pattern_variants(&p.pat),
        syn::Pat::Or(or) => {
            let mut all = Vec::new();
            for case in &or.cases {
                all.extend(pattern_variants(case)?);
            }
            Some(all)
        }
        _ => None,
    }
}

/// `matches!(cli.command, Command::Index { .. })`, alone, negated or as a conjunct of `&&`: the
/// scrutinee, the variants, and whether the body runs for those variants (`true`) or for every
/// variant but those (`false`, a negated test).
fn variant_test(cond: &Expr) -> Option<(String, Vec<String>, bool)> {
    match cond {
        Expr::Paren(p) => variant_test(&p.expr),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            variant_test(&b.left).or_else(|| variant_test(&b.right))
        }
        // A negated test of one value (not of a conjunction, whose negation admits too much).
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            let mut inner = &*u.expr;
            while let Expr::Paren(p) = inner {
                inner = &p.expr;
            }
            match inner {
                Expr::Macro(_) => variant_test(inner)
                    .map(|(scrutinee, variants, admits)| (scrutinee, variants, !admits)),
                _ => None,
            }
        }
        Expr::Macro(m) if macro_name(&m.mac) == "matches" => {
            let (scrutinee, pat) = crate::analysis::syntax::matches_parts(&m.mac)?;
            Some((scrutinee_text(&scrutinee), pattern_variants(&pat)?, true))
        }
        _ => None,
    }
}

/// Whether a condition is one test of the sub-command and nothing more (`matches!(..)`,
/// `!matches!(..)`): its `else` runs exactly when the test fails (not so for a conjunction).
fn is_whole_variant_test(cond: &Expr) -> bool {
    match cond {
        Expr::Paren(p) => is_whole_variant_test(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => is_whole_variant_test(&u.expr),
        Expr::Macro(m) => macro_name(&m.mac) == "matches",
        _ => false,
    }
}

/// Whether a statement awaits the end of a served session: rmcp's `.waiting().await`.
fn waits_for_session_end(stmt: &Stmt) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_await(&mut self, expr: &'ast syn::ExprAwait) {
            if matches!(&*expr.base, Expr::MethodCall(call) if call.method == "waiting" && call.args.is_empty())
            {
                self.0 = true;
            }
            syn::visit::visit_expr_await(self, expr);
        }
        // A closure or an async block runs on its own schedule.
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_stmt(&mut finder, stmt);
    finder.0
}

/// A receiver that is stdin: `stdin()`, `io::stdin().lock()`.
fn reads_stdin(expr: &Expr) -> bool {
    match expr {
        Expr::MethodCall(call) if call.method == "lock" => reads_stdin(&call.receiver),
        other => is_stdin_call(other),
    }
}

/// A `let` that binds a stdio transport's constructor (`let transport = StdioTransport::new();`),
/// or hands a bound transport to a value bound to nothing used (`let _client =
/// Client::new(transport);`).
fn note_transport_local(function: &mut StdinReads, local: &syn::Local, scope: &Scope<'_>) {
    let Some(init) = &local.init else {
        return;
    };
    let name = match &local.pat {
        syn::Pat::Ident(p) => Some(p.ident.to_string()),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => Some(p.ident.to_string()),
            _ => None,
        },
        syn::Pat::Wild(_) => Some("_".to_string()),
        _ => None,
    };
    let Some(name) = name else {
        return;
    };
    if let Expr::Call(call) = &*init.expr {
        if let Expr::Path(p) = &*call.func {
            let segments = path_segments(&p.path);
            let constructor = segments.len() >= 2
                && matches!(
                    serving_path(&segments, call.args.is_empty()),
                    Some(Site::Transport)
                )
                && segments.iter().any(|s| s.contains("Stdio"));
            if constructor && !name.starts_with('_') {
                function.transports.push(BoundTransport {
                    name,
                    site: scope.span(call),
                    uses: 0,
                    unused: 0,
                    chosen: in_match_arm(scope),
                    client: false,
                });
                return;
            }
        }
    }
    if name.starts_with('_') {
        let args: Vec<&Expr> = match &*init.expr {
            Expr::Call(call) => call.args.iter().collect(),
            Expr::MethodCall(call) => call.args.iter().collect(),
            _ => Vec::new(),
        };
        for arg in args {
            if let Expr::Path(p) = arg {
                for transport in function.transports.iter_mut() {
                    if p.path.is_ident(transport.name.as_str()) {
                        transport.unused += 1;
                    }
                }
            }
        }
    }
}

/// A call that parses JSON from what the function reads (`serde_json::from_str(&line)`), or
/// serialises JSON on one line (`serde_json::to_string(..)`).
///
/// A parse in a closure or `async` block that the function makes once (not in a loop: a task it
/// spawns beside its own reading, `tokio::spawn(async move { while let Some(m) = ws.next().await
/// { from_str(&m) } })`) parses what that task reads: it counts only when the task reads stdin
/// too (see [`StdinReads::task_parses`]).
fn note_json_call(function: &mut StdinReads, call: &syn::ExprCall, task: Option<ByteSpan>) {
    let Expr::Path(p) = &*call.func else {
        return;
    };
    let segments = path_segments(&p.path);
    let last = segments.last().map(String::as_str).unwrap_or("");
    // `serde_json::from_str(..)`, `serde_json::Deserializer::from_reader(..)`; not a value's
    // constructor (`serde_json::Number::from_f64(..)`). A message is the whole input read; a
    // piece of a split line (`from_str(parts[2])`) is a command's argument, as a REPL reads it.
    let owner = segments.len().checked_sub(2).and_then(|i| segments.get(i));
    if segments.iter().any(|s| s == "serde_json")
        && last.starts_with("from_")
        && owner.is_some_and(|o| o == "serde_json" || o == "Deserializer")
        && !call.args.first().is_some_and(|a| {
            is_piece(a) || function.is_piece_local(a) || function.is_read_elsewhere(a)
        })
    {
        match task {
            Some(task) => function.task_parses.push(task),
            None => function.parses_json = true,
        }
    }
    if segments.iter().any(|s| s == "serde_json")
        && matches!(last, "to_string" | "to_vec" | "to_writer")
    {
        function.writes_json_lines = true;
    }
}

/// A piece of a value, by index (`parts[2]`, `&words[1..]`, `args[2..].join(" ")`): not a whole
/// message.
fn is_piece(expr: &Expr) -> bool {
    match expr {
        Expr::Index(_) => true,
        Expr::Reference(r) => is_piece(&r.expr),
        Expr::Paren(p) => is_piece(&p.expr),
        Expr::Group(g) => is_piece(&g.expr),
        Expr::MethodCall(call) => is_piece(&call.receiver),
        _ => false,
    }
}

/// `stdin()`, `stdout()`, `io::stdout()`, `tokio::io::stdin()`: the process's own stdio.
fn is_process_stdio_call(expr: &Expr) -> bool {
    is_call_of(expr, &["stdin", "stdout"])
}

/// A call with no arguments of a function by one of these names (`stdin()`, `io::stdout()`).
fn is_call_of(expr: &Expr, names: &[&str]) -> bool {
    matches!(expr, Expr::Call(call) if call.args.is_empty()
        && matches!(&*call.func, Expr::Path(p) if p.path.segments.last()
            .is_some_and(|s| names.iter().any(|name| s.ident == name))))
}

/// A call that launches a child process to talk to over its pipes: rmcp's
/// `TokioChildProcess::new(..)`, rust-mcp-sdk's `create_with_server_launch(..)`, a `Command`'s
/// `.stdin(Stdio::piped())`.
fn launches_child(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => matches!(&*call.func, Expr::Path(p) if {
            let segments = path_segments(&p.path);
            matches!(segments.as_slice(), [.., owner, last]
                if owner == "TokioChildProcess" && last == "new")
                || segments.last().is_some_and(|l| l == "create_with_server_launch")
        }),
        Expr::MethodCall(call) => {
            call.method == "stdin"
                && call.args.iter().any(|arg| {
                    matches!(arg, Expr::Call(c) if matches!(&*c.func, Expr::Path(p)
                        if p.path.segments.last().is_some_and(|s| s.ident == "piped")))
                })
        }
        _ => false,
    }
}

/// Whether an expression calls for the process's own stdio anywhere in it
/// (`BufReader::new(tokio::io::stdin())`).
fn mentions_process_stdio(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            if is_process_stdio_call(expr) {
                self.0 = true;
            } else {
                syn::visit::visit_expr(self, expr);
            }
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

/// A value built on the process's stdin and stdout together (`ByteTransport::new(stdin(),
/// stdout())`, `Transport::with_io(io::stdin(), io::stdout())`): a transport over the
/// process's own stdio, as the pair `(stdin(), stdout())` is. Only a constructor's: a call
/// that copies one into the other (`io::copy(&mut stdin(), &mut stdout())`) builds nothing.
fn builds_on_stdio_pair(call: &syn::ExprCall) -> bool {
    let Expr::Path(func) = &*call.func else {
        return false;
    };
    let constructor = func.path.segments.last().is_some_and(|s| {
        let name = s.ident.to_string();
        name == "new" || name.starts_with("with_") || name.starts_with("from_")
    });
    constructor && func.path.segments.len() > 1 && hands_on_stdio_pair(&call.args)
}

/// Whether arguments hand on the process's stdin and stdout together (`stdin(), stdout()`).
fn hands_on_stdio_pair(args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) -> bool {
    let arg = |names: &[&str]| {
        args.iter()
            .any(|a| is_call_of(crate::analysis::syntax::peel(a), names))
    };
    arg(&["stdin"]) && arg(&["stdout"])
}

/// A function of the crate, by its own path, run on the process's stdin and stdout together
/// (`serve_lines(stdin(), stdout())`, `Self::run(stdin(), stdout())`): not a function of
/// another crate (`io::copy(&mut stdin(), &mut stdout())` copies one into the other).
fn runs_on_stdio_pair(call: &syn::ExprCall) -> bool {
    matches!(&*call.func, Expr::Path(func) if own_path(func)) && hands_on_stdio_pair(&call.args)
}

/// A path to a function of the crate by its own name (`read_message`, `Self::run`,
/// `crate::io::serve`), not another crate's nor a type's constructor (`BufReader::new`).
fn own_path(p: &syn::ExprPath) -> bool {
    p.path.segments.len() == 1
        || p.path.segments.first().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "Self" | "self" | "super" | "crate"
            )
        })
}

/// `stdin()`, `io::stdin()`, `tokio::io::stdin()`.
fn is_stdin_call(expr: &Expr) -> bool {
    is_call_of(expr, &["stdin"])
}

fn block_span(block: &syn::Block, scope: &Scope<'_>) -> ByteSpan {
    let first = block.brace_token.span.open();
    let last = block.brace_token.span.close();
    scope.raw_span(first, last)
}

/// Whether a block ends by leaving: `return`, `continue`, `break`, `exit(..)`, or a macro that
/// does not come back (`bail!`, `panic!`, `unreachable!`).
fn diverges(block: &syn::Block) -> bool {
    ends_block(block, true)
}

fn diverges_expr(expr: &Expr) -> bool {
    ends(expr, true)
}

/// `self.reader`, `self.stdin.lock()`: a field of the receiver, under method calls.
fn self_field(expr: &Expr) -> bool {
    match expr {
        Expr::MethodCall(call) => self_field(&call.receiver),
        Expr::Field(field) => {
            matches!(&*field.base, Expr::Path(p) if p.path.is_ident("self"))
                || self_field(&field.base)
        }
        Expr::Paren(p) => self_field(&p.expr),
        Expr::Reference(r) => self_field(&r.expr),
        _ => false,
    }
}

/// Whether the node lies in a loop of its function (a closure or an item ends the search).
/// The closure or `async` block the current node lies in, when the function makes it once: no
/// loop of the function holds it (a task spawned per message lies in the reading loop).
fn once_task(scope: &Scope<'_>) -> Option<ByteSpan> {
    let mut task = None;
    for n in 0.. {
        match scope.ancestor(n) {
            Some(Node::Expr(expr @ (Expr::Closure(_) | Expr::Async(_)))) => {
                task = task.or(Some(scope.span(expr)));
            }
            Some(Node::Expr(Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_)))
                if task.is_some() =>
            {
                return None;
            }
            Some(Node::Item(_) | Node::ImplItem(_) | Node::TraitItem(_)) | None => return task,
            _ => {}
        }
    }
    task
}

fn in_loop(scope: &Scope<'_>) -> bool {
    for n in 0.. {
        match scope.ancestor(n) {
            Some(Node::Expr(Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_))) => return true,
            Some(Node::Item(_) | Node::ImplItem(_) | Node::TraitItem(_)) | None => return false,
            Some(Node::Expr(Expr::Closure(_))) => return false,
            _ => {}
        }
    }
    false
}

/// `let stdin = io::stdin();`, `let reader = BufReader::new(stdin);`: a local bound to stdin
/// or to a value made of a local that reads it.
fn note_stdin_local(function: &mut StdinReads, local: &syn::Local) {
    let Some(init) = &local.init else {
        return;
    };
    let ident = match &local.pat {
        syn::Pat::Ident(p) => &p.ident,
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => &p.ident,
            _ => return,
        },
        _ => return,
    };
    if function.value_reads_stdin(&init.expr) {
        function.readers.push(ident.to_string());
    }
    if is_piece(&init.expr) {
        function.pieces.push(ident.to_string());
    }
    if reads_elsewhere(&init.expr) && !function.value_reads_stdin(&init.expr) {
        function.read_elsewhere.push(ident.to_string());
    }
}

/// Whether an expression reads a file anywhere in it (`std::fs::read_to_string(&path)`,
/// `tokio::fs::read(p).await`, `File::open(p)`), or the body of a response it awaits
/// (`resp.text().await`, `resp.bytes().await`: batch 105's manta, a chat relay that posts each
/// stdin line to a daemon and parses the daemon's answer). JSON parsed from such a value is a
/// file's or a peer's, not a message read from stdin.
fn reads_elsewhere(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_await(&mut self, awaited: &'ast syn::ExprAwait) {
            if let Expr::MethodCall(call) = &*awaited.base {
                self.0 |= call.args.is_empty() && (call.method == "text" || call.method == "bytes");
            }
            syn::visit::visit_expr_await(self, awaited);
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*call.func {
                let segments = path_segments(&p.path);
                self.0 |= matches!(segments.as_slice(), [.., owner, last]
                    if (owner == "fs" && (last == "read_to_string" || last == "read"))
                        || (owner == "File" && last == "open"));
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

/// What a node tells of its function's reads of stdin and its stdio transports (see
/// [`StdinReads`]).
fn note_in_function(function: &mut StdinReads, node: Node<'_>, scope: &Scope<'_>) {
    match node {
        // `let reader = BufReader::new(io::stdin());`: the local reads stdin.
        Node::Local(local) => {
            note_stdin_local(function, local);
            note_transport_local(function, local, scope);
            if let syn::Pat::Ident(ident) = &local.pat {
                let name = ident.ident.to_string();
                match local
                    .init
                    .as_ref()
                    .and_then(|init| struct_bool_fields(&init.expr, None))
                {
                    Some(fields) => function.struct_locals.insert(name, fields),
                    None => function.struct_locals.remove(&name),
                };
            }
        }
        // Of stdin, or of a field of `self` (a reader the value was built with, which the
        // function cannot show).
        Node::Expr(Expr::MethodCall(call)) if call.method == "lines" => {
            function.lines |= self_field(&call.receiver) || function.mentions_stdin(&call.receiver)
        }
        // Stdin, or a local that reads it, used in a loop: read message after message.
        Node::Expr(expr @ Expr::Path(_)) if function.is_stdin_reader(expr) => {
            function.looped |= in_loop(scope)
        }
        Node::Expr(expr @ Expr::Call(_)) if is_stdin_call(expr) => {
            function.looped |= in_loop(scope)
        }
        Node::Expr(Expr::MethodCall(call))
            if (call.method == "read_to_string" || call.method == "read_to_end")
                && reads_stdin(&call.receiver) =>
        {
            function.whole = true
        }
        // `self.run(stdin(), stdout(), rx)`: a method run on the process's stdin and stdout
        // together, whatever it is called (the corpus's adguardhome-mcp-rs: a generic loop over
        // a reader and a writer).
        Node::Expr(Expr::MethodCall(call)) if hands_on_stdio_pair(&call.args) => {
            function.paired = true
        }
        Node::Expr(Expr::Call(call)) => {
            note_json_call(function, call, once_task(scope));
            function.paired |= builds_on_stdio_pair(call) || runs_on_stdio_pair(call);
            let reads = |a: &Expr| {
                let a = crate::analysis::syntax::peel(a);
                is_stdin_call(a) || function.is_stdin_reader(a)
            };
            // Read message after message: the call is made in a loop, of a function of the
            // crate by its own path (`read_message(&mut reader)`), not a wrapper's constructor
            // (`BufReader::new(stdin)`).
            if let (Expr::Path(p), true) = (&*call.func, call.args.iter().any(reads)) {
                if let (Some(last), true) = (p.path.segments.last(), own_path(p) && in_loop(scope))
                {
                    function.handed_to.push(last.ident.to_string());
                }
            }
        }
        Node::Expr(Expr::Tuple(tuple)) => {
            function.paired |= tuple.elems.iter().any(is_stdin_call);
        }
        Node::Expr(Expr::Path(path)) => {
            if let Some(ident) = path.path.get_ident() {
                let client = client_constructor(scope.parent());
                for transport in function.transports.iter_mut() {
                    if ident == transport.name.as_str() {
                        transport.uses += 1;
                        transport.client |= client;
                    }
                }
            }
        }
        _ => {}
    }
}

impl Hook for Serving {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if let Node::Item(item) = node {
            self.note_item(item);
        }
        self.note_threads(node, scope);
        self.note_cfg_function(node, scope);
        if !scope.in_function_body() {
            return;
        }
        if !scope.in_test() {
            super::must::regions(node, scope, &mut self.facts);
        }
        if is_function_body(node, scope.parent()) {
            self.enter_function(node, scope);
        }
        self.note_command_flags(node, scope);
        self.note_literal_args(node, scope);
        if let Some(function) = self.functions.last_mut() {
            note_in_function(function, node, scope);
        }
        self.note_process_calls(node, scope);
        self.note_stdin_field_read(node, scope);
        // `if let Some(code) = shell_mode() { exit(code) }`: a call whose `Some` ends the
        // process (test code serves nothing while the program runs).
        if let Node::Expr(expr @ (Expr::If(_) | Expr::Match(_))) = node {
            if let Some((name, call)) = super::exits::exit_on_some(expr, directly_in_main(scope))
                .filter(|_| !scope.in_test())
            {
                self.facts.exits_on_some.push((name, scope.span(call)));
            }
        }
        match node {
            // Test code serves nothing while the program runs.
            Node::Expr(Expr::Call(call)) if self.stdio && !scope.in_test() => {
                if let Expr::Path(p) = &*call.func {
                    let segments = path_segments(&p.path);
                    let site = serving_path(&segments, call.args.is_empty());
                    let span = scope.span(call);
                    // `StdioTransport::with_io(reader, write_half)`: the streams it is given,
                    // none the process's own stdio, may be a socket's.
                    if matches!(site, Some(Site::Transport))
                        && !call.args.is_empty()
                        && !call.args.iter().any(mentions_process_stdio)
                    {
                        if let [.., owner, constructor] = segments.as_slice() {
                            self.facts.given_io_sites.push((
                                span,
                                owner.clone(),
                                constructor.clone(),
                            ));
                        }
                    }
                    self.note_constructed(&site, &segments, span);
                    if segments
                        .last()
                        .is_some_and(|last| names_serving_stdio(last))
                        && !call.args.iter().any(mentions_process_stdio)
                    {
                        self.facts.named_sites.push(span);
                    }
                    if matches!(site, Some(Site::Transport))
                        && client_constructor(scope.parent())
                        && in_match_arm(scope)
                    {
                        self.facts.chosen_client_sites.push(span);
                    }
                    self.site(site, span, scope);
                }
            }
            // `.run_stdio()`, `.serve_stdio()`; not `Command::stdin(..)` configuring a child.
            Node::Expr(Expr::MethodCall(call))
                if self.stdio
                    && !scope.in_test()
                    && names_serving_stdio(&call.method.to_string()) =>
            {
                if !call.args.iter().any(mentions_process_stdio) {
                    self.facts.named_sites.push(scope.span(call));
                }
                self.site(Some(Site::Transport), scope.span(call), scope);
            }
            Node::Expr(Expr::Match(expr)) if expr.arms.len() > 1 => self.note_match(expr, scope),
            Node::Expr(whole @ Expr::If(expr)) => {
                self.note_leaving_test(expr, scope);
                self.note_if_node(whole, expr, scope)
            }
            Node::Block(block) => {
                self.note_early_exits(block, scope);
                self.note_session_end(block, scope);
                self.note_cfg_alternatives(block, scope);
            }
            _ => {}
        }
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if scope.in_function_body() && is_function_body(node, scope.parent()) {
            if let Some(flags) = self.flags.pop() {
                if let Node::Block(body) = node {
                    let body = block_span(body, scope);
                    for (local, scrutinee, variants) in flags.exact() {
                        (self.facts.exact_flags).push((body, local, scrutinee, variants));
                    }
                }
                for (block, scrutinee, variants, admits) in flags.resolve() {
                    let guard = (block, scrutinee, variants);
                    match admits {
                        true => self.facts.variant_guards.push(guard),
                        false => self.facts.except_guards.push(guard),
                    }
                }
            }
            if let Some(mut function) = self.functions.pop() {
                let tasks = std::mem::take(&mut function.task_parses);
                function.parses_json |= tasks.iter().any(|task| {
                    function
                        .sites
                        .iter()
                        .any(|site| task.start <= site.start && site.end <= task.end)
                });
                if function.parses_json {
                    self.json_parsers.insert(function.name.clone());
                }
                // Stdin handed to a transport with stdout serves, whatever else the file says;
                // stdin read as a stream serves in a file that reads JSON. A function that
                // launches a child to talk to reads stdin as that client.
                let client = function.launches && !function.paired;
                let serves = function.paired || (self.json && function.serve());
                let handed = function.looped && !function.whole && !function.handed_to.is_empty();
                if !client && serves {
                    self.facts
                        .stdin_sites
                        .extend(function.sites.iter().copied());
                    self.facts.serve_sites.extend(function.sites);
                } else if !client && handed {
                    self.handed_reads
                        .push((function.sites.clone(), function.handed_to.clone()));
                }
                for transport in function.transports.iter().filter(|t| t.chosen && t.client) {
                    self.facts.chosen_client_sites.push(transport.site);
                }
                // A transport handed only to values nothing uses never carries a message.
                for transport in &function.transports {
                    if transport.unused > 0 && transport.uses == transport.unused {
                        self.facts
                            .serve_sites
                            .retain(|site| *site != transport.site);
                    }
                }
            }
        }
    }

    fn finish(mut self: Box<Self>, facts: &mut FileFacts) {
        // Stdin read in a loop by a function of the file that parses JSON from it
        // (`while let Some(msg) = read_message(&mut reader).await? { .. }`, batch 92's
        // ast-mcp): message after message, as a loop that parses them itself.
        for (sites, handed_to) in std::mem::take(&mut self.handed_reads) {
            if handed_to
                .iter()
                .any(|name| self.json_parsers.contains(name))
            {
                self.facts.stdin_sites.extend(sites.iter().copied());
                self.facts.serve_sites.extend(sites);
            }
        }
        for (i, (name, predicate, span)) in self.cfg_functions.iter().enumerate() {
            for (other_name, other, other_span) in self.cfg_functions.iter().skip(i + 1) {
                let negated =
                    *other == format!("not({predicate})") || *predicate == format!("not({other})");
                if name == other_name && negated {
                    self.facts.cfg_twins.push((*span, *other_span));
                }
            }
        }
        if self.facts != ServingFacts::default() {
            facts.rules.put(&SERVING, &self.facts);
        }
    }
}
