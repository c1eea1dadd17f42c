//! The shape of the cached facts: a hash of every source file whose change can change what the
//! analysis records for a file (the facts' types, the analysis that fills them, the parser's and
//! serialiser's versions in Cargo.lock). `build.rs` compiles it into `FACTS_SHAPE`, which keys
//! the facts cache (`src/cache.rs`), so a build whose analysis differs never reads an older
//! build's facts; the cache's tests recompute it from the sources.
//!
//! FNV-1a (64 bits) over each file's path, length and bytes, in path order: the same sources
//! give the same value on every machine and with every Rust version.

use std::path::{Path, PathBuf};

/// What the facts depend on, relative to the package root; directories are read for `.rs` files
/// at any depth. Paths that do not exist (Cargo.lock in some packagings) are left out.
pub const INPUTS: &[&str] = &[
    "src/analysis",
    "src/rules",
    "src/lexical.rs",
    "src/source.rs",
    "src/discovery/module_tree.rs",
    "src/unit.rs",
    "src/cache.rs",
    "Cargo.lock",
];

/// The input files under `root`, as sorted paths relative to it with `/` separators.
pub fn input_files(root: &Path) -> std::io::Result<Vec<String>> {
    fn walk(root: &Path, relative: &str, out: &mut Vec<String>) -> std::io::Result<()> {
        let path = root.join(relative);
        if path.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                let name = entry?.file_name();
                let name = name.to_string_lossy();
                let child = format!("{relative}/{name}");
                if root.join(&child).is_dir() || name.ends_with(".rs") {
                    walk(root, &child, out)?;
                }
            }
        } else if path.is_file() {
            out.push(relative.to_string());
        }
        Ok(())
    }
    let mut files = Vec::new();
    for input in INPUTS {
        walk(root, input, &mut files)?;
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// The hash of the input files under `root`.
pub fn hash(root: &Path) -> std::io::Result<u64> {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    let mut feed = |bytes: &[u8]| {
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(PRIME);
        }
    };
    for relative in input_files(root)? {
        let bytes = std::fs::read(PathBuf::from(root).join(&relative))?;
        feed(relative.as_bytes());
        feed(&[0]);
        feed(&(bytes.len() as u64).to_le_bytes());
        feed(&bytes);
    }
    Ok(hash)
}
