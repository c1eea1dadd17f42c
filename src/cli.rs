//! The command line: parse arguments, load the settings, find the files, lint (or fix), print,
//! and choose the exit status.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream, WriteColor};

use crate::config::{self, CommandLineLevels, Level, Settings};
use crate::discovery::{cargo_mode, path_mode};
use crate::output::{channel, emit, Channel, Format};
use crate::report::Report;
use crate::result::LintResult;
use crate::unit::LintUnit;

const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  nothing was reported, or only warnings with --fail-on error (or --exit-zero was given)
  1  diagnostics were reported (with --fail-on error: errors; with --diff: there is a change;
     with --exit-non-zero-on-fix: a fix was applied)
  2  the tool could not do its job: bad arguments, a bad configuration, no Cargo.toml found in
     cargo mode, `cargo metadata` failed, an unreadable path, --fix refused by the VCS guard,
     or an internal error (MCP999: even with --exit-zero)

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
    after_help = EXIT_STATUS_HELP,
    group = clap::ArgGroup::new("fix_or_diff").args(["fix", "diff"])
)]
pub struct Args {
    /// Files or directories to lint (path mode). Without them, lint the cargo workspace.
    pub paths: Vec<PathBuf>,

    /// Output format [default: human; under GitHub Actions, human and github both].
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// `json`: cargo's JSON messages on stdout, one per line, for rust-analyzer's
    /// `check.overrideCommand` (`human` and `short` are --format human and concise).
    #[arg(long, value_enum, value_name = "FMT", conflicts_with = "format")]
    pub message_format: Option<MessageFormat>,

    /// Write the report in --format to this file; the human report still goes to the terminal.
    #[arg(long, value_name = "PATH")]
    pub output_file: Option<PathBuf>,

    /// When to use colour in human output.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: Color,

    /// Exit with status 0 even when diagnostics are reported.
    #[arg(long)]
    pub exit_zero: bool,

    /// Which findings make the exit status 1: `warning` (every finding, the default) or
    /// `error` (warnings are shown but pass) [config: fail-on].
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub fail_on: Option<FailOnArg>,

    /// Print the number of findings per rule (and how many are fixable) instead of the findings.
    #[arg(long)]
    pub statistics: bool,

    /// Parse every file, also those the pre-filter shows cannot matter to any rule (syntax
    /// errors are then reported in every file); implies --all-targets.
    #[arg(long)]
    pub all_files: bool,

    /// Lint test and bench targets too (and their shared files, and targets built only for
    /// test features): test code, which no rule judges, so by default they are not linted.
    #[arg(long)]
    pub all_targets: bool,

    /// Do not read or write the facts cache (mcp-lint/ in the cargo workspace's target
    /// directory; outside any cargo project, in the user's cache directory).
    #[arg(long)]
    pub no_cache: bool,

    /// Print no progress bar.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print on stderr, after the report, where the run spent its time: per phase, wall time,
    /// CPU time (all threads), cores kept busy and files touched.
    #[arg(long)]
    pub timings: bool,

    /// Path to Cargo.toml (cargo mode).
    #[arg(long, value_name = "PATH", help_heading = "Package selection")]
    pub manifest_path: Option<PathBuf>,

