//! Writes to stdout, a hook on the shared walk: per function, what reaches stdout (`println!`,
//! writes into a `stdout()` handle, loggers that log to stdout), what it writes, whether it lies
//! on the path that serves, and pretty-printed JSON written as a message. MCP002 and MCP007 read
//! these facts.

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Expr, Macro, Pat, Stmt};

use super::facts::{StdioFunction, StdoutKind, StdoutWrite, WriteContent, WRITES};
use crate::analysis::facts::FileFacts;
use crate::analysis::spans::{byte_span, start_of};
use crate::analysis::syntax::{
    format_captures, macro_name, parse_macro_body, path_segments, str_literal, MacroBody,
};
use crate::analysis::vocabulary as vocab;
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::{is_function_body, macro_key, Collects, Hook, Node, ParsedBody, Scope};
use crate::source::ByteSpan;

/// Collects the writes to stdout, for the rules that read them (MCP002, MCP007): each names
/// this collector, so it runs once when either is enabled and not at all when neither is.
pub static COLLECTOR: StdioCollector = StdioCollector;

pub struct StdioCollector;

/// Words without which a file writes nothing to stdout and serialises no JSON: `println!`,
/// `stdout()`, `serde_json::..`, a `tracing_subscriber` fmt subscriber, a `log4rs` console.
/// `Command`: a child process started with the server's stdout.
const WORDS: &[&str] = &[
    "print",
    "stdout",
    "serde_json",
    "fmt",
    "ConsoleAppender",
    "Command",
];

impl Collects for StdioCollector {
    fn key(&self) -> &'static str {
        WRITES.name()
    }

    fn hook<'a>(&self, text: &'a str, _: usize, _: &'a Vocabulary) -> Option<Box<dyn Hook + 'a>> {
        let any = WORDS.iter().any(|w| text.contains(w));
        any.then(|| -> Box<dyn Hook + 'a> { Box::new(Stdio::default()) })
    }
}

/// The hook that collects a file's writes to stdout.
#[derive(Default)]
pub struct Stdio {
    out: Vec<StdioFunction>,
    functions: Vec<Function>,
    /// The methods applied to the current receiver chain (for `.with_writer(..)`).
    chain_methods: Vec<String>,
    /// Per method call whose arguments are being visited: the chain it set aside, and whether
    /// its arguments are a message written to stdout.
    calls: Vec<(Vec<String>, bool)>,
    /// Per writing macro (`println!`, `writeln!`) being visited.
    macros: Vec<WriteMacro>,
    /// Whether each `if` (by where its `if` keyword starts) reaches code that serves stdio in
    /// any branch, remembered so that an `else if` chain is looked through once, not once per
    /// link.
    if_serves: HashMap<usize, bool>,
    /// Branches outside the path that serves (see [`StdoutWrite::off_path`]).
    off_path: Vec<ByteSpan>,
    /// How many stdout writes of a possible message enclose the current code.
    payload_depth: usize,
    /// The `let` initialisers being visited, innermost last.
    let_captures: Vec<LetCapture>,
    /// Branches taken by a `bool` parameter's value: the branch, the parameter's position, and
    /// the value that takes it (see [`StdoutWrite::runs_if`]).
    param_branches: Vec<(ByteSpan, usize, bool)>,
    /// Branches taken by a `bool` field of a parameter: the branch, the parameter's position,
    /// the field, and the value that takes it (see [`StdoutWrite::runs_if_fields`]).
    field_param_branches: Vec<(ByteSpan, usize, String, bool)>,
    /// Of those, the `then` blocks of an `if` with no `else` (see [`StdoutWrite::lone_params`]).
    lone_param_branches: Vec<(ByteSpan, usize)>,
    /// The `then` blocks of an `if` with no `else` on a `bool` field (`if !self.quiet { .. }`):
    /// whether they run is a flag's (see [`is_field_flag`]).
    field_branches: Vec<ByteSpan>,
    /// Calls that hand a `bool` parameter on (see [`super::facts::FORWARDED_PARAMS`]).
    forwarded: Vec<(ByteSpan, Vec<Option<usize>>)>,
    /// The code an `if`'s condition decides, with the functions the condition calls (see
    /// [`StdoutWrite::guard_calls`]).
    guard_branches: Vec<(ByteSpan, Vec<String>)>,
    /// Global-flag readers and call arguments (see [`super::facts::FLAG_READS`]).
    flag_reads: super::facts::FlagReads,
    /// Arms whose value is `true`, of the `match` that is the value of a function returning
    /// `bool` (see [`StdoutWrite::then_returns_true`]).
    true_arms: Vec<ByteSpan>,
    /// Branches of `if`s whose condition tests whether stdout is a terminal (see
    /// [`StdoutWrite::tty_guarded`]).
    tty_branches: Vec<ByteSpan>,
    /// Branches of `if`s whose condition reads a global flag (see
    /// [`StdoutWrite::flag_guarded`]).
    flag_branches: Vec<ByteSpan>,
    /// The file's `use .. as ..` renames (`use tracing_subscriber::fmt as trace_fmt;`): the
    /// alias, and the path it names.
    renames: HashMap<String, Vec<String>>,
    /// The names the file's `use`s bring in by their own name, and the paths they name.
    imports: HashMap<String, Vec<String>>,
    /// The file's functions by name, with the path of the type they declare they return
    /// (`fn jsonrpc_error(..) -> Value`).
    returns: HashMap<String, Vec<String>>,
    /// Writes without text of their own of a local whose every value is a `json!` or a call of a
    /// function of the file (see [`call_valued`]): the write (its function in `out`, and its
    /// place among that function's writes) and the functions called. Told apart when the file
    /// is done: a message when every one of them returns a JSON value.
    valued_writes: Vec<(usize, usize, Vec<String>)>,
}

struct Function {
    facts: StdioFunction,
    /// Locals holding serialised JSON (`let line = serde_json::to_string(..)?`), with the
    /// pretty-printing calls their value came from.
    serialized_locals: HashMap<String, Vec<ByteSpan>>,
    /// Locals holding a stdout handle (`let mut out = io::stdout().lock()`).
    stdout_locals: Vec<String>,
    /// Locals holding a logger builder that logs to stdout unless a writer is set on it later
    /// (`let fmt = fmt().with_env_filter(..); fmt.with_writer(file).init()`), with the spans
    /// of the writes recorded for it.
    logger_locals: HashMap<String, Vec<ByteSpan>>,
    /// Locals bound to a writer chosen by a `match` or an `if`, one of whose branches is stdout
    /// (`let w = match path { None => BoxMakeWriter::new(std::io::stdout), Some(p) => .. }`).
    stdout_writer_locals: Vec<String>,
    /// The function's `bool` parameters: name, and position among the typed parameters.
    bool_params: Vec<(String, usize)>,
    /// All its typed parameters bound to a name: name, and position.
    named_params: Vec<(String, usize)>,
    /// Locals bound from a test of whether stdout is a terminal (`let interactive =
    /// io::stdout().is_terminal();`).
    tty_locals: Vec<String>,
    /// Locals true only when stdout is a terminal, and those false only then (see
    /// [`super::terminal::TerminalLocals`]).
    terminal_when_true: Vec<String>,
    terminal_when_false: Vec<String>,
    /// Locals bound to a process command (see [`super::children`]): what its child's stdout is
    /// (`Own` too once the local is handed to code that may give it one), and the spans of the
    /// writes recorded for starting it with the parent's.
    command_locals: HashMap<String, (super::children::ChildStdout, Vec<ByteSpan>)>,
    /// `spawn()`s of children with the parent's stdout by default, not yet reported: each with
    /// the command local it started, if any; and the locals bound to such a child.
    unset_spawns: Vec<(ByteSpan, Option<String>)>,
    spawned_children: HashMap<String, usize>,
    /// Locals whose every value is a `json!` or a call of a function by its bare name (`let
    /// response = match parsed { Ok(r) => handle(r), Err(e) => jsonrpc_error(..) };`), with the
    /// functions called.
    call_valued_locals: HashMap<String, Vec<String>>,
    /// Writes of such locals: their place among the function's writes, and the functions.
    valued_writes: Vec<(usize, Vec<String>)>,
}

