//! The command line: parse arguments, find the files, lint, print, and choose the exit status.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

use crate::discovery::{cargo_mode, path_mode};
use crate::output::Format;

const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  nothing was reported (or --exit-zero was given)
  1  diagnostics were reported
  2  the tool could not do its job: bad arguments, no Cargo.toml found in cargo mode,
     `cargo metadata` failed, an unreadable path, or an internal error

Modes:
  With no PATHS, cargo mode: the targets of the selected packages of the cargo workspace,
  following the module tree from each target's root. With PATHS, path mode: those files and
  every .rs file under those directories (honouring .gitignore, skipping target/).";

/// Finds MCP (Model Context Protocol) server code that answers requests the client cancelled,
/// and other protocol violations a syntax tree can show.
#[derive(Debug, Parser)]
#[command(
    name = "cargo mcp-lint",
    bin_name = "cargo mcp-lint",
    version,
    after_help = EXIT_STATUS_HELP
)]
pub struct Args {
    /// Files or directories to lint (path mode). Without them, lint the cargo workspace.
    pub paths: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,

    /// When to use colour in human output.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: Color,

    /// Exit with status 0 even when diagnostics are reported.
    #[arg(long)]
    pub exit_zero: bool,

    /// Path to Cargo.toml (cargo mode).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// Package to lint (cargo mode); may be given more than once.
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub packages: Vec<String>,

    /// Lint every package of the workspace (cargo mode).
    #[arg(long, alias = "all")]
    pub workspace: bool,

    /// Exclude a package from --workspace; may be given more than once.
    #[arg(long, value_name = "SPEC")]
    pub exclude: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// Arguments as the process got them, without the `mcp-lint` that cargo inserts when it runs
/// `cargo mcp-lint` as `cargo-mcp-lint mcp-lint ...`.
pub fn arguments() -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "mcp-lint") {
        args.remove(1);
    }
    args
}

fn fail(message: &str) -> ExitCode {
    let _ = writeln!(io::stderr(), "error: {message}");
    ExitCode::from(2)
}

/// Run the tool; the return value is the process's exit status.
pub fn run(raw: Vec<std::ffi::OsString>) -> ExitCode {
    let args = match Args::try_parse_from(raw) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(error) => return fail(&format!("cannot read the current directory: {error}")),
    };
    let cargo_flags = args.manifest_path.is_some()
        || !args.packages.is_empty()
        || args.workspace
        || !args.exclude.is_empty();
    let units = if args.paths.is_empty() {
        let options = cargo_mode::CargoOptions {
            manifest_path: args.manifest_path.clone(),
            packages: args.packages.clone(),
            workspace: args.workspace,
            exclude: args.exclude.clone(),
        };
        cargo_mode::discover(&options, &cwd)
    } else if cargo_flags {
        return fail(
            "PATHS cannot be combined with --manifest-path, --package, --workspace or --exclude",
        );
    } else {
        path_mode::discover(&args.paths)
    };
    let units = match units {
        Ok(units) => units,
        Err(error) => return fail(&error.to_string()),
    };

    let result = crate::engine::lint(&units, &cwd);

    let stdout_is_terminal = io::stdout().is_terminal();
    let choice = match (args.color, args.format) {
        (_, Format::Json) | (Color::Never, _) => ColorChoice::Never,
        (Color::Always, _) => ColorChoice::Always,
        (Color::Auto, _) if stdout_is_terminal && std::env::var_os("NO_COLOR").is_none() => {
            ColorChoice::Auto
        }
        (Color::Auto, _) => ColorChoice::Never,
    };
    let mut out = StandardStream::stdout(choice);
    if let Err(error) = args.format.emitter().emit(&result, &mut out) {
        if error.kind() != io::ErrorKind::BrokenPipe {
            return fail(&format!("cannot write the report: {error}"));
        }
    }
    let _ = out.flush();

    if result.diagnostics.is_empty() || args.exit_zero {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