    /// Package to lint (cargo mode); may be given more than once.
    #[arg(
        short = 'p',
        long = "package",
        value_name = "SPEC",
        help_heading = "Package selection"
    )]
    pub packages: Vec<String>,

    /// Lint every package of the workspace (cargo mode).
    #[arg(long, alias = "all", help_heading = "Package selection")]
    pub workspace: bool,

    /// Exclude a package from --workspace; may be given more than once.
    #[arg(long, value_name = "SPEC", help_heading = "Package selection")]
    pub exclude: Vec<String>,

    /// Report only findings in files changed since this git revision (committed, staged,
    /// unstaged or untracked).
    #[arg(long, value_name = "REF", help_heading = "Package selection")]
    pub changed_since: Option<String>,

    /// Set a rule (code, name, or `all`) to allow; may be repeated.
    #[arg(
        short = 'A',
        long = "allow",
        value_name = "RULE",
        help_heading = "Rules"
    )]
    pub allow: Vec<String>,

    /// Set a rule (code, name, or `all`) to warn; may be repeated.
    #[arg(
        short = 'W',
        long = "warn",
        value_name = "RULE",
        help_heading = "Rules"
    )]
    pub warn: Vec<String>,

    /// Set a rule (code, name, or `all`) to deny (error); may be repeated.
    #[arg(
        short = 'D',
        long = "deny",
        value_name = "RULE",
        help_heading = "Rules"
    )]
    pub deny: Vec<String>,

    /// The MCP protocol version(s) the server targets (2025-11-25, 2026-07-28; repeatable),
    /// instead of the configuration's `protocol-versions` (default: both).
    #[arg(long = "protocol-version", value_name = "VERSION", value_parser = ["2025-11-25", "2026-07-28"], help_heading = "Rules")]
    pub protocol_versions: Vec<String>,

    /// Run the rules (and shapes of rules) in preview too: not yet precise enough to be on by
    /// default. Overrides the configuration's `preview`.
    #[arg(long, overrides_with = "no_preview", help_heading = "Rules")]
    pub preview: bool,

    /// Do not run the rules in preview, even if the configuration says `preview = true`.
    #[arg(long, overrides_with = "preview", help_heading = "Rules")]
    pub no_preview: bool,

    /// Use this configuration file instead of looking for mcp-lint.toml, .mcp-lint.toml or
    /// Cargo.toml metadata.
    #[arg(long, value_name = "PATH", help_heading = "Rules")]
    pub config: Option<PathBuf>,

    /// Print the effective configuration and exit.
    #[arg(long, help_heading = "Rules")]
    pub show_settings: bool,

    /// Print a rule's documentation and exit.
    #[arg(long, value_name = "RULE", help_heading = "Rules")]
    pub explain: Option<String>,

    /// Print the table of rules and exit.
    #[arg(long, help_heading = "Rules")]
    pub list_rules: bool,

    /// Report only findings that are not in this baseline file.
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub baseline: Option<PathBuf>,

    /// Record the current findings in this baseline file, and exit 0.
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub write_baseline: Option<PathBuf>,

    /// Apply the safe fixes, write the files, then report what is left.
    #[arg(long, help_heading = "Fixes")]
    pub fix: bool,

    /// With --fix or --diff, apply the unsafe fixes too.
    #[arg(long, requires = "fix_or_diff", help_heading = "Fixes")]
    pub unsafe_fixes: bool,

    /// Print a unified diff of what --fix would change, and write nothing.
    #[arg(long, conflicts_with = "fix", help_heading = "Fixes")]
    pub diff: bool,

    /// With --fix, exit with status 1 when any fix was applied, even if nothing is left.
    #[arg(long, requires = "fix", help_heading = "Fixes")]
    pub exit_non_zero_on_fix: bool,

    /// With --fix, fix files that have uncommitted changes.
    #[arg(long, requires = "fix", help_heading = "Fixes")]
    pub allow_dirty: bool,

    /// With --fix, fix files whose changes are staged but not committed.
    #[arg(long, requires = "fix", help_heading = "Fixes")]
    pub allow_staged: bool,

    /// With --fix, fix files that are not in a git work tree.
    #[arg(long, requires = "fix", help_heading = "Fixes")]
    pub allow_no_vcs: bool,
}

/// `--message-format`'s values, as cargo spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    Human,
    Short,
    Json,
}

/// `--fail-on`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOnArg {
    Error,
    Warning,
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
    let _ = writeln!(io::stderr(), "error: {}", crate::escape::lines(message));
    ExitCode::from(2)
}

