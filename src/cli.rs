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

    /// Apply the safe fixes, write the files, then report what is left.
    #[arg(long, help_heading = "Fixes")]
    pub fix: bool,

    /// With --fix or --diff, apply the unsafe fixes too.
    #[arg(long, help_heading = "Fixes")]
    pub unsafe_fixes: bool,

    /// Print a unified diff of what --fix would change, and write nothing.
    #[arg(long, conflicts_with = "fix", help_heading = "Fixes")]
    pub diff: bool,

    /// With --fix, exit with status 1 when any fix was applied, even if nothing is left.
    #[arg(long, help_heading = "Fixes")]
    pub exit_non_zero_on_fix: bool,

    /// With --fix, fix files that have uncommitted changes.
    #[arg(long, help_heading = "Fixes")]
    pub allow_dirty: bool,

    /// With --fix, fix files whose changes are staged but not committed.
    #[arg(long, help_heading = "Fixes")]
    pub allow_staged: bool,

    /// With --fix, fix files that are not in a git work tree.
    #[arg(long, help_heading = "Fixes")]
    pub allow_no_vcs: bool,
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

    if args.diff {
        return show_diff(&units, &cwd, &args);
    }
    let mut applied = 0;
    if args.fix {
        match apply_fixes(&units, &cwd, &args) {
            Ok(count) => applied = count,
            Err(status) => return status,
        }
    }

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

    if args.fix && applied > 0 {
        let files = if applied == 1 { "fix" } else { "fixes" };
        let _ = writeln!(
            io::stderr(),
            "Applied {applied} {files}; {} left.",
            result.diagnostics.len()
        );
    }
    let findings_left = !result.diagnostics.is_empty() && !args.exit_zero;
    if findings_left || (args.exit_non_zero_on_fix && applied > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn fix_options(args: &Args) -> crate::fix::FixOptions {
    crate::fix::FixOptions {
        unsafe_fixes: args.unsafe_fixes,
    }
}

/// `--diff`: what `--fix` would change, as a unified diff on stdout. Writes nothing.
fn show_diff(units: &[crate::engine::LintUnit], cwd: &std::path::Path, args: &Args) -> ExitCode {
    let run = crate::fix::fix(units, cwd, fix_options(args));
    for problem in &run.problems {
        let _ = writeln!(io::stderr(), "error: {problem}");
    }
    let diff = crate::fix::unified_diff(&run);
    let mut stdout = io::stdout();
    let _ = stdout.write_all(diff.as_bytes());
    let _ = stdout.flush();
    let applied = run.applied();
    let _ = writeln!(
        io::stderr(),
        "Would apply {applied} {} in {} {}.",
        if applied == 1 { "fix" } else { "fixes" },
        run.files.len(),
        if run.files.len() == 1 {
            "file"
        } else {
            "files"
        }
    );
    if !run.problems.is_empty() {
        ExitCode::from(2)
    } else if run.files.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `--fix`: compute the fixes, check the VCS guard, write the files. Returns how many fixes were
/// written, or the exit status to stop with.
fn apply_fixes(
    units: &[crate::engine::LintUnit],
    cwd: &std::path::Path,
    args: &Args,
) -> Result<usize, ExitCode> {
    let run = crate::fix::fix(units, cwd, fix_options(args));
    let paths: Vec<PathBuf> = run.files.iter().map(|f| f.path.clone()).collect();
    let vcs = crate::fix::vcs::VcsOptions {
        allow_dirty: args.allow_dirty,
        allow_staged: args.allow_staged,
        allow_no_vcs: args.allow_no_vcs,
    };
    if let Err(message) = crate::fix::vcs::check(&paths, vcs) {
        return Err(fail(&message));
    }
    let mut applied = 0;
    let mut failed = !run.problems.is_empty();
    for problem in &run.problems {
        let _ = writeln!(io::stderr(), "error: {problem}");
    }
    for file in &run.files {
        match crate::fix::write::write_fixed(&file.path, &file.original, &file.fixed) {
            Ok(()) => applied += file.applied,
            Err(error) => {
                failed = true;
                let _ = writeln!(
                    io::stderr(),
                    "error: `{}` was not fixed: {error}",
                    file.display_path
                );
            }
        }
    }
    if failed {
        // Report what is left all the same, then exit 2.
        let result = crate::engine::lint(units, cwd);
        let mut out = StandardStream::stdout(ColorChoice::Never);
        let _ = args.format.emitter().emit(&result, &mut out);
        return Err(ExitCode::from(2));
    }
    Ok(applied)
}
