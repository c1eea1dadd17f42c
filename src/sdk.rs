//! Which MCP SDK (and which version) a package uses, read from `Cargo.lock` (or, without one,
//! from the requirement in `Cargo.toml`), or set in the configuration. It decides whether a
//! request handler's return value on a cancel path is sent as a response.

use std::fmt;
use std::path::{Path, PathBuf};

use cargo_metadata::semver::{Version, VersionReq};
use serde::{Deserialize, Serialize};

/// The SDKs the analysis knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SdkName {
    #[serde(rename = "rmcp")]
    Rmcp,
    #[serde(rename = "rust-mcp-sdk")]
    RustMcpSdk,
    #[serde(rename = "pmcp")]
    Pmcp,
    #[serde(rename = "turbomcp")]
    Turbomcp,
    #[serde(rename = "mcp-sdk-rs")]
    McpSdkRs,
}

impl SdkName {
    pub const ALL: [SdkName; 5] = [
        SdkName::Rmcp,
        SdkName::RustMcpSdk,
        SdkName::Pmcp,
        SdkName::Turbomcp,
        SdkName::McpSdkRs,
    ];

    pub fn crate_name(self) -> &'static str {
        match self {
            SdkName::Rmcp => "rmcp",
            SdkName::RustMcpSdk => "rust-mcp-sdk",
            SdkName::Pmcp => "pmcp",
            SdkName::Turbomcp => "turbomcp",
            SdkName::McpSdkRs => "mcp-sdk-rs",
        }
    }

    pub fn from_crate_name(name: &str) -> Option<SdkName> {
        SdkName::ALL.into_iter().find(|s| s.crate_name() == name)
    }
}

/// An SDK and version, with where they were read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sdk {
    pub name: SdkName,
    pub version: Version,
    /// `Cargo.lock`, `Cargo.toml` or `configuration`.
    pub source: String,
}

impl fmt::Display for Sdk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name.crate_name(), self.version)
    }
}

impl Sdk {
    /// Whether the SDK sends a handler's return value as the response even when the request was
    /// cancelled.
    pub fn answers_cancelled_requests(&self) -> bool {
        match self.name {
            SdkName::Rmcp => self.version < Version::new(2, 2, 0),
            // mcp-sdk-rs (every version to 0.3.4, the newest) sends `handle_method`'s value as
            // the response and ignores `notifications/cancelled`.
            SdkName::RustMcpSdk | SdkName::Pmcp | SdkName::McpSdkRs => true,
            SdkName::Turbomcp => self.version.major < 4,
        }
    }

    /// Why a handler's value on a cancel path matters (or not) with this SDK.
    pub fn explanation(&self) -> String {
        match self.name {
            SdkName::Rmcp if self.answers_cancelled_requests() => format!(
                "rmcp {} sends a handler's return value even for a cancelled request; rmcp 2.2.0 drops it",
                self.version
            ),
            SdkName::Rmcp => format!("rmcp {} drops a handler's response for a cancelled request", self.version),
            SdkName::RustMcpSdk => format!(
                "rust-mcp-sdk {} sends a handler's return value as the response, cancelled or not",
                self.version
            ),
            SdkName::Pmcp => format!("pmcp {} sends every handler result as the response, cancelled or not", self.version),
            SdkName::Turbomcp if self.answers_cancelled_requests() => format!(
                "turbomcp {} sends a handler's return value as the response, cancelled or not",
                self.version
            ),
            SdkName::Turbomcp => format!("turbomcp {} drops the handler's future on cancellation", self.version),
            SdkName::McpSdkRs => format!(
                "mcp-sdk-rs {} sends a handler's return value as the response, cancelled or not",
                self.version
            ),
        }
    }

    /// What to do about it.
    pub fn help(&self) -> String {
        match self.name {
            SdkName::Rmcp => "upgrade rmcp to 2.2.0 or later, which drops the response of a cancelled request".into(),
            _ => format!(
                "{} answers whatever the handler returns: stop the work on cancellation, but expect the response to be sent; filter responses for cancelled ids in the transport, or move to an SDK that drops them",
                self.name.crate_name()
            ),
        }
    }
}

#[derive(Deserialize)]
struct Lock {
    #[serde(default)]
    package: Vec<LockedPackage>,
}

#[derive(Deserialize)]
struct LockedPackage {
    name: String,
    version: String,
}