/// The `-A`/`-W`/`-D` flags in the order they were given.
fn command_line_levels(matches: &ArgMatches) -> CommandLineLevels {
    let mut levels: Vec<(usize, Level, String)> = Vec::new();
    for (id, level) in [
        ("allow", Level::Allow),
        ("warn", Level::Warn),
        ("deny", Level::Deny),
    ] {
        if let (Some(values), Some(indices)) =
            (matches.get_many::<String>(id), matches.indices_of(id))
        {
            for (value, index) in values.zip(indices) {
                levels.push((index, level, value.clone()));
            }
        }
    }
    levels.sort_by_key(|(index, _, _)| *index);
    levels
        .into_iter()
        .map(|(_, level, name)| (level, name))
        .collect()
}

/// Show a configuration error with the configuration file's own line.
fn config_failure(error: &config::ConfigError) -> ExitCode {
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::files::SimpleFile;
    // The configuration is the tree's: its name, text and the keys quoted in the message are
    // shown escaped, as the report shows source text.
    let name = crate::escape::inline(&error.path.display().to_string()).into_owned();
    let text = crate::escape::source_text(&error.text);
    let file = SimpleFile::new(name.as_str(), text.as_ref());
    let mut diagnostic = Diagnostic::error().with_message(format!(
        "invalid configuration: {}",
        crate::escape::inline(error.message.trim())
    ));
    match &error.span {
        Some(span) if !error.text.is_empty() => {
            let end = span.end.min(error.text.len());
            let start = span.start.min(end);
            diagnostic = diagnostic.with_labels(vec![Label::primary((), start..end)]);
        }
        _ => diagnostic = diagnostic.with_notes(vec![format!("in {name}")]),
    }
    let choice = if io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    let mut stderr = StandardStream::stderr(choice);
    let mut guard = crate::escape::Guard::new(&mut stderr);
    let config = codespan_reporting::term::Config::default();
    let shown =
        codespan_reporting::term::emit_to_write_style(&mut guard, &config, &file, &diagnostic);
    if shown.is_err() || guard.finish().is_err() {
        let _ = writeln!(
            io::stderr(),
            "error: {}",
            crate::escape::inline(&error.to_string())
        );
    }
    ExitCode::from(2)
}

