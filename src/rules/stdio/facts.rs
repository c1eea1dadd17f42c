//! The stdio family's facts, collected by its hooks on the shared walk and stored under their
//! keys: what each function writes to stdout ([`writes`](super::writes)), and where a file
//! starts serving stdio and how its functions branch ([`serving`](super::serving)), from which
//! the server model ([`server_model`](super::server_model)) is built.

use crate::analysis::facts::{FactKey, FileFacts};
use crate::source::ByteSpan;

/// The functions of a file that name stdout or serialise JSON, with what they write to it.
pub static WRITES: FactKey<Vec<StdioFunction>> = FactKey::new("stdio");

/// Where a file starts serving stdio, and how its functions branch.
pub static SERVING: FactKey<ServingFacts> = FactKey::new("serving");

/// Branches of an `if` on a `bool` parameter of the function around it: the branch, the
/// parameter's position, and the value that takes it (`if json { .. } else { print_table(..) }`).
pub static PARAM_BRANCHES: FactKey<Vec<(ByteSpan, usize, bool)>> = FactKey::new("param-branches");

/// An argument that sets `bool` fields of a struct to literals: its position, and the fields'
/// values (see [`ServingFacts::field_args`]).
pub type FieldArg = (usize, Vec<(String, bool)>);

/// Branches of an `if` on a `bool` field of a parameter of the function around it: the branch,
/// the parameter's position, the field, and the value that takes it (`if options.vs_grep {
/// compare_with_grep(..) }`).
pub static FIELD_PARAM_BRANCHES: FactKey<Vec<(ByteSpan, usize, String, bool)>> =
    FactKey::new("field-param-branches");

/// A file's branches on `bool` fields of parameters (see [`FIELD_PARAM_BRANCHES`]).
pub fn field_param_branches(facts: &FileFacts) -> Vec<(ByteSpan, usize, String, bool)> {
    facts.rules.get(&FIELD_PARAM_BRANCHES)
}

/// Calls that hand a `bool` parameter of the function around them on as an argument: the call,
/// and per argument the position of the parameter it is (`run_member_lookup(doc, name,
/// json_mode)` is `[None, None, Some(3)]` in `fn run_docs(.., json_mode: bool)`).
pub static FORWARDED_PARAMS: FactKey<Vec<(ByteSpan, Vec<Option<usize>>)>> =
    FactKey::new("forwarded-params");

/// The file's functions whose value is a global flag they read (`fn is_quiet() -> bool {
/// QUIET.with(|q| q.get()) }`, `SILENT.load(..)`), and its calls whose arguments call a function
/// (per argument, the names called: `run(.., !style::is_quiet())`).
pub static FLAG_READS: FactKey<FlagReads> = FactKey::new("flag-reads");

/// See [`FLAG_READS`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlagReads {
    pub readers: Vec<String>,
    pub call_args: Vec<(ByteSpan, Vec<Vec<String>>)>,
}

/// A file's global-flag readers and call arguments (see [`FLAG_READS`]).
pub fn flag_reads(facts: &FileFacts) -> FlagReads {
    facts.rules.get(&FLAG_READS)
}

/// A file's calls that hand a `bool` parameter on (see [`FORWARDED_PARAMS`]).
pub fn forwarded_params(facts: &FileFacts) -> Vec<(ByteSpan, Vec<Option<usize>>)> {
    facts.rules.get(&FORWARDED_PARAMS)
}

/// A file's branches on `bool` parameters (see [`PARAM_BRANCHES`]).
pub fn param_branches(facts: &FileFacts) -> Vec<(ByteSpan, usize, bool)> {
    facts.rules.get(&PARAM_BRANCHES)
}

/// A file's functions that name stdout or serialise JSON.
pub fn writes(facts: &FileFacts) -> Vec<StdioFunction> {
    facts.rules.get(&WRITES)
}

/// A file's serve sites and branches.
pub fn serving(facts: &FileFacts) -> ServingFacts {
    facts.rules.get(&SERVING)
}