/// A writing macro being visited.
struct WriteMacro {
    /// The macro, by address (to tell its body from others').
    mac: usize,
    name: String,
    /// The macro statement or expression.
    span: ByteSpan,
    /// Its arguments were read (the walk parsed its body as expressions).
    read: bool,
    /// Its arguments are a message written to stdout.
    message: bool,
}

/// What the initialiser of the `let` being visited serialises.
#[derive(Default)]
struct LetCapture {
    serialized: bool,
    pretty: Vec<ByteSpan>,
    /// Loggers to stdout built in the initialiser (a fmt subscriber, a console appender): the
    /// spans of their writes, which a writer set later on the local takes back.
    loggers: Vec<ByteSpan>,
}

/// The `bool` parameters of the function whose item is `parent`: name, and position among its
/// typed parameters (a method's receiver is not one).
fn bool_params(parent: Option<Node<'_>>) -> Vec<(String, usize)> {
    typed_params(
        parent,
        |ty| matches!(ty, syn::Type::Path(ty) if ty.path.is_ident("bool")),
    )
}

/// The typed parameters bound to a name of the function whose item is `parent`: name, and
/// position among its typed parameters.
fn named_params(parent: Option<Node<'_>>) -> Vec<(String, usize)> {
    typed_params(parent, |_| true)
}

/// The typed parameters bound to a name whose type `keep` accepts, of the function whose item is
/// `parent`: name, and position among its typed parameters.
fn typed_params(parent: Option<Node<'_>>, keep: fn(&syn::Type) -> bool) -> Vec<(String, usize)> {
    let sig = match parent {
        Some(Node::Item(syn::Item::Fn(f))) => &f.sig,
        Some(Node::ImplItem(syn::ImplItem::Fn(f))) => &f.sig,
        Some(Node::TraitItem(syn::TraitItem::Fn(f))) => &f.sig,
        _ => return Vec::new(),
    };
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(arg) => Some(arg),
            syn::FnArg::Receiver(_) => None,
        })
        .enumerate()
        .filter_map(|(position, arg)| match &*arg.pat {
            Pat::Ident(ident) if keep(&arg.ty) => Some((ident.ident.to_string(), position)),
            _ => None,
        })
        .collect()
}

/// A condition that is a named field of a parameter (`options.benchmark`) or its negation: the
/// parameter's position, the field, and the value that makes it hold.
fn field_param_test(cond: &Expr, params: &[(String, usize)]) -> Option<(usize, String, bool)> {
    match cond {
        Expr::Paren(p) => field_param_test(&p.expr, params),
        Expr::Group(g) => field_param_test(&g.expr, params),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            field_param_test(&u.expr, params).map(|(param, field, value)| (param, field, !value))
        }
        Expr::Field(field) => {
            let syn::Member::Named(name) = &field.member else {
                return None;
            };
            let Expr::Path(base) = &*field.base else {
                return None;
            };
            let ident = base.path.get_ident()?;
            params
                .iter()
                .find(|(param, _)| ident == param.as_str())
                .map(|&(_, position)| (position, name.to_string(), true))
        }
        _ => None,
    }
}

/// [`param_tests`] for `bool` fields of parameters ([`field_param_test`]).
fn field_param_tests(
    cond: &Expr,
    params: &[(String, usize)],
    or: bool,
) -> Vec<(usize, String, bool)> {
    chain_tests(cond, or, &|leaf| field_param_test(leaf, params))
}

/// A condition that is a `bool` parameter (`to_stderr`) or its negation (`!to_stderr`): the
/// parameter's position, and the value that makes it hold.
fn param_test(cond: &Expr, params: &[(String, usize)]) -> Option<(usize, bool)> {
    match cond {
        Expr::Paren(p) => param_test(&p.expr, params),
        Expr::Group(g) => param_test(&g.expr, params),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            param_test(&u.expr, params).map(|(param, value)| (param, !value))
        }
        Expr::Path(p) => {
            let ident = p.path.get_ident()?;
            params
                .iter()
                .find(|(name, _)| ident == name.as_str())
                .map(|&(_, position)| (position, true))
        }
        _ => None,
    }
}

/// The tests of `bool` parameters that must all hold for a condition to hold: the condition
/// itself, or the parameter tests among the operands of an `&&` chain (`force && !quiet`). With
/// `or`, those among the operands of an `||` chain, each of which makes it hold (what must all
/// fail for the `else` branch).
fn param_tests(cond: &Expr, params: &[(String, usize)], or: bool) -> Vec<(usize, bool)> {
    chain_tests(cond, or, &|leaf| param_test(leaf, params))
}

/// What `test` finds in a condition that must hold for it to hold: the condition itself, or the
/// operands of an `&&` chain (with `or`, of an `||` chain: each makes it hold).
fn chain_tests<T>(cond: &Expr, or: bool, test: &dyn Fn(&Expr) -> Option<T>) -> Vec<T> {
    match cond {
        Expr::Paren(p) => chain_tests(&p.expr, or, test),
        Expr::Binary(b)
            if (!or && matches!(b.op, syn::BinOp::And(_)))
                || (or && matches!(b.op, syn::BinOp::Or(_))) =>
        {
            let mut tests = chain_tests(&b.left, or, test);
            tests.extend(chain_tests(&b.right, or, test));
            tests
        }
        other => test(other).into_iter().collect(),
    }
}

/// The function whose body `node` is, with its span.
fn body_of_function(node: Node<'_>, scope: &Scope<'_>) -> Option<ByteSpan> {
    is_function_body(node, scope.parent())
        .then(|| scope.function().map(|f| f.span))
        .flatten()
}

impl Stdio {
    /// In a function returning `bool` whose body's value is a `match`, the arms whose value is
    /// the literal `true`.
    fn note_true_arms(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let Some(function) = scope.function() else {
            return;
        };
        let returns_bool = matches!(&function.sig.output,
            syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::Path(p) if p.path.is_ident("bool")));
        let Node::Block(block) = node else {
            return;
        };
        let (true, Some(syn::Stmt::Expr(Expr::Match(m), None))) =
            (returns_bool, block.stmts.last())
        else {
            return;
        };
        for arm in &m.arms {
            if is_true(crate::analysis::syntax::tail_value(&arm.body)) {
                self.true_arms.push(scope.span(&*arm.body));
            }
        }
    }
}

fn is_true(expr: &Expr) -> bool {
    matches!(expr, Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) if b.value)
}