/// Run the tool; the return value is the process's exit status.
pub fn run(raw: Vec<std::ffi::OsString>) -> ExitCode {
    let (matches, mut args) = match parse_arguments(raw) {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    match args.message_format {
        Some(MessageFormat::Human) => args.format = Some(Format::Human),
        Some(MessageFormat::Short) => args.format = Some(Format::Concise),
        _ => {}
    }
    if let Some(status) = print_rules(&args) {
        return status;
    }
    if args.timings {
        crate::timings::enable();
    }
    let status = execute(&matches, args);
    if let Some(report) = crate::timings::report() {
        let _ = write!(io::stderr(), "{report}");
    }
    status
}

/// What the run names is the tree's: no program is taken from it, no link in it is followed to
/// write (see `tree::tops`).
fn name_the_tree(args: &Args, cwd: &std::path::Path) {
    for path in args
        .paths
        .iter()
        .chain(&args.manifest_path)
        .chain(&args.config)
    {
        crate::tree::add(&cwd.join(path));
    }
}

/// `--show-settings`: the tree's configuration values are in it, so it goes through the last
/// escaping step of a channel for people.
fn show_settings(settings: &Settings) -> ExitCode {
    let mut stdout = StandardStream::stdout(ColorChoice::Never);
    let mut guard = crate::escape::Guard::new(&mut stdout);
    let _ = write!(guard, "{}", settings.show());
    let _ = guard.finish();
    ExitCode::SUCCESS
}

/// The run, once the arguments are read.
fn execute(matches: &ArgMatches, args: Args) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(error) => return fail(&format!("cannot read the current directory: {error}")),
    };
    name_the_tree(&args, &cwd);
    let settings = match build_settings(&args, matches, &cwd) {
        Ok(settings) => settings,
        Err(status) => return status,
    };
    if args.show_settings {
        return show_settings(&settings);
    }

    let discovered = crate::timings::phase(
        "discover",
        || discover(&args, &cwd),
        |found| {
            found.as_ref().map_or(0, |(units, _)| {
                units.iter().map(|u| u.all_files().count()).sum()
            })
        },
    );
    let (units, unreadable) = match discovered {
        Ok(found) => found,
        Err(status) => return status,
    };

    if args.diff {
        return show_diff(&units, &cwd, &args, &settings);
    }
    let mut applied = 0;
    if args.fix {
        match apply_fixes(&units, &cwd, &args, &settings) {
            Ok(count) => applied = count,
            Err(status) => return status,
        }
    }

    let mut result = lint(&units, &cwd, &args, &settings);
    crate::engine::report_unreadable_manifests(&mut result, &unreadable, &cwd, &settings);
    if let Some(revision) = &args.changed_since {
        if let Err(message) = crate::changed::retain_changed(&mut result, &cwd, revision) {
            return fail(&message);
        }
    }
    let root = crate::report::repository_root(&cwd);

    if let Some(path) = &args.write_baseline {
        if let Some(status) = internal_error_status(&result) {
            return status;
        }
        return match crate::baseline::record(path, &result, root) {
            Ok(line) => {
                let _ = writeln!(io::stderr(), "{}", crate::escape::lines(&line));
                ExitCode::SUCCESS
            }
            Err(message) => fail(&message),
        };
    }
    if let Some(path) = &args.baseline {
        match crate::baseline::filter(path, &mut result, root.clone()) {
            Ok(Some(note)) => {
                let _ = writeln!(io::stderr(), "{}", crate::escape::lines(&note));
            }
            Ok(None) => {}
            Err(message) => return fail(&message),
        }
    }

    let printed = crate::timings::phase("output", || print_report(&args, &result, root), |_| 0);
    if let Err(status) = printed {
        return status;
    }

    if args.fix && applied > 0 {
        let fixes = if applied == 1 { "fix" } else { "fixes" };
        let _ = writeln!(
            io::stderr(),
            "Applied {applied} {fixes}; {} left.",
            result.diagnostics.len()
        );
    }
    if let Some(status) = internal_error_status(&result) {
        return status;
    }
    let findings_left = !args.exit_zero
        && result
            .diagnostics
            .iter()
            .any(|d| settings.fail_on.fails(d.severity));
    if findings_left || (args.exit_non_zero_on_fix && applied > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The arguments, or the exit status to stop with (after printing the error, or the help or
/// version asked for).
fn parse_arguments(raw: Vec<std::ffi::OsString>) -> Result<(ArgMatches, Args), ExitCode> {
    let matches = match Args::command().try_get_matches_from(raw) {
        Ok(matches) => matches,
        Err(error) => {
            let _ = error.print();
            return Err(if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            });
        }
    };
    match Args::from_arg_matches(&matches) {
        Ok(args) => Ok((matches, args)),
        Err(error) => {
            let _ = error.print();
            Err(ExitCode::from(2))
        }
    }
}

/// `--list-rules` and `--explain`: print, and the exit status; `None` when neither was asked for.
fn print_rules(args: &Args) -> Option<ExitCode> {
    if args.list_rules {
        print!("{}", crate::rules::table());
        return Some(ExitCode::SUCCESS);
    }
    let rule = args.explain.as_ref()?;
    Some(match crate::rules::find(rule) {
        Some(rule) => {
            print!("{}", rule.meta().docs);
            ExitCode::SUCCESS
        }
        None => fail(&format!(
            "unknown rule `{rule}` (see `cargo mcp-lint --list-rules`)"
        )),
    })
}

/// The settings of the run: the configuration (found from the manifest's directory or `cwd`, or
/// named), with the command line's levels, protocol versions and cache over it.
fn build_settings(args: &Args, matches: &ArgMatches, cwd: &Path) -> Result<Settings, ExitCode> {
    let config_start = match &args.manifest_path {
        Some(manifest) => cwd
            .join(manifest)
            .parent()
            .map_or(cwd.to_path_buf(), Path::to_path_buf),
        None => cwd.to_path_buf(),
    };
    let mut settings = match config::load(&config_start, args.config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => return Err(config_failure(&error)),
    };
    if let Err(message) = settings.apply_command_line(&command_line_levels(matches)) {
        return Err(fail(&message));
    }
    if args.preview || args.no_preview {
        settings.preview = args.preview;
    }
    for warning in settings.preview_warnings() {
        let _ = writeln!(io::stderr(), "warning: {}", crate::escape::lines(&warning));
    }
    settings.analyse_every_file = args.all_files;
    match args.fail_on {
        Some(FailOnArg::Error) => settings.fail_on = config::FailOn::Error,
        Some(FailOnArg::Warning) => settings.fail_on = config::FailOn::Warning,
        None => {}
    }
    if !args.protocol_versions.is_empty() {
        settings.protocol_versions = args
            .protocol_versions
            .iter()
            .map(|v| match v.as_str() {
                "2025-11-25" => config::ProtocolVersion::V2025_11_25,
                _ => config::ProtocolVersion::V2026_07_28,
            })
            .collect();
    }
    if !args.no_cache {
        // In the target directory of the cargo workspace being linted (never through a link the
        // tree holds), or the user's cache directory outside any cargo project.
        let start = match (args.paths.first(), &args.manifest_path) {
            (Some(path), _) => path.clone(),
            (None, Some(manifest)) => manifest.parent().map_or(PathBuf::new(), Path::to_path_buf),
            (None, None) => PathBuf::new(),
        };
        settings.cache_directory = crate::discovery::cache_directory(&start, cwd);
    }
    Ok(settings)
}

/// Lint the units, with a progress line when the run is long.
fn lint(units: &[LintUnit], cwd: &Path, args: &Args, settings: &Settings) -> LintResult {
    let progress = Progress::new(args);
    let result = crate::engine::lint_observed(units, cwd, &Default::default(), settings, &|| {
        progress.tick()
    });
    progress.finish();
    result
}

/// Exit status 2 when the run reported an internal error (MCP999), whatever `--exit-zero` says:
/// the tool could not do all of its job. Says so on stderr, naming the files.
fn internal_error_status(result: &LintResult) -> Option<ExitCode> {
    let mut files: Vec<&str> = result
        .diagnostics
        .iter()
        .filter(|d| crate::rules::internal_error::is_internal_error(d))
        .filter_map(|d| result.sources.get(d.file))
        .map(|s| s.display_path.as_str())
        .collect();
    files.dedup();
    if files.is_empty() {
        return None;
    }
    let _ = writeln!(
        io::stderr(),
        "error: cargo-mcp-lint failed on {} {} because of an internal error (MCP999: {}), a bug in \
         the tool; the other files were linted (see `cargo mcp-lint --explain MCP999`)",
        files.len(),
        if files.len() == 1 { "file" } else { "files" },
        crate::escape::inline(&files.join(", "))
    );
    Some(ExitCode::from(2))
}

/// A progress line on stderr, shown only for runs that last more than about a second, and never
/// when stderr is not a terminal, with `--quiet`, or when stdout carries a machine format.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    shown: std::sync::atomic::AtomicBool,
}