/// What writes to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum StdoutKind {
    /// `println!`: the fix is `eprintln!`.
    Println,
    /// `print!`: the fix is `eprint!`.
    Print,
    /// `tracing_indicatif`'s `indicatif_println!` (it prints with `println!`): no automatic fix
    /// (`indicatif_eprintln!` may not be imported).
    IndicatifPrintln,
    /// A `stdout()` handle (written to).
    Handle,
    /// A `tracing_subscriber` fmt subscriber or layer with no `.with_writer(..)`: it logs to
    /// stdout. The fix inserts `.with_writer(std::io::stderr)` after the builder call.
    TracingFmt,
    /// `tracing_subscriber::fmt::init()`: the fix spells out the builder with a writer.
    TracingFmtInit,
    /// `tracing_subscriber::fmt::try_init()`: the same, ending in `.try_init()`.
    TracingFmtTryInit,
    /// A `tracing_subscriber` fmt subscriber or layer given a stdout writer
    /// (`.with_writer(std::io::stdout)`): no automatic fix.
    TracingFmtToStdout,
    /// A `tracing_subscriber` fmt subscriber or layer given a writer that a `match` or an `if`
    /// chose, stdout in one of its branches (`let w = match path { None =>
    /// BoxMakeWriter::new(std::io::stdout), .. }`): no automatic fix; a shape in preview.
    TracingFmtChosenStdout,
    /// A `log4rs` `ConsoleAppender::builder()` with no `.target(..)`: it writes to stdout. The fix
    /// inserts `.target(log4rs::append::console::Target::Stderr)` after the builder call.
    Log4rsConsole,
    /// A `log4rs` `ConsoleAppender` whose `.target(..)` is not `Target::Stderr`: no automatic fix.
    Log4rsConsoleToStdout,
    /// A child process started with the server's stdout (`Command::new(..).status()` with no
    /// `.stdout(..)`, see [`super::children`]): no automatic fix; a shape in preview.
    ChildInherits,
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
    /// A bare newline (`println!()`): the end of a message when the function writes one (`print!
    /// ("{json}"); println!()`), a blank line of a person's output otherwise.
    Newline,
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
    /// The write runs only when the enclosing function's `bool` parameters have these values:
    /// (the parameter's position among the typed parameters, its value), from the `if`s on a
    /// parameter around it (`if to_stderr { .. } else { write }` is `[(0, false)]`).
    pub runs_if: Vec<(usize, bool)>,
    /// Of those parameters, the ones tested by an `if` with no `else` around the write (`if
    /// emit_human { write }`): the parameter decides whether the write runs, not which of two
    /// writes does.
    #[serde(default)]
    pub lone_params: Vec<usize>,
    /// The write runs only when `bool` fields of the enclosing function's parameters have these
    /// values: (the parameter's position among the typed parameters, the field, its value), from
    /// the `if`s on such a field around it (`if options.benchmark { write }` is `[(2,
    /// "benchmark", true)]`).
    #[serde(default)]
    pub runs_if_fields: Vec<(usize, String, bool)>,
    /// The write runs only on ways that make the enclosing function return `true`: it lies in
    /// an arm of the `match` that is the body's value, whose own value is `true` (a help
    /// printer: `HelpRequest::TopLevel => { print!(..); true }`).
    #[serde(default)]
    pub then_returns_true: bool,
    /// The write lies in a branch of an `if` whose condition tests whether stdout is a terminal
    /// (see [`super::terminal`]): it may run only when a person reads stdout.
    #[serde(default)]
    pub tty_guarded: bool,
    /// What the write writes is the value of calls of the file's functions, some of which do
    /// not return JSON (`usage(..)`'s `String` of text): judged by them, not by where it is.
    #[serde(default)]
    pub valued_text: bool,
    /// The write lies in a branch of an `if` whose condition reads a global flag
    /// (`if !SILENT.load(Ordering::Relaxed) { .. }`): whether it runs depends on what the program
    /// stored in the flag before (a serving branch that silences the output first).
    #[serde(default)]
    pub flag_guarded: bool,
    /// The functions called in the conditions that decide whether the write runs (an `if`
    /// around it, or one before it in its block that leaves: `if is_quiet() { return; }`):
    /// when one of them reads a global flag, the write is [`StdoutWrite::flag_guarded`] too.
    #[serde(default)]
    pub guard_calls: Vec<String>,
    /// The features the statements and functions around the write require
    /// (`#[cfg(feature = "console")] { println!(..) }`): code of a build that enables them.
    #[serde(default)]
    pub features: Vec<String>,
}