impl Hook for Stdio {
    fn reads_macro_body(&self, name: &str) -> bool {
        vocab::WRITE_MACROS.contains(&name)
    }

    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if let Node::Item(syn::Item::Use(item)) = node {
            crate::analysis::syntax::use_renames(&item.tree, &mut Vec::new(), &mut self.renames);
            crate::analysis::syntax::use_imports(&item.tree, &mut Vec::new(), &mut self.imports);
        }
        if let Node::Item(syn::Item::Fn(item)) = node {
            if let syn::ReturnType::Type(_, ty) = &item.sig.output {
                if let syn::Type::Path(path) = &**ty {
                    self.returns
                        .insert(item.sig.ident.to_string(), path_segments(&path.path));
                }
            }
        }
        if !scope.in_function_body() {
            return;
        }
        if let Some(span) = body_of_function(node, scope) {
            self.functions.push(Function {
                facts: StdioFunction {
                    item_span: span,
                    ..StdioFunction::default()
                },
                serialized_locals: HashMap::new(),
                stdout_locals: Vec::new(),
                stdout_writer_locals: Vec::new(),
                logger_locals: HashMap::new(),
                bool_params: bool_params(scope.parent()),
                named_params: named_params(scope.parent()),
                tty_locals: Vec::new(),
                terminal_when_true: Vec::new(),
                terminal_when_false: Vec::new(),
                command_locals: HashMap::new(),
                unset_spawns: Vec::new(),
                spawned_children: HashMap::new(),
                call_valued_locals: HashMap::new(),
                valued_writes: Vec::new(),
            });
            self.note_true_arms(node, scope);
        }
        self.note_forwarded_params(node, scope);
        self.note_flag_reads(node, scope);
        match node {
            Node::Expr(Expr::If(expr)) => self.note_off_path_if(expr, scope),
            Node::Expr(Expr::Match(expr)) => self.note_off_path_match(expr, scope),
            Node::Expr(Expr::MethodCall(call)) => {
                self.note_child(call, scope);
                self.enter_method_call(call, scope)
            }
            Node::Expr(Expr::Call(call)) => {
                self.hand_commands_on(&call.args);
                self.check_stdout_call(call, scope)
            }
            Node::Local(local) if local.init.is_some() => {
                self.note_tty_local(local);
                self.let_captures.push(LetCapture::default())
            }
            Node::Macro(mac) => self.enter_macro(mac, scope),
            Node::Body(ParsedBody::Exprs(args)) => self.enter_macro_args(args, scope),
            _ => {}
        }
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if !scope.in_function_body() {
            return;
        }
        match node {
            Node::Expr(expr) => {
                if let Expr::MethodCall(_) = expr {
                    if let Some((chain, message)) = self.calls.pop() {
                        self.payload_depth -= usize::from(message);
                        self.chain_methods = chain;
                    }
                }
                self.leave_child(expr, scope);
            }
            Node::Body(ParsedBody::Exprs(args)) => self.leave_macro_args(args, scope),
            Node::Macro(mac) => self.leave_macro(mac, scope),
            _ => {}
        }
        if body_of_function(node, scope).is_some() {
            if let Some(function) = self.functions.pop() {
                let facts = function.facts;
                let any = !facts.writes.is_empty()
                    || facts.serializes_json
                    || facts.touches_stdout
                    || !facts.pretty_json.is_empty();
                if any {
                    let at = self.out.len();
                    self.valued_writes.extend(
                        function
                            .valued_writes
                            .into_iter()
                            .map(|(write, names)| (at, write, names)),
                    );
                    self.out.push(facts);
                }
            }
        }
    }

    fn finish(self: Box<Self>, facts: &mut FileFacts) {
        let mut this = *self;
        this.label_valued_writes();
        this.put(facts);
    }
}

impl Stdio {
    /// The writes of locals whose values are calls of the file's functions (see
    /// [`Stdio::valued_writes`]) write a protocol message when every function called returns a
    /// JSON value (`-> Value`, `serde_json::Value`, by the file's imports or renames), which
    /// prints as one line of JSON.
    fn label_valued_writes(&mut self) {
        for (function, write, names) in std::mem::take(&mut self.valued_writes) {
            let json = !names.is_empty()
                && names.iter().all(|name| {
                    self.returns
                        .get(name)
                        .is_some_and(|path| self.is_json_value_type(path))
                });
            let Some(write) = self
                .out
                .get_mut(function)
                .and_then(|f| f.writes.get_mut(write))
            else {
                continue;
            };
            if json && write.content == WriteContent::Unlabelled {
                write.content = WriteContent::Message;
            }
            write.valued_text = !json && !names.is_empty();
        }
    }

    /// `serde_json::Value`, or `Value` (or an alias) that the file imports from `serde_json`.
    fn is_json_value_type(&self, path: &[String]) -> bool {
        let full = match path {
            [one] => self
                .imports
                .get(one)
                .or_else(|| self.renames.get(one))
                .cloned()
                .unwrap_or_default(),
            _ => path.to_vec(),
        };
        matches!(full.as_slice(), [first, .., last] if first == "serde_json" && last == "Value")
    }

    fn put(self, facts: &mut FileFacts) {
        if !self.out.is_empty() {
            facts.rules.put(&WRITES, &self.out);
        }
        if !self.flag_reads.readers.is_empty() || !self.flag_reads.call_args.is_empty() {
            facts.rules.put(&super::facts::FLAG_READS, &self.flag_reads);
        }
        if !self.forwarded.is_empty() {
            facts
                .rules
                .put(&super::facts::FORWARDED_PARAMS, &self.forwarded);
        }
        if !self.param_branches.is_empty() {
            facts
                .rules
                .put(&super::facts::PARAM_BRANCHES, &self.param_branches);
        }
        if !self.field_param_branches.is_empty() {
            facts.rules.put(
                &super::facts::FIELD_PARAM_BRANCHES,
                &self.field_param_branches,
            );
        }
    }
}

impl Stdio {
    /// An expression is left: a method call's receiver (its arguments come next), or a `let`'s
    /// initialiser (the names it binds come next).
    fn leave_child(&mut self, expr: &Expr, scope: &Scope<'_>) {
        match scope.parent() {
            Some(Node::Expr(Expr::MethodCall(call))) if std::ptr::eq(&*call.receiver, expr) => {
                self.chain_methods.pop();
                let chain = std::mem::take(&mut self.chain_methods);
                if let Some(frame) = self.calls.last_mut() {
                    frame.0 = chain;
                    self.payload_depth += usize::from(frame.1);
                }
            }
            Some(Node::Local(local))
                if local
                    .init
                    .as_ref()
                    .is_some_and(|i| std::ptr::eq(&*i.expr, expr)) =>
            {
                self.bind_local(local, expr, scope);
            }
            _ => {}
        }
    }

    /// A child process started with the server's stdout where the code shows that it prints
    /// (see [`super::children`]): given the parent's stdout explicitly, or spawned with it by
    /// default and then waited for with `wait_with_output()`. A stdout set later on the command
    /// local, or its handing to other code, takes the write back. A stdout set on a command
    /// local, and a command local handed on as an argument, are noted.
    fn note_child(&mut self, call: &syn::ExprMethodCall, scope: &Scope<'_>) {
        use super::children::{started, stdout_set, ChildStdout};
        self.hand_commands_on(&call.args);
        let span = scope.span(call);
        if let Some(start) = started(call, &self.imports) {
            match self.child_stdout(&start) {
                Some(ChildStdout::Inherit) => self.record_child(span, start.local, scope),
                Some(ChildStdout::Unset) if start.spawn => {
                    if let Some(function) = self.current() {
                        function.unset_spawns.push((span, start.local));
                    }
                }
                _ => {}
            }
        }
        if call.method == "wait_with_output" && call.args.is_empty() {
            self.note_waited_child(&call.receiver, scope);
        }
        if let Some(set) = stdout_set(call) {
            if let Some(name) = crate::analysis::syntax::root_local(&call.receiver) {
                match set {
                    ChildStdout::Own => self.give_command_stdout(&name),
                    _ => {
                        if let Some((stdout, _)) =
                            self.current().and_then(|f| f.command_locals.get_mut(&name))
                        {
                            *stdout = set;
                        }
                    }
                }
            }
        }
    }

    /// The stdout of the child a `spawn()` or `status()` starts: the chain's, or else the
    /// command local's. `None` for a local that holds no command (a thread's `spawn()`).
    fn child_stdout(
        &self,
        start: &super::children::Started,
    ) -> Option<super::children::ChildStdout> {
        use super::children::ChildStdout;
        let local_stdout = start.local.as_ref().and_then(|name| {
            self.functions
                .last()
                .and_then(|f| f.command_locals.get(name))
                .map(|(stdout, _)| *stdout)
        });
        match (start.local.is_some(), start.stdout, local_stdout) {
            (true, _, None) => None,
            (_, ChildStdout::Unset, Some(local)) => Some(local),
            (_, chain, _) => Some(chain),
        }
    }

    /// `child.wait_with_output()` (or `cmd.spawn()?.wait_with_output()`) of a child spawned
    /// with the parent's stdout: the code waits for what the child prints, which goes to the
    /// server's stdout (only a piped stdout is captured). Reported at the `spawn()`.
    fn note_waited_child(&mut self, receiver: &Expr, scope: &Scope<'_>) {
        let Some(function) = self.functions.last() else {
            return;
        };
        // Chained, the `spawn()` is read here: the walk reaches it after this call.
        if let Some(spawn) = super::children::spawned_by(receiver) {
            let Some(start) = super::children::started(spawn, &self.imports) else {
                return;
            };
            if self.child_stdout(&start) == Some(super::children::ChildStdout::Unset) {
                self.record_child(scope.span(spawn), start.local, scope);
            }
            return;
        }
        let index =
            local_ident(receiver).and_then(|name| function.spawned_children.get(&name).copied());
        let Some((span, local)) = index.and_then(|i| function.unset_spawns.get(i).cloned()) else {
            return;
        };
        let still_unset = local.as_ref().is_none_or(|name| {
            function
                .command_locals
                .get(name)
                .is_some_and(|(stdout, _)| *stdout != super::children::ChildStdout::Own)
        });
        if still_unset {
            self.record_child(span, local, scope);
        }
    }

