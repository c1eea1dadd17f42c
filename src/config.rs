//! Configuration: `mcp-lint.toml` or `.mcp-lint.toml`, or `[workspace.metadata.mcp-lint]` /
//! `[package.metadata.mcp-lint]` in `Cargo.toml`, joined with the command line's levels into the
//! [`Settings`] of a run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::analysis::vocabulary::Vocabulary;
use crate::diagnostic::Severity;
pub use crate::protocol::ProtocolVersion;
use crate::rules;
pub use crate::settings::{ConfigSource, FailOn, Level, Settings, DEFAULT_MAX_FILE_SIZE};

/// The configuration file's contents.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// Rule levels, by code or name.
    #[serde(default)]
    pub rules: BTreeMap<Spanned<String>, Level>,
    /// Paths (globs, relative to the configuration's directory) never linted.
    #[serde(default)]
    pub exclude: Vec<Spanned<String>>,
    /// Rule levels for some paths.
    #[serde(default)]
    pub overrides: Vec<Override>,
    /// More names for the analysis.
    #[serde(default)]
    pub vocabulary: VocabularyConfig,
    /// The protocol versions the server targets (default: both).
    #[serde(default)]
    pub protocol_versions: Option<Vec<ProtocolVersion>>,
    /// Suppression comments must give a reason (`-- reason`).
    #[serde(default)]
    pub require_suppression_reason: bool,
    /// The MCP SDK and version to assume, instead of reading them from Cargo.lock.
    #[serde(default)]
    pub sdk: Option<Spanned<SdkConfig>>,
    /// Files larger than this many MiB are reported and not analysed (default 8).
    #[serde(default)]
    pub max_file_size_mib: Option<u64>,
    /// Preview mode: the rules (and shapes of rules) in preview run too (default false).
    #[serde(default)]
    pub preview: bool,
    /// Which findings fail the run: `"warning"` (default: errors and warnings) or `"error"`.
    #[serde(default)]
    pub fail_on: Option<FailOn>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SdkConfig {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Override {
    pub paths: Vec<Spanned<String>>,
    #[serde(default)]
    pub rules: BTreeMap<Spanned<String>, Level>,
}

/// `[vocabulary]`; `--show-settings` prints it with the same keys.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct VocabularyConfig {
    #[serde(default)]
    pub sink_calls: Vec<String>,
    #[serde(default)]
    pub sink_paths: Vec<String>,
    #[serde(default)]
    pub cancel_hooks: Vec<String>,
    #[serde(default)]
    pub cancel_notifications: Vec<String>,
    #[serde(default)]
    pub request_tokens: Vec<String>,
    #[serde(default)]
    pub shutdown_tokens: Vec<String>,
    #[serde(default)]
    pub request_handlers: Vec<String>,
}

/// A configuration error, with the file and the byte range it is about, for a spanned report.
#[derive(Debug, Clone)]
pub struct ConfigError {
    pub path: PathBuf,
    pub text: String,
    pub span: Option<std::ops::Range<usize>>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Rule levels given on the command line, in the order given.
pub type CommandLineLevels = Vec<(Level, String)>;

/// The word that names every rule in a level.
const ALL: &str = "all";

/// The rule codes a level names: a code, a name, or `all`.
fn codes_for(name: &str) -> Option<Vec<&'static str>> {
    if name == ALL {
        return Some(rules::registry().iter().map(|r| r.meta().code).collect());
    }
    rules::find(name).map(|r| vec![r.meta().code])
}

impl Settings {
    /// Apply command-line levels (`-A`, `-W`, `-D`), later ones winning.
    pub fn apply_command_line(&mut self, levels: &CommandLineLevels) -> Result<(), String> {
        for (level, name) in levels {
            let codes = codes_for(name).ok_or_else(|| {
                format!("unknown rule `{name}` (see `cargo mcp-lint --list-rules`)")
            })?;
            if name != ALL {
                self.named.extend(codes.iter().copied());
            }
            for code in codes {
                self.command_line.insert(code, *level);
            }
        }
        Ok(())
    }

    /// The warnings of a run without preview mode that names a preview rule (by its code or
    /// name, in the configuration's levels or on the command line) and leaves it able to report:
    /// the rule does not run all the same. One per rule. Naming it `allow`, or selecting it only
    /// through `all`, earns none.
    pub fn preview_warnings(&self) -> Vec<String> {
        if self.preview {
            return Vec::new();
        }
        self.named
            .iter()
            .filter_map(|code| rules::find(code))
            .map(|rule| rule.meta())
            .filter(|m| m.is_preview() && self.may_report(m.code))
            .map(|m| {
                format!(
                    "`{}` (`{}`) is a preview rule: it does not run without preview mode \
                     (`--preview`, or `preview = true` in the configuration), so naming it \
                     has no effect",
                    m.code, m.name
                )
            })
            .collect()
    }