impl Progress {
    fn new(args: &Args) -> Self {
        let wanted = !args.quiet
            && io::stderr().is_terminal()
            && !args.format.is_some_and(Format::is_machine)
            && args.message_format != Some(MessageFormat::Json);
        let bar = wanted.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::hidden(),
            );
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{spinner} linting: {pos} files read ({elapsed})",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            shown: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn tick(&self) {
        let Some(bar) = &self.bar else { return };
        bar.inc(1);
        if bar.elapsed() > std::time::Duration::from_secs(1)
            && !self.shown.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The units to lint, and the manifests that could not be read (reported beside the findings).
type Discovered = (
    Vec<LintUnit>,
    Vec<crate::discovery::manifests::ManifestProblem>,
);

fn discover(args: &Args, cwd: &Path) -> Result<Discovered, ExitCode> {
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
        cargo_mode::discover_reporting(&options, cwd).map(|found| {
            for note in &found.notes {
                let _ = writeln!(io::stderr(), "warning: {}", crate::escape::lines(note));
            }
            (found.units, found.unreadable)
        })
    } else if cargo_flags {
        return Err(fail(
            "PATHS cannot be combined with --manifest-path, --package, --workspace or --exclude",
        ));
    } else {
        path_mode::discover_reporting(&args.paths).map(|(units, problems)| {
            for problem in problems {
                let _ = writeln!(io::stderr(), "warning: {}", crate::escape::lines(&problem));
            }
            (units, Vec::new())
        })
    };
    let units = units.map_err(|error| fail(&error.to_string()))?;
    if args.all_targets || args.all_files {
        return Ok(units);
    }
    let (units, unreadable) = units;
    Ok((
        crate::discovery::product_units(units, &args.paths),
        unreadable,
    ))
}