    /// A child process started with the server's stdout, recorded at `span`; the write is
    /// remembered with the command local it started, if any (see [`Stdio::give_command_stdout`]).
    fn record_child(&mut self, span: ByteSpan, local: Option<String>, scope: &Scope<'_>) {
        if self
            .functions
            .last()
            .is_some_and(|f| f.facts.writes.iter().any(|w| w.span == span))
        {
            return;
        }
        self.record_stdout(
            StdoutKind::ChildInherits,
            span,
            span,
            WriteContent::Text,
            scope,
        );
        if let Some((_, spans)) =
            local.and_then(|name| self.current()?.command_locals.get_mut(&name))
        {
            spans.push(span);
        }
    }

    /// Command locals handed to other code as arguments: that code may give them a stdout.
    fn hand_commands_on(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        for arg in args {
            if let Some(name) = crate::analysis::syntax::root_local(arg) {
                self.give_command_stdout(&name);
            }
        }
    }

    /// A command local gets a stdout of its own (or may): the writes recorded for starting it
    /// are taken back.
    fn give_command_stdout(&mut self, name: &str) {
        let Some(function) = self.current() else {
            return;
        };
        let Some((stdout, spans)) = function.command_locals.get_mut(name) else {
            return;
        };
        *stdout = super::children::ChildStdout::Own;
        let spans = std::mem::take(spans);
        function.facts.writes.retain(|w| !spans.contains(&w.span));
    }

    fn current(&mut self) -> Option<&mut Function> {
        self.functions.last_mut()
    }

    fn record_stdout(
        &mut self,
        kind: StdoutKind,
        span: ByteSpan,
        fix_span: ByteSpan,
        content: WriteContent,
        scope: &Scope<'_>,
    ) {
        let off_path = self
            .off_path
            .iter()
            .any(|b| b.start <= span.start && span.end <= b.end);
        let runs_if = self
            .param_branches
            .iter()
            .filter(|(b, _, _)| b.start <= span.start && span.end <= b.end)
            .map(|&(_, param, value)| (param, value))
            .collect();
        let runs_if_fields = self
            .field_param_branches
            .iter()
            .filter(|(b, ..)| b.start <= span.start && span.end <= b.end)
            .map(|(_, param, field, value)| (*param, field.clone(), *value))
            .collect();
        let then_returns_true = self
            .true_arms
            .iter()
            .any(|b| b.start <= span.start && span.end <= b.end);
        let tty_guarded = self
            .tty_branches
            .iter()
            .any(|b| b.start <= span.start && span.end <= b.end);
        let flag_guarded = self
            .flag_branches
            .iter()
            .chain(&self.field_branches)
            .any(|b| b.start <= span.start && span.end <= b.end);
        let lone_params = self
            .lone_param_branches
            .iter()
            .filter(|(b, _)| b.start <= span.start && span.end <= b.end)
            .map(|&(_, param)| param)
            .collect();
        let guard_calls = self
            .guard_branches
            .iter()
            .filter(|(b, _)| b.start <= span.start && span.end <= b.end)
            .flat_map(|(_, names)| names.iter().cloned())
            .collect();
        if let Some(function) = self.current() {
            function.facts.writes.push(StdoutWrite {
                kind,
                span,
                fix_span,
                in_test: scope.in_test(),
                off_path,
                content,
                runs_if,
                lone_params,
                runs_if_fields,
                then_returns_true,
                tty_guarded,
                valued_text: false,
                flag_guarded,
                guard_calls,
                features: scope.required_features(),
            });
        }
    }

    /// A `println!` or `print!` (the fix edits the macro's name).
    fn record_print(&mut self, mac: &Macro, span: ByteSpan, content: WriteContent, scope: &Scope) {
        if let Some(last) = mac.path.segments.last() {
            let fix_span = scope.span(&last.ident);
            let kind = if last.ident == "println" {
                StdoutKind::Println
            } else if last.ident == "indicatif_println" {
                StdoutKind::IndicatifPrintln
            } else {
                StdoutKind::Print
            };
            self.record_stdout(kind, span, fix_span, content, scope);
        }
    }

    /// Pretty-printing calls whose output reached stdout as a message (outside test code).
    fn record_pretty(&mut self, spans: impl IntoIterator<Item = ByteSpan>, scope: &Scope<'_>) {
        if scope.in_test() {
            return;
        }
        if let Some(function) = self.current() {
            for span in spans {
                if !function.facts.pretty_json.contains(&span) {
                    function.facts.pretty_json.push(span);
                }
            }
        }
    }