    /// The effective settings for `--show-settings`: a configuration file, with every key spelt
    /// as the configuration spells it, that gives these settings when read back from the same
    /// directory (what comes from elsewhere, such as the file it came from, is in comments).
    pub fn show(&self) -> String {
        /// The configuration's keys (`Config`'s), but for `[rules]`, written below.
        #[derive(Serialize)]
        #[serde(rename_all = "kebab-case")]
        struct Shown<'a> {
            preview: bool,
            fail_on: FailOn,
            protocol_versions: &'a [ProtocolVersion],
            require_suppression_reason: bool,
            max_file_size_mib: u64,
            exclude: &'a [String],
            vocabulary: VocabularyConfig,
            overrides: Vec<ShownOverride>,
            #[serde(skip_serializing_if = "Option::is_none")]
            sdk: Option<ShownSdk>,
        }
        #[derive(Serialize)]
        struct ShownOverride {
            paths: Vec<String>,
            rules: BTreeMap<String, Level>,
        }
        #[derive(Serialize)]
        struct ShownSdk {
            name: String,
            version: String,
        }
        let v = &self.vocabulary;
        let shown = Shown {
            preview: self.preview,
            fail_on: self.fail_on,
            protocol_versions: &self.protocol_versions,
            require_suppression_reason: self.require_suppression_reason,
            max_file_size_mib: self.max_file_size / (1024 * 1024),
            exclude: &self.exclude_patterns,
            vocabulary: VocabularyConfig {
                sink_calls: v.sink_calls.clone(),
                sink_paths: v.sink_paths.clone(),
                cancel_hooks: v.cancel_hooks.clone(),
                cancel_notifications: v.cancel_notifications.clone(),
                request_tokens: v.request_tokens.clone(),
                shutdown_tokens: v.shutdown_tokens.clone(),
                request_handlers: v.request_handlers.clone(),
            },
            overrides: self
                .overrides
                .iter()
                .map(|(_, paths, levels)| ShownOverride {
                    paths: paths.clone(),
                    rules: levels
                        .iter()
                        .map(|(code, level)| (code.to_string(), *level))
                        .collect(),
                })
                .collect(),
            sdk: self.sdk.as_ref().map(|sdk| ShownSdk {
                name: sdk.name.crate_name().to_string(),
                version: sdk.version.to_string(),
            }),
        };
        let mut out = self.show_header();
        match toml::to_string_pretty(&shown) {
            Ok(text) => out.push_str(&text),
            Err(error) => out.push_str(&format!("# cannot show the settings: {error}\n")),
        }
        self.show_rules(&mut out);
        out
    }

    /// The comments `--show-settings` starts with: where the settings come from, and what only
    /// the command line sets.
    fn show_header(&self) -> String {
        let source = match &self.source {
            ConfigSource::File(p) => format!("{:?}", p.display().to_string()),
            ConfigSource::CargoMetadata(p) => {
                format!("{:?} (metadata.mcp-lint)", p.display().to_string())
            }
            ConfigSource::Default => "none found (these are the defaults)".to_string(),
        };
        let mut out = format!(
            "# The settings in force, as a configuration file (mcp-lint.toml): read back from the\n\
             # root below, it gives the same settings.\n\
             # configuration: {source}\n\
             # root (paths are relative to it): {:?}\n",
            self.root.display().to_string()
        );
        if self.sdk.is_none() {
            out.push_str("# sdk: read from each package's Cargo.lock\n");
        }
        out.push_str(&format!(
            "# command line only: all files parsed (--all-files): {}; facts cache (--no-cache): {}\n",
            if self.analyse_every_file { "yes" } else { "no" },
            match &self.cache_directory {
                Some(dir) => format!("{:?}", dir.display().to_string()),
                None => "off".to_string(),
            }
        ));
        out
    }

    /// The `[rules]` table of `--show-settings`: every rule's level.
    fn show_rules(&self, out: &mut String) {
        out.push_str("\n[rules]\n");
        for rule in rules::registry() {
            let m = rule.meta();
            let set = self
                .command_line
                .get(m.code)
                .or(self.levels.get(m.code))
                .copied();
            let level = match (set, m.default_severity) {
                (Some(level), _) => Some(level),
                (None, Severity::Error) => Some(Level::Deny),
                (None, Severity::Warning) => Some(Level::Warn),
                // No level gives a note: leave the rule at its default.
                (None, Severity::Note) => None,
            };
            let name = level.map_or("note", |l| match l {
                Level::Allow => "allow",
                Level::Warn => "warn",
                Level::Deny => "deny",
            });
            let default = if set.is_none() { ", the default" } else { "" };
            let status = match (m.is_preview(), self.preview) {
                (false, _) => "",
                (true, true) => ", in preview",
                (true, false) => ", in preview: does not run without `preview = true`",
            };
            let line = format!("{} = \"{name}\"", m.code);
            match level {
                Some(_) => out.push_str(&format!("{line:<17}# {}{default}{status}\n", m.name)),
                None => out.push_str(&format!("# {line}  ({}{default}{status})\n", m.name)),
            }
        }
    }
}