/// The dependencies a manifest names (by crate name, following `package = ".."` renames), with
/// their version requirement when one is written.
fn dependencies(manifest: &toml::Table) -> Vec<(String, Option<String>)> {
    let mut tables: Vec<&toml::Table> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(table) = manifest.get(key).and_then(|v| v.as_table()) {
            tables.push(table);
        }
    }
    if let Some(targets) = manifest.get("target").and_then(|v| v.as_table()) {
        for target in targets.values().filter_map(|v| v.as_table()) {
            if let Some(table) = target.get("dependencies").and_then(|v| v.as_table()) {
                tables.push(table);
            }
        }
    }
    let mut found = Vec::new();
    for table in tables {
        for (key, value) in table {
            let (name, req) = match value {
                toml::Value::String(req) => (key.clone(), Some(req.clone())),
                toml::Value::Table(t) => (
                    t.get("package")
                        .and_then(|p| p.as_str())
                        .unwrap_or(key)
                        .to_string(),
                    t.get("version")
                        .and_then(|v| v.as_str())
                        .map(str::to_string),
                ),
                _ => (key.clone(), None),
            };
            found.push((name, req));
        }
    }
    found
}

fn read_toml(path: &Path) -> Option<toml::Table> {
    crate::bounded::read_text_capped(path, crate::bounded::MAX_MANIFEST_SIZE)?
        .parse::<toml::Table>()
        .ok()
}

/// The lowest version a requirement admits (`"2.1"` gives 2.1.0, `"=2.1.0"` gives 2.1.0).
fn lowest(req: &str) -> Option<Version> {
    let req = VersionReq::parse(req).ok()?;
    let comparator = req.comparators.first()?;
    Some(Version::new(
        comparator.major,
        comparator.minor.unwrap_or(0),
        comparator.patch.unwrap_or(0),
    ))
}

/// The SDK a package uses, from its manifest and the nearest `Cargo.lock` above it.
pub fn detect(manifest: &Path) -> Option<Sdk> {
    let table = read_toml(manifest)?;
    let deps = dependencies(&table);
    let (name, req) = SdkName::ALL.iter().find_map(|sdk| {
        deps.iter()
            .find(|(n, _)| n == sdk.crate_name())
            .map(|(_, req)| (*sdk, req.clone()))
    })?;
    let lock = manifest
        .parent()
        .into_iter()
        .flat_map(Path::ancestors)
        .map(|dir| dir.join("Cargo.lock"))
        .find(|p| p.is_file());
    if let Some(lock) = lock
        .as_deref()
        .and_then(|p| crate::bounded::read_text_capped(p, crate::bounded::MAX_MANIFEST_SIZE))
    {
        if let Ok(lock) = toml::from_str::<Lock>(&lock) {
            let parsed_req = req.as_deref().and_then(|r| VersionReq::parse(r).ok());
            let mut versions: Vec<Version> = lock
                .package
                .iter()
                .filter(|p| p.name == name.crate_name())
                .filter_map(|p| Version::parse(&p.version).ok())
                .collect();
            versions.sort();
            let matching = versions
                .iter()
                .rev()
                .find(|v| parsed_req.as_ref().is_none_or(|r| r.matches(v)))
                .or(versions.last());
            if let Some(version) = matching {
                return Some(Sdk {
                    name,
                    version: version.clone(),
                    source: "Cargo.lock".into(),
                });
            }
        }
    }
    let version = req.as_deref().and_then(lowest)?;
    Some(Sdk {
        name,
        version,
        source: "Cargo.toml".into(),
    })
}

/// The nearest `Cargo.toml` at or above a path.
pub fn manifest_for(path: &Path) -> Option<PathBuf> {
    let start = if path.is_dir() { path } else { path.parent()? };
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|m| m.is_file())
}

/// The SDK named in the configuration (`[sdk] name = "rmcp", version = "2.1.0"`).
pub fn from_config(name: &str, version: &str) -> Result<Sdk, String> {
    let sdk = SdkName::from_crate_name(name).ok_or_else(|| {
        format!("unknown SDK `{name}` (known: rmcp, rust-mcp-sdk, pmcp, turbomcp, mcp-sdk-rs)")
    })?;
    let version = Version::parse(version)
        .or_else(|_| lowest(version).ok_or(()))
        .map_err(|_| format!("`{version}` is not a version"))?;
    Ok(Sdk {
        name: sdk,
        version,
        source: "configuration".into(),
    })
}