fn color_choice(args: &Args, terminal: bool) -> ColorChoice {
    match args.color {
        Color::Never => ColorChoice::Never,
        Color::Always => ColorChoice::Always,
        Color::Auto if terminal && std::env::var_os("NO_COLOR").is_none() => ColorChoice::Auto,
        Color::Auto => ColorChoice::Never,
    }
}

/// Write `--output-file` without following a link: the path may be named by the linted tree's
/// CI (`mcp-lint.sarif`, `reports/mcp-lint.sarif`), where a committed symbolic link of that name,
/// or of a directory on the way, would redirect the write to any file the runner can write.
fn write_output_file(path: &std::path::Path, bytes: &[u8]) -> io::Result<()> {
    crate::tree::write_file(path, bytes)
}

/// Print the report: the chosen format on stdout (or in --output-file, with the human report on
/// the terminal), the human report and annotations both under GitHub Actions, or statistics.
fn print_report(args: &Args, result: &LintResult, root: Option<PathBuf>) -> Result<(), ExitCode> {
    let report = Report { result, root };
    let terminal = io::stdout().is_terminal();
    let mut stdout = StandardStream::stdout(color_choice(args, terminal));
    let human = crate::output::human::Human;
    let outcome = (|| -> io::Result<()> {
        if args.message_format == Some(MessageFormat::Json) {
            let mut plain = StandardStream::stdout(ColorChoice::Never);
            let cargo_json = crate::output::cargo_json::CargoJson;
            emit(&cargo_json, Channel::Json, &report, &mut plain)?;
            plain.flush()?;
        } else if args.statistics {
            let mut guard = crate::escape::Guard::new(&mut stdout);
            match args.format {
                Some(Format::Json) => crate::statistics::write_json(&mut guard, result)?,
                _ => crate::statistics::write(&mut guard, result)?,
            }
            guard.finish()?;
        } else if let Some(path) = &args.output_file {
            let format = args.format.unwrap_or(Format::Human);
            let mut buffer = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
            emit(&*format.emitter(), channel(format), &report, &mut buffer)?;
            write_output_file(path, &buffer.into_inner())?;
            emit(&human, Channel::People, &report, &mut stdout)?;
        } else {
            match args.format {
                Some(format) if format.is_machine() => {
                    let mut plain = StandardStream::stdout(ColorChoice::Never);
                    emit(&*format.emitter(), channel(format), &report, &mut plain)?;
                    plain.flush()?;
                }
                Some(format) => emit(&*format.emitter(), channel(format), &report, &mut stdout)?,
                None => {
                    emit(&human, Channel::People, &report, &mut stdout)?;
                    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
                        let github = crate::output::github::Github;
                        emit(&github, Channel::Annotations, &report, &mut stdout)?;
                    }
                }
            }
        }
        stdout.flush()
    })();
    match outcome {
        Ok(()) => Ok(()),
        Err(error) if is_broken_pipe(&error) => Ok(()),
        Err(error) => Err(fail(&format!("cannot write the report: {error}"))),
    }
}

