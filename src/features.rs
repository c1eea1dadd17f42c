//! The features a package's default build enables, read from its manifest's `[features]`: code
//! under `#[cfg(feature = "x")]` for any other `x` is not in the program a user builds and runs
//! by default (`cargo build`, `cargo install`), so what it does is not shown to happen while the
//! program serves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A package's features on by default, shared (see [`enabled_by_default`]); `None`: unknown.
pub type Enabled = Option<std::sync::Arc<BTreeSet<String>>>;

/// The features `default` turns on, itself included, following the features each one turns on
/// (`dep:x` and `x/y` name dependencies' features, not this package's). `None` when the
/// manifest cannot be read or parsed.
pub fn enabled_by_default(manifest: &Path) -> Option<BTreeSet<String>> {
    let text = crate::bounded::read_text_capped(manifest, crate::bounded::MAX_MANIFEST_SIZE)?;
    let table = text.parse::<toml::Table>().ok()?;
    let mut features: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some(declared) = table.get("features").and_then(toml::Value::as_table) {
        for (name, implied) in declared {
            let implied = implied
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(toml::Value::as_str)
                .map(str::to_string)
                .collect();
            features.insert(name.clone(), implied);
        }
    }
    Some(enabled(&features))
}

/// The features `default` turns on in a package whose `[features]` table is `features`,
/// `default` itself included, following what each one turns on (`dep:x` and `x/y` name
/// dependencies' features, not this package's).
pub fn enabled(features: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    let mut enabled = BTreeSet::new();
    let mut queue = vec!["default"];
    while let Some(feature) = queue.pop() {
        if !enabled.insert(feature.to_string()) {
            continue;
        }
        for implied in features.get(feature).into_iter().flatten() {
            if !implied.starts_with("dep:") && !implied.contains('/') {
                queue.push(implied);
            }
        }
    }
    enabled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_turns_on_what_it_names_and_what_those_name() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"x\"\n\n[features]\ndefault = [\"basic\"]\nbasic = [\"logs\", \"dep:serde\", \"tokio/rt\"]\nlogs = []\nobservability = [\"logs\"]\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let enabled = enabled_by_default(&manifest).unwrap_or_default();
        assert_eq!(
            enabled.iter().map(String::as_str).collect::<Vec<_>>(),
            ["basic", "default", "logs"]
        );
        std::fs::write(&manifest, "[package]\nname = \"x\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            enabled_by_default(&manifest).map(|e| e.len()),
            Some(1),
            "no [features]: only `default` itself"
        );
        assert!(enabled_by_default(&dir.path().join("missing.toml")).is_none());
    }
}
