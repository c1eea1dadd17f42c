//! Canonical paths (links resolved), each resolved once per run and compared as bytes.

use foldhash::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A canonical path as a map key, hashed and compared as its bytes (a canonical path has one
/// spelling): hashing a `Path` walks its components, and the engine's maps hold a key per unit
/// entry.
#[derive(Clone, Debug)]
pub(super) struct PathKey(pub(super) Arc<Path>);

impl PathKey {
    pub(super) fn bytes(&self) -> &[u8] {
        self.0.as_os_str().as_encoded_bytes()
    }
}

impl std::hash::Hash for PathKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.bytes().hash(state);
    }
}

impl PartialEq for PathKey {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for PathKey {}

/// Canonical paths (links resolved), each path resolved once: a library's files are listed in
/// every target of their package, and resolving a path costs a system call per component.
#[derive(Default)]
// Keyed by the path's bytes: hashing a `Path` walks its components, and a path spelled two
// ways is only resolved twice.
pub(super) struct Canonical(std::sync::Mutex<HashMap<std::ffi::OsString, PathKey>>);

impl Canonical {
    /// `path` with links resolved, or as given when it cannot be resolved.
    pub(super) fn of(&self, path: &Path) -> PathKey {
        if let Some(known) = self
            .0
            .lock()
            .ok()
            .and_then(|m| m.get(path.as_os_str()).cloned())
        {
            return known;
        }
        let resolved = PathKey(
            std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .into(),
        );
        if let Ok(mut known) = self.0.lock() {
            known.insert(path.as_os_str().to_os_string(), resolved.clone());
        }
        resolved
    }
}