/// Whether writing failed because the reader went (`| head`), also when the error comes wrapped
/// by the snippet renderer.
fn is_broken_pipe(error: &io::Error) -> bool {
    use codespan_reporting::files::Error as FilesError;
    error.kind() == io::ErrorKind::BrokenPipe
        || error.get_ref().is_some_and(|inner| {
            inner
                .downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
                || matches!(
                    inner.downcast_ref::<FilesError>(),
                    Some(FilesError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe
                )
        })
}

fn fix_options(args: &Args) -> crate::fix::FixOptions {
    crate::fix::FixOptions {
        unsafe_fixes: args.unsafe_fixes,
    }
}

/// `--diff`: what `--fix` would change, as a unified diff on stdout. Writes nothing.
fn show_diff(units: &[LintUnit], cwd: &Path, args: &Args, settings: &Settings) -> ExitCode {
    let run = crate::fix::fix_from(units, cwd, fix_options(args), Default::default(), settings);
    for problem in &run.problems {
        let _ = writeln!(io::stderr(), "error: {}", crate::escape::lines(problem));
    }
    let root = crate::report::repository_root(cwd).and_then(|r| std::fs::canonicalize(r).ok());
    let diff = crate::fix::unified_diff(&run, root.as_deref());
    let mut stdout = StandardStream::stdout(color_choice(args, io::stdout().is_terminal()));
    let mut guard = crate::escape::Guard::new(&mut stdout);
    let _ = write_diff(&mut guard, &diff);
    let _ = guard.finish();
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

/// A unified diff, coloured as git colours one when the stream takes colour: headers bold,
/// hunk lines cyan, removed lines red, added lines green.
fn write_diff(out: &mut dyn WriteColor, diff: &str) -> io::Result<()> {
    use codespan_reporting::term::termcolor::{Color as Colour, ColorSpec};
    for line in diff.split_inclusive('\n') {
        let mut spec = ColorSpec::new();
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            spec.set_bold(true);
        } else if line.starts_with("@@") {
            spec.set_fg(Some(Colour::Cyan));
        } else if line.starts_with('-') {
            spec.set_fg(Some(Colour::Red));
        } else if line.starts_with('+') {
            spec.set_fg(Some(Colour::Green));
        }
        out.set_color(&spec)?;
        let (text, ending) = match line.strip_suffix('\n') {
            Some(text) => (text, "\n"),
            None => (line, ""),
        };
        out.write_all(text.as_bytes())?;
        out.reset()?;
        out.write_all(ending.as_bytes())?;
    }
    Ok(())
}

/// `--fix`: compute the fixes, check the VCS guard, write the files. Returns how many fixes were
/// written, or the exit status to stop with.
fn apply_fixes(
    units: &[LintUnit],
    cwd: &Path,
    args: &Args,
    settings: &Settings,
) -> Result<usize, ExitCode> {
    let options = crate::fix::apply::ApplyOptions {
        fix: fix_options(args),
        vcs: crate::fix::vcs::VcsOptions {
            allow_dirty: args.allow_dirty,
            allow_staged: args.allow_staged,
            allow_no_vcs: args.allow_no_vcs,
        },
        // Only files inside what was asked for are written: the named paths, or the packages.
        roots: crate::fix::apply::write_roots(units, &args.paths, cwd),
    };
    let applied = crate::fix::apply::apply_and_write(units, cwd, &options, settings)
        .map_err(|message| fail(&message))?;
    for problem in &applied.problems {
        let _ = writeln!(io::stderr(), "error: {}", crate::escape::lines(problem));
    }
    if !applied.problems.is_empty() {
        // Report what is left all the same, then exit 2.
        let result = crate::engine::lint_with(units, cwd, &Default::default(), settings);
        let _ = print_report(args, &result, crate::report::repository_root(cwd));
        return Err(ExitCode::from(2));
    }
    Ok(applied.fixes)
}