#[derive(Deserialize)]
struct Manifest {
    package: Option<MetadataHolder>,
    workspace: Option<MetadataHolder>,
}

#[derive(Deserialize)]
struct MetadataHolder {
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(rename = "mcp-lint")]
    mcp_lint: Option<Config>,
}

const FILE_NAMES: &[&str] = &["mcp-lint.toml", ".mcp-lint.toml"];

/// A configuration found in `dir` is read only if it lies there once links are resolved: a
/// committed `mcp-lint.toml` that links to `/etc/passwd` or `~/.git-credentials` must not have
/// its lines shown in a configuration error (nor its keys in a parser's message).
fn confined(path: &Path, dir: &Path) -> Result<(), ConfigError> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let home = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if real.starts_with(&home) {
        return Ok(());
    }
    Err(ConfigError {
        path: path.to_path_buf(),
        text: String::new(),
        span: None,
        message: format!(
            "the configuration is a link to `{}`, outside its directory, so it was not read",
            real.display()
        ),
    })
}

fn read(path: &Path) -> Result<String, ConfigError> {
    let error = |message: String| ConfigError {
        path: path.to_path_buf(),
        text: String::new(),
        span: None,
        message,
    };
    let limit = crate::bounded::MAX_CONFIG_SIZE;
    let (bytes, more) = crate::bounded::read_capped(path, limit)
        .map_err(|e| error(format!("cannot read the configuration: {e}")))?;
    if more {
        return Err(error(format!(
            "the configuration is larger than {} KiB",
            limit / 1024
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| error("cannot read the configuration: it is not valid UTF-8".to_string()))
}

fn parse_config(path: &Path, text: &str) -> Result<Config, ConfigError> {
    toml::from_str::<Config>(text).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        span: e.span(),
        message: e.message().to_string(),
    })
}

fn parse_manifest(path: &Path, text: &str) -> Result<Option<Config>, ConfigError> {
    let manifest: Manifest = toml::from_str(text).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        span: e.span(),
        message: e.message().to_string(),
    })?;
    let from =
        |holder: Option<MetadataHolder>| holder.and_then(|h| h.metadata).and_then(|m| m.mcp_lint);
    Ok(from(manifest.package).or_else(|| from(manifest.workspace)))
}

/// Find the configuration for a run started in `start`: the nearest directory (going up) with
/// `mcp-lint.toml`, `.mcp-lint.toml`, or a `Cargo.toml` holding `metadata.mcp-lint`.
pub fn discover(
    start: &Path,
) -> Result<Option<(ConfigSource, PathBuf, String, Config)>, ConfigError> {
    for dir in start.ancestors() {
        for name in FILE_NAMES {
            let path = dir.join(name);
            if path.is_file() {
                confined(&path, dir)?;
                let text = read(&path)?;
                let config = parse_config(&path, &text)?;
                return Ok(Some((
                    ConfigSource::File(path.clone()),
                    dir.to_path_buf(),
                    text,
                    config,
                )));
            }
        }
        let manifest = dir.join("Cargo.toml");
        if manifest.is_file() {
            confined(&manifest, dir)?;
            let text = read(&manifest)?;
            if text.contains("mcp-lint") {
                if let Some(config) = parse_manifest(&manifest, &text)? {
                    return Ok(Some((
                        ConfigSource::CargoMetadata(manifest.clone()),
                        dir.to_path_buf(),
                        text,
                        config,
                    )));
                }
            }
        }
    }
    Ok(None)
}

/// Load an explicitly named configuration file (`--config`).
pub fn load_file(path: &Path) -> Result<(ConfigSource, PathBuf, String, Config), ConfigError> {
    let text = read(path)?;
    let root = path
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    if path.file_name().is_some_and(|n| n == "Cargo.toml") {
        let config = parse_manifest(path, &text)?.unwrap_or_default();
        return Ok((
            ConfigSource::CargoMetadata(path.to_path_buf()),
            root,
            text,
            config,
        ));
    }
    let config = parse_config(path, &text)?;
    Ok((ConfigSource::File(path.to_path_buf()), root, text, config))
}