    /// The pretty-printing calls behind the serialised-JSON locals an expression writes
    /// (`line`, `&line`, `line.as_bytes()`, a captured `{line}`).
    fn pretty_behind(&self, expr: &Expr) -> Vec<ByteSpan> {
        let Some(function) = self.functions.last() else {
            return Vec::new();
        };
        match local_ident(expr) {
            Some(name) => function
                .serialized_locals
                .get(&name)
                .cloned()
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    fn is_serialized_local(&self, name: &str) -> bool {
        self.functions
            .last()
            .is_some_and(|f| f.serialized_locals.contains_key(name))
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
            _ => local_ident(core).is_some_and(|name| self.is_serialized_local(&name)),
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
        // A header block, then the serialised message (`"Content-Length: {}\r\n\r\n{}"`): the
        // transport's framed write of that message.
        let framed = text.ends_with("\r\n\r\n{}") || text.ends_with("\n\n{}");
        if framed && args.last().is_some_and(|a| self.is_serialized(a)) {
            return WriteContent::Message;
        }
        if !format_text(&text).trim().is_empty() {
            return WriteContent::Text;
        }
        let serialized = args.iter().any(|a| self.is_serialized(a))
            || format_captures(&text)
                .iter()
                .any(|name| self.is_serialized_local(name));
        if serialized {
            WriteContent::Message
        } else if args.iter().any(literal_text) {
            // Text the code spells itself (`println!("{}", "=".repeat(70))`): no message relayed.
            WriteContent::Text
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
            // `format!("{response}\n").as_bytes()`: what the format writes.
            None => self.formatted_content(unwrap_chain(arg)),
        }
    }

    /// What a `format!(..)` makes, as a write of it writes (see [`Stdio::format_content`]);
    /// anything else is unlabelled.
    fn formatted_content(&self, expr: &Expr) -> WriteContent {
        match format_args(expr) {
            Some(args) => self.format_content(args.first(), args.get(1..).unwrap_or(&[])),
            None => WriteContent::Unlabelled,
        }
    }

    /// A `let`'s initialiser was visited: the names it binds hold serialised JSON or a stdout
    /// handle when it does.
    fn bind_local(&mut self, local: &syn::Local, init: &Expr, scope: &Scope<'_>) {
        let capture = self.let_captures.pop().unwrap_or_default();
        let bound = super::children::bound_command(init, &self.imports);
        let spawn = super::children::spawned_by(init).map(|call| scope.span(call).start);
        if let Some(function) = self.functions.last_mut() {
            for name in crate::analysis::syntax::pattern_bindings(&local.pat) {
                if let Some(stdout) = bound {
                    function
                        .command_locals
                        .insert(name.clone(), (stdout, Vec::new()));
                }
                let pending = spawn.and_then(|at| {
                    function
                        .unset_spawns
                        .iter()
                        .position(|(span, _)| span.start == at)
                });
                if let Some(index) = pending {
                    function.spawned_children.insert(name, index);
                }
            }
        }
        if let (syn::Pat::Ident(binding), false) = (&local.pat, capture.loggers.is_empty()) {
            let name = binding.ident.to_string();
            if let Some(function) = self.current() {
                function.logger_locals.insert(name, capture.loggers.clone());
            }
        }
        if let (syn::Pat::Ident(binding), true) = (&local.pat, chooses_stdout_writer(init)) {
            let name = binding.ident.to_string();
            if let Some(function) = self.current() {
                function.stdout_writer_locals.push(name);
            }
        }
        let stdout_handle = self.is_stdout_expr(init);
        let aliased = local_ident(init)
            .and_then(|name| self.functions.last()?.serialized_locals.get(&name).cloned());
        // `let reply = match method { .. => json!({..}), .. }`: a JSON value, which prints as
        // one line of JSON, the message itself.
        let capture = LetCapture {
            serialized: capture.serialized || json_valued(init),
            ..capture
        };
        if !capture.serialized {
            if let (syn::Pat::Ident(binding), Some(called)) = (&local.pat, call_valued(init)) {
                let name = binding.ident.to_string();
                if let Some(function) = self.current() {
                    function.call_valued_locals.insert(name, called);
                }
            }
        }
        if !(capture.serialized || stdout_handle || aliased.is_some()) {
            return;
        }
        let bindings = crate::analysis::syntax::pattern_bindings(&local.pat);
        if let Some(function) = self.current() {
            for name in bindings {
                if stdout_handle {
                    function.stdout_locals.push(name.clone());
                }
                if capture.serialized || aliased.is_some() {
                    let mut pretty = capture.pretty.clone();
                    pretty.extend(aliased.iter().flatten().copied());
                    function.serialized_locals.insert(name, pretty);
                }
            }
        }
    }
}

impl Stdio {
    /// Global-flag reads: a function body whose value reads a global flag, a block statement
    /// `if cond { return .. }` whose condition decides the rest of the block, and the names the
    /// arguments of a call call.
    fn note_flag_reads(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        match node {
            Node::Block(block) => {
                if let (true, Some(Stmt::Expr(tail, None))) =
                    (is_function_body(node, scope.parent()), block.stmts.last())
                {
                    if reads_global_flag(tail) || reads_thread_local(tail) {
                        if let Some(name) = scope.function().map(|f| f.name()) {
                            self.flag_reads.readers.push(name);
                        }
                    }
                }
                // The block's own locals that hold stdout or a test of it being a terminal, so
                // far (the walk meets them after the block).
                let (mut handles, mut tty) = (Vec::new(), Vec::new());
                let (mut when_true, mut when_false) = (Vec::new(), Vec::new());
                for (index, stmt) in block.stmts.iter().enumerate() {
                    if let Stmt::Local(syn::Local {
                        pat: syn::Pat::Ident(pat),
                        init: Some(init),
                        ..
                    }) = stmt
                    {
                        let name = pat.ident.to_string();
                        super::terminal::note_terminal_local(
                            &name,
                            &init.expr,
                            &mut when_true,
                            &mut when_false,
                            &handles,
                        );
                        if super::terminal::tests_stdout_terminal(&init.expr, &tty, &handles) {
                            tty.push(name);
                        } else if super::terminal::names_stdout(&init.expr, &handles) {
                            handles.push(name);
                        }
                    }
                    let Stmt::Expr(Expr::If(test), _) = stmt else {
                        continue;
                    };
                    let (Some(next), Some(last)) = (block.stmts.get(index + 1), block.stmts.last())
                    else {
                        continue;
                    };
                    if test.else_branch.is_some() || !diverges(&test.then_branch) {
                        continue;
                    }
                    let rest = ByteSpan::new(scope.span(next).start, scope.span(last).end);
                    if reads_global_flag(&test.cond) {
                        self.flag_branches.push(rest);
                    }
                    // `if !interactive { return Ok(()) }` on a test of stdout being a terminal:
                    // the rest runs only on one side of that test.
                    let tty_test = self.functions.last().is_some_and(|f| {
                        let tty: Vec<String> = f.tty_locals.iter().chain(&tty).cloned().collect();
                        let handles: Vec<String> =
                            f.stdout_locals.iter().chain(&handles).cloned().collect();
                        super::terminal::tests_stdout_terminal(&test.cond, &tty, &handles)
                    });
                    if tty_test {
                        self.tty_branches.push(rest);
                    }
                    // `if !interactive { return Ok(()) }`: the rest runs only when stdout is a
                    // terminal, where a person, not a client, reads what it writes.
                    let locals = super::terminal::TerminalLocals {
                        when_true: &when_true,
                        when_false: &when_false,
                        handles: &handles,
                    };
                    if super::terminal::false_only_on_terminal(&test.cond, locals) {
                        self.off_path.push(rest);
                    }
                    let called = crate::analysis::dispatch::called_names(&test.cond);
                    if !called.is_empty() {
                        self.guard_branches.push((rest, called));
                    }
                }
            }
            Node::Expr(expr @ (Expr::Call(_) | Expr::MethodCall(_))) => {
                let args = match expr {
                    Expr::Call(call) => &call.args,
                    Expr::MethodCall(call) => &call.args,
                    _ => return,
                };
                // Only a predicate's value is followed: an argument that is a call without
                // arguments, or its negation (`!style::is_quiet()`).
                let names: Vec<Vec<String>> = args.iter().map(predicate_call).collect();
                if names.iter().any(|n| !n.is_empty()) {
                    self.flag_reads.call_args.push((scope.span(expr), names));
                }
            }
            _ => {}
        }
    }

    /// A call that hands a `bool` parameter of the current function on (`run(.., json_mode)`).
    fn note_forwarded_params(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let (expr, args) = match node {
            Node::Expr(expr @ Expr::Call(call)) => (expr, &call.args),
            Node::Expr(expr @ Expr::MethodCall(call)) => (expr, &call.args),
            _ => return,
        };
        let Some(function) = self.functions.last() else {
            return;
        };
        if function.bool_params.is_empty() {
            return;
        }
        let positions: Vec<Option<usize>> = args
            .iter()
            .map(|arg| match arg {
                Expr::Path(p) => p.path.get_ident().and_then(|ident| {
                    function
                        .bool_params
                        .iter()
                        .find(|(name, _)| ident == name)
                        .map(|(_, position)| *position)
                }),
                _ => None,
            })
            .collect();
        if positions.iter().any(Option::is_some) {
            self.forwarded.push((scope.span(expr), positions));
        }
    }

    /// `let is_stdio = !io::stdout().is_terminal();`: a local a condition may test stdout by.
    fn note_tty_local(&mut self, local: &syn::Local) {
        let (syn::Pat::Ident(pat), Some(init)) = (&local.pat, &local.init) else {
            return;
        };
        let Some(function) = self.functions.last_mut() else {
            return;
        };
        if super::terminal::tests_stdout_terminal(
            &init.expr,
            &function.tty_locals,
            &function.stdout_locals,
        ) {
            function.tty_locals.push(pat.ident.to_string());
        }
        super::terminal::note_terminal_local(
            &pat.ident.to_string(),
            &init.expr,
            &mut function.terminal_when_true,
            &mut function.terminal_when_false,
            &function.stdout_locals,
        );
    }

    /// The branches of an `if` that run only when stdout is a terminal, where a person, not a
    /// client, reads what they write: outside the path that serves.
    fn note_terminal_only_branches(&mut self, expr: &syn::ExprIf, scope: &Scope<'_>) {
        let (then_terminal, else_terminal) = self.functions.last().map_or((false, false), |f| {
            let locals = super::terminal::TerminalLocals {
                when_true: &f.terminal_when_true,
                when_false: &f.terminal_when_false,
                handles: &f.stdout_locals,
            };
            (
                super::terminal::true_only_on_terminal(&expr.cond, locals),
                super::terminal::false_only_on_terminal(&expr.cond, locals),
            )
        });
        if then_terminal {
            self.off_path.push(byte_span(
                expr.then_branch.brace_token.span.join(),
                expr.then_branch.brace_token.span.join(),
                scope.base,
            ));
        }
        if let (true, Some((_, other))) = (else_terminal, &expr.else_branch) {
            self.off_path.push(scope.span(&**other));
        }
    }

    /// Mark the branches of an `if` that lie outside the path that serves.
    fn note_off_path_if(&mut self, expr: &syn::ExprIf, scope: &Scope<'_>) {
        let tty = self.functions.last().is_some_and(|f| {
            super::terminal::tests_stdout_terminal(&expr.cond, &f.tty_locals, &f.stdout_locals)
        });
        let then_span = || {
            let span = expr.then_branch.brace_token.span.join();
            byte_span(span, span, scope.base)
        };
        // The `then` block and the `else` branch, each decided by the condition.
        let branches = || {
            let other = expr.else_branch.as_ref().map(|(_, e)| scope.span(&**e));
            std::iter::once(then_span()).chain(other)
        };
        if tty {
            self.tty_branches.extend(branches());
        }
        self.note_terminal_only_branches(expr, scope);
        if reads_global_flag(&expr.cond) {
            self.flag_branches.extend(branches());
        }
        if expr.else_branch.is_none() && reads_field_flag(&expr.cond) {
            self.field_branches.push(then_span());
        }
        let called = crate::analysis::dispatch::called_names(&expr.cond);
        if !called.is_empty() {
            self.guard_branches
                .extend(branches().map(|branch| (branch, called.clone())));
        }
        let then_serves = reaches_serving_block(&expr.then_branch);
        // `if to_stderr { .. } else { .. }` on a `bool` parameter: which value takes which branch
        // (`if force && !quiet`: the `then` branch needs `quiet` false; `if quiet || dry { .. }
        // else { .. }`: the `else` branch needs it false too).
        if let Some(f) = self.functions.last() {
            let then_tests = param_tests(&expr.cond, &f.bool_params, false);
            let else_tests = match &expr.else_branch {
                Some(_) => param_tests(&expr.cond, &f.bool_params, true),
                None => Vec::new(),
            };
            for (param, value) in then_tests {
                self.param_branches.push((then_span(), param, value));
                if expr.else_branch.is_none() {
                    self.lone_param_branches.push((then_span(), param));
                }
            }
            if let Some((_, else_branch)) = &expr.else_branch {
                for (param, value) in else_tests {
                    self.param_branches
                        .push((scope.span(&**else_branch), param, !value));
                }
            }
            // `if options.benchmark { .. }` on a field of a parameter.
            for (param, field, value) in field_param_tests(&expr.cond, &f.named_params, false) {
                self.field_param_branches
                    .push((then_span(), param, field, value));
            }
            if let Some((_, else_branch)) = &expr.else_branch {
                for (param, field, value) in field_param_tests(&expr.cond, &f.named_params, true) {
                    self.field_param_branches.push((
                        scope.span(&**else_branch),
                        param,
                        field,
                        !value,
                    ));
                }
            }
        }
        match &expr.else_branch {
            Some((_, else_branch)) => {
                let else_serves = match &**else_branch {
                    Expr::If(next) => self.if_chain_serves(next),
                    other => reaches_serving(other),
                };
                if else_serves && !then_serves {
                    self.off_path.push(then_span());
                } else if then_serves && !else_serves {
                    self.off_path.push(scope.span(&**else_branch));
                }
            }
            None => {
                if !then_serves && diverges(&expr.then_branch) && is_cli_check(&expr.cond) {
                    self.off_path.push(then_span());
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
            let key = start_of(current.if_token.span);
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
    fn note_off_path_match(&mut self, expr: &syn::ExprMatch, scope: &Scope<'_>) {
        let serves: Vec<bool> = expr
            .arms
            .iter()
            .map(|arm| reaches_serving(&arm.body))
            .collect();
        let any = serves.iter().any(|s| *s);
        for (arm, serves) in expr.arms.iter().zip(serves) {
            if !serves && (any || (is_cli_check_pattern(&arm.pat) && diverges_expr(&arm.body))) {
                self.off_path.push(scope.span(&*arm.body));
            }
        }
    }
}

impl Stdio {
    /// A method call: a write into stdout, and the chain of builder methods it continues.
    fn enter_method_call(&mut self, call: &syn::ExprMethodCall, scope: &Scope<'_>) {
        let message = self.note_stdout_method_write(call, scope);
        let args_text = || {
            call.args
                .iter()
                .map(|a| quote::ToTokens::to_token_stream(a).to_string())
                .collect::<String>()
        };
        let stdout_local = call.args.first().and_then(local_ident).is_some_and(|name| {
            self.functions
                .last()
                .is_some_and(|f| f.stdout_writer_locals.contains(&name))
        });
        let marker = match call.method.to_string().as_str() {
            "with_writer" | "with_ansi_writer" if call.args.iter().any(names_stdout) => {
                "with_writer_stdout".to_string()
            }
            "with_writer" | "with_ansi_writer" if stdout_local => "with_writer_chosen".to_string(),
            "target" if args_text().contains("Stderr") => "target_stderr".to_string(),
            other => other.to_string(),
        };
        // A writer set on a local logger builder: the logger writes there, not to stdout.
        if marker == "with_writer"
            || marker == "with_ansi_writer"
            || marker == "with_writer_chosen"
            || marker == "target_stderr"
        {
            self.take_back_logger(&call.receiver);
        }
        self.chain_methods.push(marker);
        self.calls.push((Vec::new(), message));
    }

    /// A writer other than stdout is set on the logger builder a local holds: the writes
    /// recorded for it are taken back.
    fn take_back_logger(&mut self, receiver: &Expr) {
        let mut root = receiver;
        while let Expr::MethodCall(m) = root {
            root = &m.receiver;
        }
        let Some(name) = local_ident(root) else {
            return;
        };
        if let Some(function) = self.current() {
            if let Some(spans) = function.logger_locals.remove(&name) {
                function.facts.writes.retain(|w| !spans.contains(&w.span));
            }
        }
    }

    /// A `write_all`/`write`/.. into stdout: recorded; whether it writes a message (whose
    /// arguments are then a payload).
    fn note_stdout_method_write(&mut self, call: &syn::ExprMethodCall, scope: &Scope) -> bool {
        let writes = matches!(
            call.method.to_string().as_str(),
            "write_all" | "write" | "write_fmt" | "write_str" | "write_vectored"
        );
        if !writes || !self.is_stdout_expr(&call.receiver) {
            return false;
        }
        let span = scope.span(call);
        let content = self.bytes_content(call.args.first());
        // A write straight into `stdout()` is judged with the function (the transport's write
        // site serialises JSON); one through a local handle only when it is text, since the
        // transport's helpers write the lines they are handed.
        let direct = local_ident(&call.receiver).is_none();
        if content == WriteContent::Text || direct {
            self.record_stdout(StdoutKind::Handle, span, span, content, scope);
            // `stdout().write_all(format!("{}\n", response).as_bytes())`: what the function
            // that gave `response` returns decides (see [`Stdio::valued_writes`]).
            if content == WriteContent::Unlabelled {
                if let Some(args) = call.args.first().and_then(|a| format_args(unwrap_chain(a))) {
                    self.note_valued_write(&args);
                }
            }
        }
        let message = content != WriteContent::Text;
        if message {
            let pretty: Vec<ByteSpan> = call
                .args
                .iter()
                .flat_map(|a| self.pretty_behind(a))
                .collect();
            self.record_pretty(pretty, scope);
        }
        message
    }

    /// `stdout()`, `tracing_subscriber::fmt()` and friends; `serde_json::to_string`.
    fn check_stdout_call(&mut self, call: &syn::ExprCall, scope: &Scope<'_>) {
        let Expr::Path(func) = &*call.func else {
            return;
        };
        let segments = self.unaliased(path_segments(&func.path));
        let last = segments.last().map(String::as_str).unwrap_or("");
        if segments.first().is_some_and(|s| s == "serde_json") && SERIALIZERS.contains(&last) {
            self.note_serializer(call, last, scope);
        }
        let joined = segments.join("::");
        if last == "stdout"
            && call.args.is_empty()
            && (segments.len() == 1 || joined.ends_with("io::stdout"))
        {
            if let Some(function) = self.current() {
                function.facts.touches_stdout = true;
            }
            // Writes through the handle are judged where they are made (`write_all(..)`,
            // `writeln!(..)`); a `flush` or `lock` alone writes nothing.
            return;
        }
        if let Some(kind) = self.logger_to_stdout(&joined, call) {
            let span = scope.span(call);
            self.record_stdout(kind, span, span, WriteContent::Text, scope);
            let settable = matches!(kind, StdoutKind::TracingFmt | StdoutKind::Log4rsConsole);
            if let (true, Some(capture)) = (settable, self.let_captures.last_mut()) {
                capture.loggers.push(span);
            }
        }
    }

    /// A path with its first segment's `use .. as ..` alias replaced by the path it names:
    /// `trace_fmt::layer` is `tracing_subscriber::fmt::layer` after `use tracing_subscriber::fmt
    /// as trace_fmt;`.
    fn unaliased(&self, segments: Vec<String>) -> Vec<String> {
        match segments.first().and_then(|first| self.renames.get(first)) {
            Some(original) => original
                .iter()
                .chain(segments.iter().skip(1))
                .cloned()
                .collect(),
            None => segments,
        }
    }

    /// A `serde_json` serialiser call: the function serialises JSON; a pretty one whose output
    /// reaches stdout as a message is recorded (or remembered with the `let` it initialises).
    fn note_serializer(&mut self, call: &syn::ExprCall, last: &str, scope: &Scope<'_>) {
        let pretty = last.ends_with("_pretty");
        let name_span = match &*call.func {
            Expr::Path(p) => p.path.segments.last().map(|s| scope.span(&s.ident)),
            _ => None,
        };
        if let Some(function) = self.current() {
            function.facts.serializes_json = true;
        }
        // `to_writer(out, ..)` writes; the others make a value.
        let into_stdout = last.starts_with("to_writer")
            && call.args.first().is_some_and(|a| self.is_stdout_expr(a));
        if let Some(capture) = self.let_captures.last_mut() {
            capture.serialized |= !last.starts_with("to_writer");
        }
        if let (true, Some(name_span)) = (pretty, name_span) {
            if into_stdout || self.payload_depth > 0 {
                self.record_pretty([name_span], scope);
            } else if let Some(capture) = self.let_captures.last_mut() {
                capture.pretty.push(name_span);
            }
        }
    }

    /// A logger set up to write to stdout: a `tracing_subscriber` fmt subscriber or layer, or a
    /// `log4rs` console appender, judged by the builder methods chained on it.
    fn logger_to_stdout(&self, joined: &str, call: &syn::ExprCall) -> Option<StdoutKind> {
        let chained = |name: &str| self.chain_methods.iter().any(|m| m == name);
        let is_fmt_root = joined == "tracing_subscriber::fmt"
            || joined.ends_with("fmt::Subscriber::builder")
            || joined.ends_with("FmtSubscriber::builder")
            || joined == "tracing_subscriber::fmt::layer"
            || joined == "fmt::layer"
            || (joined == "fmt" && call.args.is_empty());
        if is_fmt_root {
            // `with_writer_stdout`: the chain names a writer that is stdout.
            if chained("with_writer_stdout") {
                Some(StdoutKind::TracingFmtToStdout)
            } else if chained("with_writer_chosen") {
                Some(StdoutKind::TracingFmtChosenStdout)
            } else if !chained("with_writer") && !chained("with_ansi_writer") {
                Some(StdoutKind::TracingFmt)
            } else {
                None
            }
        } else if joined == "tracing_subscriber::fmt::init" || joined == "fmt::init" {
            Some(StdoutKind::TracingFmtInit)
        } else if joined == "tracing_subscriber::fmt::try_init" || joined == "fmt::try_init" {
            Some(StdoutKind::TracingFmtTryInit)
        } else if joined.ends_with("ConsoleAppender::builder") && call.args.is_empty() {
            // `target_stderr`: the chain sets `.target(Target::Stderr)`.
            if chained("target") {
                Some(StdoutKind::Log4rsConsoleToStdout)
            } else if !chained("target_stderr") {
                Some(StdoutKind::Log4rsConsole)
            } else {
                None
            }
        } else {
            None
        }
    }
}

const SERIALIZERS: &[&str] = &[
    "to_string",
    "to_vec",
    "to_writer",
    "to_string_pretty",
    "to_writer_pretty",
    "to_vec_pretty",
];

impl Stdio {
    /// A macro in code: `println!`/`print!` name stdout; a writing macro's arguments are read
    /// next (see [`Stdio::enter_macro_args`]).
    fn enter_macro(&mut self, mac: &Macro, scope: &Scope<'_>) {
        let Some(span) = scope.macro_site(mac) else {
            return;
        };
        let name = macro_name(mac);
        if vocab::STDOUT_PRINT_MACROS.contains(&name.as_str()) {
            if let Some(function) = self.current() {
                function.facts.touches_stdout = true;
            }
            // `println!()` has no body to parse: a bare newline.
            if mac.tokens.is_empty() {
                self.record_print(mac, span, WriteContent::Newline, scope);
            }
        }
        if vocab::WRITE_MACROS.contains(&name.as_str()) {
            self.macros.push(WriteMacro {
                mac: macro_key(mac),
                name,
                span,
                read: false,
                message: false,
            });
        }
    }

    /// A writing macro's arguments, before they are visited: what it writes to stdout.
    fn enter_macro_args(&mut self, args: &[Expr], scope: &Scope<'_>) {
        let Some(Node::Macro(mac)) = scope.parent() else {
            return;
        };
        let Some(frame) = self.macros.last().filter(|f| f.mac == macro_key(mac)) else {
            return;
        };
        let name = frame.name.clone();
        let span = frame.span;
        let skip = if vocab::STDOUT_PRINT_MACROS.contains(&name.as_str()) {
            1
        } else {
            2
        };
        // A write to stdout: `println!`/`print!`, or `write!`/`writeln!` into a stdout handle.
        let to_stdout = skip == 1 || args.first().is_some_and(|a| self.is_stdout_expr(a));
        let content = to_stdout
            .then(|| self.format_content(args.get(skip - 1), args.get(skip..).unwrap_or(&[])));
        match content {
            Some(content) if skip == 1 => self.record_print(mac, span, content, scope),
            Some(WriteContent::Text) => {
                self.record_stdout(StdoutKind::Handle, span, span, WriteContent::Text, scope)
            }
            _ => {}
        }
        if let (Some(WriteContent::Unlabelled), true) = (content, skip == 1) {
            self.note_valued_write(args);
        }
        let message = matches!(
            content,
            Some(WriteContent::Message | WriteContent::Unlabelled)
        );
        self.payload_depth += usize::from(message);
        if let Some(frame) = self.macros.last_mut() {
            frame.read = true;
            frame.message = message;
        }
    }
}

impl Stdio {
    /// A print without text of its own, just recorded, of one local whose values are calls of
    /// functions (`println!("{response}")`, `println!("{}", response)`): see
    /// [`Stdio::valued_writes`].
    fn note_valued_write(&mut self, args: &[Expr]) {
        let mut names: Vec<String> = args.iter().skip(1).filter_map(local_ident).collect();
        names.extend(
            args.first()
                .and_then(str_literal)
                .map(|format| format_captures(&format))
                .unwrap_or_default(),
        );
        let [name] = names.as_slice() else {
            return;
        };
        let Some(function) = self.current() else {
            return;
        };
        let Some(called) = function.call_valued_locals.get(name).cloned() else {
            return;
        };
        if let Some(write) = function.facts.writes.len().checked_sub(1) {
            function.valued_writes.push((write, called));
        }
    }

    /// A writing macro's arguments were visited: the pretty-printed JSON they carry.
    fn leave_macro_args(&mut self, args: &[Expr], scope: &Scope<'_>) {
        let Some(Node::Macro(mac)) = scope.parent() else {
            return;
        };
        let Some(frame) = self.macros.last().filter(|f| f.mac == macro_key(mac)) else {
            return;
        };
        if !frame.message {
            return;
        }
        self.payload_depth -= 1;
        let skip = if vocab::STDOUT_PRINT_MACROS.contains(&frame.name.as_str()) {
            1
        } else {
            2
        };
        // Identifiers captured inside the format string (`println!("{reply}")`) are arguments
        // too.
        let mut pretty: Vec<ByteSpan> = args
            .iter()
            .skip(skip)
            .flat_map(|a| self.pretty_behind(a))
            .collect();
        let captured = args
            .get(skip - 1)
            .and_then(str_literal)
            .map(|format| format_captures(&format))
            .unwrap_or_default();
        if let Some(function) = self.functions.last() {
            for name in captured {
                pretty.extend(function.serialized_locals.get(&name).into_iter().flatten());
            }
        }
        self.record_pretty(pretty, scope);
    }

    /// A writing macro is left: a `println!` whose body does not read as expressions is
    /// reported as text.
    fn leave_macro(&mut self, mac: &Macro, scope: &Scope<'_>) {
        if self.macros.last().is_none_or(|f| f.mac != macro_key(mac)) {
            return;
        }
        let Some(frame) = self.macros.pop() else {
            return;
        };
        let print = vocab::STDOUT_PRINT_MACROS.contains(&frame.name.as_str());
        if !frame.read && print && !mac.tokens.is_empty() {
            self.record_print(mac, frame.span, WriteContent::Text, scope);
        }
    }
}

/// The arguments of a `format!(..)`, its format string first.
fn format_args(expr: &Expr) -> Option<Vec<Expr>> {
    let Expr::Macro(m) = expr else {
        return None;
    };
    if macro_name(&m.mac) != "format" {
        return None;
    }
    match crate::analysis::syntax::parse_macro_body(&m.mac.tokens)? {
        crate::analysis::syntax::MacroBody::Exprs(args) => Some(args),
        crate::analysis::syntax::MacroBody::Stmts(_) => None,
    }
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

/// Whether every value an expression can evaluate to is a `json!(..)` (through `match` arms,
/// `if` branches and blocks): [`call_valued`] with no call among them.
fn json_valued(expr: &Expr) -> bool {
    call_valued(expr).is_some_and(|called| called.is_empty())
}

/// The functions an expression's values are calls of, when every value it can evaluate to is a
/// `json!(..)` or a call of a function by its bare name (through `match` arms, `if` branches and
/// blocks): `match parsed { Ok(r) => handle(r), Err(e) => jsonrpc_error(..) }`.
fn call_valued(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Macro(m) => (macro_name(&m.mac) == "json").then(Vec::new),
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => p.path.get_ident().map(|ident| vec![ident.to_string()]),
            _ => None,
        },
        Expr::Paren(p) => call_valued(&p.expr),
        Expr::Block(b) => block_call_valued(&b.block),
        Expr::Match(m) => {
            let mut called = Vec::new();
            let mut any = false;
            for arm in &m.arms {
                let body = &*arm.body;
                if diverges_expr(body) || matches!(body, Expr::Continue(_) | Expr::Break(_)) {
                    continue;
                }
                called.extend(call_valued(body)?);
                any = true;
            }
            any.then_some(called)
        }
        Expr::If(i) => {
            let mut called = block_call_valued(&i.then_branch)?;
            called.extend(call_valued(&i.else_branch.as_ref()?.1)?);
            Some(called)
        }
        _ => None,
    }
}

fn block_call_valued(block: &syn::Block) -> Option<Vec<String>> {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => call_valued(e),
        _ => None,
    }
}

/// Whether code names `stdout` (`std::io::stdout`, `io::stdout()`): an identifier of its
/// tokens, never a word in a string literal.
fn names_stdout(expr: &Expr) -> bool {
    fn walk(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => ident == "stdout",
            proc_macro2::TokenTree::Group(group) => walk(group.stream()),
            _ => false,
        })
    }
    walk(quote::ToTokens::to_token_stream(expr))
}

/// Whether an initialiser chooses a writer by a `match` or an `if`, one of whose branches
/// evaluates to stdout.
fn chooses_stdout_writer(init: &Expr) -> bool {
    match init {
        Expr::Match(m) => m.arms.iter().any(|arm| names_stdout(&arm.body)),
        Expr::If(i) => {
            i.then_branch
                .stmts
                .last()
                .is_some_and(|s| matches!(s, syn::Stmt::Expr(e, None) if names_stdout(e)))
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| chooses_stdout_writer(e) || names_stdout(e))
        }
        Expr::Paren(p) => chooses_stdout_writer(&p.expr),
        _ => false,
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
        if path
            .segments
            .iter()
            .any(|s| s.ident == "StdioTransport" || s.ident == "StdioServerTransport")
        {
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

/// The name of the call an argument is, when it is a call without arguments or its negation
/// (`is_quiet()`, `!style::is_quiet()`, `!self.quiet()`).
fn predicate_call(arg: &Expr) -> Vec<String> {
    match arg {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => predicate_call(&u.expr),
        Expr::Paren(p) => predicate_call(&p.expr),
        Expr::Call(call) if call.args.is_empty() => match &*call.func {
            Expr::Path(p) => vec![crate::analysis::syntax::last_segment(&p.path)],
            _ => Vec::new(),
        },
        Expr::MethodCall(call) if call.args.is_empty() => vec![call.method.to_string()],
        field if is_field_flag(field) => vec![FIELD_FLAG.to_string()],
        _ => Vec::new(),
    }
}

/// `QUIET.with(|q| q.get())`: a read of a `thread_local!` (a path in upper case).
fn reads_thread_local(expr: &Expr) -> bool {
    match expr {
        Expr::Unary(u) => reads_thread_local(&u.expr),
        Expr::Paren(p) => reads_thread_local(&p.expr),
        Expr::MethodCall(call) if call.method == "with" => is_upper_path(&call.receiver),
        _ => false,
    }
}

/// A path whose last segment is in upper case (a `static`).
fn is_upper_path(expr: &Expr) -> bool {
    matches!(expr, Expr::Path(p) if p.path.segments.last()
        .is_some_and(|s| crate::analysis::syntax::is_constant_name(&s.ident.to_string())))
}

/// Whether a condition reads a global flag: `SILENT.load(..)` on a `static` (a path in upper
/// case), alone, negated, in parentheses or joined by `&&`/`||`.
fn reads_global_flag(cond: &Expr) -> bool {
    tests_any(cond, &|test| {
        matches!(test, Expr::MethodCall(call)
            if call.method == "load" && is_upper_path(&call.receiver))
    })
}

/// Whether a test among a condition's operands holds `is_test`: the condition alone, negated,
/// in parentheses, or joined to others by `&&`/`||`.
fn tests_any(cond: &Expr, is_test: &dyn Fn(&Expr) -> bool) -> bool {
    match cond {
        Expr::Paren(p) => tests_any(&p.expr, is_test),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => tests_any(&u.expr, is_test),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
            tests_any(&b.left, is_test) || tests_any(&b.right, is_test)
        }
        other => is_test(other),
    }
}

/// Whether a condition tests a `bool` field of the receiver ([`is_field_flag`] on `self`:
/// `self.quiet`, `self.options.verbose`), alone, negated, or in an `&&` or `||` chain: a setting
/// the value was built with. (A field of another value, `if sync.changed`, is data the function
/// computed, not a setting.)
fn reads_field_flag(cond: &Expr) -> bool {
    tests_any(cond, &|test| is_field_flag(test) && field_of_self(test))
}

/// Whether a field read's root is `self`.
fn field_of_self(expr: &Expr) -> bool {
    match expr {
        Expr::Field(field) => field_of_self(&field.base),
        Expr::Path(p) => p.path.is_ident("self"),
        _ => false,
    }
}

/// A `bool` field read as a condition or an argument (`self.quiet`, `options.emit_progress`,
/// `self.config.verbose`): a flag of a value the program builds at run time, which the code
/// that builds it sets (a tool's quiet options, a CLI's verbosity).
fn is_field_flag(expr: &Expr) -> bool {
    match expr {
        Expr::Field(field) => {
            matches!(field.member, syn::Member::Named(_))
                && match &*field.base {
                    Expr::Path(p) => p.path.get_ident().is_some(),
                    base @ Expr::Field(_) => is_field_flag(base),
                    _ => false,
                }
        }
        _ => false,
    }
}

/// What [`predicate_call`] gives for an argument that is a field flag ([`is_field_flag`]): no
/// function's name (a name never holds a `.`).
pub const FIELD_FLAG: &str = ".";

/// Whether a formatting argument is text the code spells itself: a string literal, or a method
/// of one (`"=".repeat(70)`, `"-".to_string()`), that names no JSON-RPC message.
fn literal_text(arg: &Expr) -> bool {
    let mut expr = arg;
    loop {
        match expr {
            Expr::MethodCall(m) => expr = &m.receiver,
            Expr::Paren(p) => expr = &p.expr,
            Expr::Reference(r) => expr = &r.expr,
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => return !s.value().contains("jsonrpc"),
            _ => return false,
        }
    }
}
