//! Stable fingerprints of findings: the rule, the file, the primary span's source text with its
//! white space folded, and the enclosing function's name. Inserting lines above a finding does
//! not change its fingerprint; editing the offending code does.

use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;

/// A 32-hex-digit fingerprint of a diagnostic; `path` is the file as the report names it
/// (relative to the repository root where there is one).
pub fn fingerprint(diagnostic: &Diagnostic, sources: &SourceMap, path: &str) -> String {
    let snippet = sources
        .get(diagnostic.file)
        .map_or("", |s| s.snippet(diagnostic.span));
    let folded: Vec<&str> = snippet.split_whitespace().collect();
    let mut hasher = blake3::Hasher::new();
    for part in [
        diagnostic.code,
        path,
        &folded.join(" "),
        diagnostic.context.as_deref().unwrap_or(""),
    ] {
        hasher.update(part.as_bytes());
        hasher.update(&[0]);
    }
    hasher.finalize().to_hex()[..32].to_string()
}