/// The levels of a `rules` table, by code; the codes named by their code or name (not by `all`)
/// are added to `named`.
fn rule_levels(
    path: &Path,
    text: &str,
    levels: &BTreeMap<Spanned<String>, Level>,
    named: &mut BTreeSet<&'static str>,
) -> Result<BTreeMap<&'static str, Level>, ConfigError> {
    let mut out = BTreeMap::new();
    for (name, level) in levels {
        let codes = codes_for(name.get_ref()).ok_or_else(|| ConfigError {
            path: path.to_path_buf(),
            text: text.to_string(),
            span: Some(name.span()),
            message: format!(
                "unknown rule `{}` (see `cargo mcp-lint --list-rules`)",
                name.get_ref()
            ),
        })?;
        if name.get_ref() != ALL {
            named.extend(codes.iter().copied());
        }
        for code in codes {
            out.insert(code, *level);
        }
    }
    Ok(out)
}

fn globs(path: &Path, text: &str, patterns: &[Spanned<String>]) -> Result<GlobSet, ConfigError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern.get_ref()).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            text: text.to_string(),
            span: Some(pattern.span()),
            message: format!("invalid glob: {e}"),
        })?;
        builder.add(glob);
        // `dir` also matches everything below it.
        if let Ok(below) = Glob::new(&format!("{}/**", pattern.get_ref().trim_end_matches('/'))) {
            builder.add(below);
        }
    }
    builder.build().map_err(|e| ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        span: None,
        message: format!("invalid globs: {e}"),
    })
}

/// Turn a loaded configuration into settings.
pub fn settings_from(
    source: ConfigSource,
    root: PathBuf,
    text: &str,
    config: Config,
) -> Result<Settings, ConfigError> {
    let path = match &source {
        ConfigSource::File(p) | ConfigSource::CargoMetadata(p) => p.clone(),
        ConfigSource::Default => PathBuf::new(),
    };
    let mut named = BTreeSet::new();
    let levels = rule_levels(&path, text, &config.rules, &mut named)?;
    let exclude = globs(&path, text, &config.exclude)?;
    let mut overrides = Vec::new();
    for o in &config.overrides {
        overrides.push((
            globs(&path, text, &o.paths)?,
            o.paths.iter().map(|p| p.get_ref().clone()).collect(),
            rule_levels(&path, text, &o.rules, &mut named)?,
        ));
    }
    let sdk = match &config.sdk {
        Some(spanned) => Some(
            crate::sdk::from_config(&spanned.get_ref().name, &spanned.get_ref().version).map_err(
                |message| ConfigError {
                    path: path.clone(),
                    text: text.to_string(),
                    span: Some(spanned.span()),
                    message,
                },
            )?,
        ),
        None => None,
    };
    let v = config.vocabulary;
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    Ok(Settings {
        source,
        root,
        vocabulary: Vocabulary {
            sink_calls: v.sink_calls,
            sink_paths: v.sink_paths,
            cancel_hooks: v.cancel_hooks,
            cancel_notifications: v.cancel_notifications,
            request_tokens: v.request_tokens,
            shutdown_tokens: v.shutdown_tokens,
            request_handlers: v.request_handlers,
        },
        levels,
        overrides,
        exclude,
        exclude_patterns: config.exclude.iter().map(|p| p.get_ref().clone()).collect(),
        command_line: BTreeMap::new(),
        named,
        preview: config.preview,
        protocol_versions: config
            .protocol_versions
            .unwrap_or_else(|| vec![ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28]),
        require_suppression_reason: config.require_suppression_reason,
        fail_on: config.fail_on.unwrap_or_default(),
        sdk,
        analyse_every_file: false,
        cache_directory: None,
        max_file_size: config
            .max_file_size_mib
            .map_or(DEFAULT_MAX_FILE_SIZE, |mib| mib.saturating_mul(1024 * 1024))
            .min(crate::settings::MAX_FILE_SIZE_CEILING),
        panic_on_file: None,
    })
}

/// Find and load the settings for a run started in `start` (or from `explicit`).
pub fn load(start: &Path, explicit: Option<&Path>) -> Result<Settings, ConfigError> {
    let found = match explicit {
        Some(path) => Some(load_file(path)?),
        None => discover(start)?,
    };
    match found {
        Some((source, root, text, config)) => settings_from(source, root, &text, config),
        None => Ok(Settings {
            root: std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf()),
            ..Settings::default()
        }),
    }
}