/// What one function (or method) writes to stdout, for a function that names stdout or
/// serialises JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StdioFunction {
    /// The whole function, attributes included.
    pub item_span: ByteSpan,
    /// Writes to stdout in this function.
    pub writes: Vec<StdoutWrite>,
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
}

/// Where a file starts serving MCP over its own stdio, and the branches of its functions.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServingFacts {
    /// Calls in function bodies that start serving over the process's own stdio: a stdio
    /// transport (`stdio()`, `StdioTransport::new()`, `.run_stdio()`), or a read of `stdin()` in
    /// a file that reads JSON. Only in files whose code serves stdio (see
    /// [`crate::analysis::facts::FileFacts::serves_stdio`]).
    pub serve_sites: Vec<ByteSpan>,
    /// A serve site (or a read of stdin that may be one) lies in a statement or function under
    /// `#[cfg(feature = "x")]`: the program may serve only in a build with a feature on.
    #[serde(default)]
    pub feature_gated_sites: bool,
    /// The serve sites that are a client's transport on the process's own stdio (handed to a
    /// `Client`'s constructor) built in one arm of a `match`: a program that talks as a client
    /// over its own stdio only when a value chooses it (a server tester whose URL may say
    /// `stdio`), and whose prints are a person's report otherwise.
    #[serde(default)]
    pub chosen_client_sites: Vec<ByteSpan>,
    /// Sets of code that exclude each other, in function bodies: the arms of a `match`, the
    /// branches of an `if` chain with an `else`, code under a `cfg` and its negation, and an
    /// `if` or arm of the block's own statement that leaves (`return`, `exit`, `bail!`)
    /// against the rest of its block.
    pub branches: Vec<Vec<ByteSpan>>,
    /// A branch nested a few `if`/`match` levels down in a statement that leaves the function
    /// (`return`, `exit(..)`, `bail!`), and the rest of the block after that statement: they
    /// exclude each other. Unlike [`ServingFacts::branches`], the rest is not a branch of
    /// its own: it runs on every way that does not leave, serving or not.
    #[serde(default)]
    pub leaving: Vec<(ByteSpan, ByteSpan)>,
    /// Types that implement a handler trait (`impl ServerHandler for X`, any trait named
    /// `*Handler`), with the trait: an SDK's (a trait the crate does not define) calls their
    /// methods while it serves.
    pub handler_types: Vec<(String, String)>,
    /// `if matches!(cli.command, Command::Index { .. }) && .. { .. }`: the block, the scrutinee
    /// (its tokens without spaces) and the variants the test admits.
    pub variant_guards: Vec<(ByteSpan, String, Vec<String>)>,
    /// `match &command { Command::Serve { .. } => {}, _ => init_logging() }`: the catch-all
    /// arm, the scrutinee and the variants the other arms name, which it does not admit.
    #[serde(default)]
    pub except_guards: Vec<(ByteSpan, String, Vec<String>)>,
    /// `let use_stderr = matches!(cli.command, Some(Commands::Mcp));`: a function body, and a
    /// `bool` local of it that is `true` exactly for these variants of the scrutinee (a
    /// disjunction of whole tests, never set otherwise), so that it stands for the test where
    /// it is handed on (`init_tracing(use_stderr)`).
    #[serde(default)]
    pub exact_flags: Vec<(ByteSpan, String, String, Vec<String>)>,
    /// In a function body, the statements from which the function gives `Some(..)` on every
    /// way out (see [`super::exits::some_from`]).
    #[serde(default)]
    pub some_tails: Vec<ByteSpan>,
    /// Calls whose `Some` ends the process (`if let Some(code) = f() { exit(code) }`): the
    /// called function's name, and the call.
    #[serde(default)]
    pub exits_on_some: Vec<(String, ByteSpan)>,
    /// Statements from which a function holds stdout's lock to the end of its body (see
    /// [`super::locks::stdout_lock_from`]).
    #[serde(default)]
    pub stdout_locks: Vec<ByteSpan>,
    /// The closures and `async` blocks a call runs on another thread (see
    /// [`super::locks::spawned_bodies`]).
    #[serde(default)]
    pub spawned: Vec<ByteSpan>,
    /// The file builds a single-threaded runtime (`flavor = "current_thread"`,
    /// `new_current_thread()`), where a spawned task runs on the thread that holds a lock.
    #[serde(default)]
    pub current_thread: bool,
    /// Serve sites that construct a stdio transport from values they are given, none of them
    /// the process's own stdio (`StdioTransport::with_io(reader, write_half)`), with the type
    /// and the constructor's name (see `server_model::given_io_serves`).
    #[serde(default)]
    pub given_io_sites: Vec<(ByteSpan, String, String)>,
    /// Serve sites known only by the name of the function or method they call (`run_stdio()`,
    /// `serve_stdio(server)`), handing it none of the process's stdio: one that calls a
    /// function of the unit that launches a child to talk to does not serve (see
    /// `server_model::named_own_function`). A call that hands the process's stdin or stdout to
    /// a function named for serving stdio (`serve_stdio(BufReader::new(stdin()), &mut out)`) is
    /// not one of these.
    #[serde(default)]
    pub named_sites: Vec<ByteSpan>,
    /// The code of function bodies that may not run when the code around it does (see
    /// [`super::must`]), outside test code.
    #[serde(default)]
    pub maybe: Vec<ByteSpan>,
    /// Of the serve sites, the reads of `stdin()` a loop of JSON lines makes (a hand-written
    /// transport), not an SDK's transport.
    #[serde(default)]
    pub stdin_sites: Vec<ByteSpan>,
    /// Of that code, what runs whenever its function goes on past the statement before it (the
    /// rest of a block after a statement that may leave, the one branch of an `if` or a `match`
    /// whose others all leave): it may not run only because the function left before.
    #[serde(default)]
    pub rest: Vec<ByteSpan>,
    /// Of that code, the bodies of loops (`for`, `while`, `loop`).
    #[serde(default)]
    pub loop_bodies: Vec<ByteSpan>,
    /// Of that code, the arms of a `match` over string literals (a tool's name) whose scrutinee
    /// is read from a parameter of the function other than `self` (`match name { "search" =>
    /// .. }`): in a function that runs for a message, which arm runs is the message's choice.
    #[serde(default)]
    pub message_arms: Vec<ByteSpan>,
    /// Of that code, the arms of a `match` over whether a local parses (`match
    /// serde_json::from_str::<Request>(&line) { Ok(request) => .., Err(e) => .. }`): in the
    /// loop that reads a hand-written transport's messages, which arm runs is the message's
    /// choice.
    #[serde(default)]
    pub parsed_arms: Vec<ByteSpan>,
    /// Of that code, the arms of a `match` over an enum's variants, with the enum's name as the
    /// patterns write it (`Commands` in `Commands::Serve { .. } =>`).
    #[serde(default)]
    pub variant_arms: Vec<(ByteSpan, String)>,
    /// The enums the file derives clap's `Subcommand` for: which of their variants a `match`
    /// takes is the command line's choice.
    #[serde(default)]
    pub subcommand_enums: Vec<String>,
    /// Calls that launch a child process to talk to over its pipes (see
    /// `serving::launches_child`).
    #[serde(default)]
    pub child_launches: Vec<ByteSpan>,
    /// Calls for the process's own stdio (`stdin()`, `tokio::io::stdout()`).
    #[serde(default)]
    pub stdio_calls: Vec<ByteSpan>,
    /// Serve sites that construct a stdio transport type (`StdioTransport::new()`), with the
    /// type's name: a type the unit defines serves only if its code opens the process's stdio
    /// (see `server_model::own_type_serves`).
    #[serde(default)]
    pub constructed_sites: Vec<(ByteSpan, String)>,
    /// `match cli.command { .. }`: the scrutinee, and per arm its body and the variants its
    /// pattern names (None for a catch-all or a pattern of another shape).
    pub variant_matches: Vec<(String, Vec<VariantArm>)>,
    /// Arms and branches that end the process (`exit(..)`, `abort()`, a `match` whose arms all
    /// do): a help text or a fatal error printed on the way out, never on the way to serving.
    pub exits: Vec<ByteSpan>,
    /// Calls in function bodies with a `true` or `false` argument: the call's span, and each
    /// argument's value when it is one (a method call's receiver is not an argument).
    pub bool_args: Vec<(ByteSpan, Vec<Option<bool>>)>,
    /// Calls in function bodies with an argument that is a place (a local or a field of one,
    /// through `&`, parentheses and views such as `.clone()`): the call's span, and each
    /// argument's text as a scrutinee's when it is one.
    #[serde(default)]
    pub place_args: Vec<(ByteSpan, Vec<Option<String>>)>,
    /// Function bodies and their parameters' names by position (the receiver not counted;
    /// None for a pattern), for functions with a parameter of a plain name.
    #[serde(default)]
    pub parameter_names: Vec<(ByteSpan, Vec<Option<String>>)>,
    /// Calls in function bodies with an argument that is a struct literal (or `&` of one, or a
    /// local bound to one) setting `bool` fields to literals: the call's span, and per such
    /// argument its position and the fields' values (`search(&q, &SearchOptions { benchmark:
    /// false, .. })` is `[(1, [("benchmark", false)])]`).
    #[serde(default)]
    pub field_args: Vec<(ByteSpan, Vec<FieldArg>)>,
    /// Functions of one name under a `cfg` and its negation (`#[cfg(feature = "stdio")]` and
    /// `#[cfg(not(feature = "stdio"))]`): their items. One build compiles one of the two.
    #[serde(default)]
    pub cfg_twins: Vec<(ByteSpan, ByteSpan)>,
    /// Calls that are the whole condition of an `if` with no `else` whose branch leaves the
    /// function (`if cli::maybe_handle_help(&args) { return Ok(()) }`): where the callee
    /// returns `true`, the caller goes no further.
    #[serde(default)]
    pub leaving_tests: Vec<ByteSpan>,
    /// Calls whose value is the enclosing function's (the body's tail expression).
    #[serde(default)]
    pub returned_calls: Vec<ByteSpan>,
    /// `if let Some(code) = f(..) { return code; }` with no `else`: the call, and the rest of
    /// the block after that statement, which runs only when the call gave `None`.
    #[serde(default)]
    pub leaving_on_some: Vec<(ByteSpan, ByteSpan)>,
    /// Bodies of functions that give their caller nothing to decide by: no return type, no
    /// `&mut` parameter, and no way to end the process or unwind in the body (`exit(..)`,
    /// `panic!`). A print in one, called before serving, cannot be a help text whose value
    /// makes the caller leave.
    #[serde(default)]
    pub decide_nothing: Vec<ByteSpan>,
    /// The bodies of a builder's methods that set one field from their one parameter, and the
    /// field (`fn with_json(mut self, json: bool) -> Self { self.json = json; self }`).
    #[serde(default)]
    pub setters: Vec<(ByteSpan, String)>,
    /// `return Some(..)` in function bodies (not in their closures or `async` blocks): the
    /// code inside runs only on a way out that gives `Some`.
    #[serde(default)]
    pub some_returns: Vec<ByteSpan>,
}

/// In a [`FieldArg`]'s fields: a builder's method called with a `bool` literal
/// (`.with_json(true)`), by the method's name after this mark.
pub const SETTER: &str = "@";

/// In a [`FieldArg`]'s fields: any other call of the builder's chain (`.with_strict(strict)`),
/// by the method's name after this mark.
pub const OTHER_CALL: &str = "@?";

/// An arm of a `match` over an enum: its body, and the variants its pattern names (None for a
/// catch-all or a pattern of another shape).
pub type VariantArm = (ByteSpan, Option<Vec<String>>);

/// Whether every value of the variant `name` is one `listed` admits: `listed` is `name` or a
/// variant around it (`Some` covers `Some/Stdio`).
pub fn variant_covers(listed: &str, name: &str) -> bool {
    let mut names = name.split('/');
    listed
        .split('/')
        .all(|segment| names.next() == Some(segment))
}

/// Whether some value is of both variants: one is the other or around it.
pub fn variants_overlap(a: &str, b: &str) -> bool {
    a.split('/').zip(b.split('/')).all(|(x, y)| x == y)
}
