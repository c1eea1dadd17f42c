//! A group of units taken from its record: what a group found is a function of the files it
//! read, the module files it looked for and did not find, its units, their SDKs and the run's
//! settings. A run keeps, per group, the files it read (with their stamps: size, times, inode
//! and device, as the facts cache judges a file unchanged), the module files it found missing,
//! and its findings. A later run whose group has the same units, SDKs and settings, and whose
//! files all still have their stamps (and whose missing module files are still missing), takes
//! the group's sources and findings from the record: no facts decoded, no follow-up wave, no
//! rule run. Anything else, and the group is linted as usual (and recorded again).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::cache::{GroupRecord, Journal, RecordedFile, RecordedText, Stamp};
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::sdk::Sdk;
use crate::source::{FileId, SourceFile};
use crate::unit::LintUnit;

/// What every group's key starts from: the settings that change findings, the directory paths
/// are shown from, and the directories files may be read in.
pub fn run_key(settings: &Settings, cwd: &Path, roots: &[PathBuf]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"run\0");
    hasher.update(settings.findings_fingerprint().as_bytes());
    // Relative paths are read from the process's directory.
    let process = std::env::current_dir().ok();
    hasher.update(format!("\0{cwd:?}\0{process:?}\0{roots:?}").as_bytes());
    *hasher.finalize().as_bytes()
}

/// The key of a group: its run's key, its units (their files, module paths, flags, manifests
/// and crate names; the files excluded from them follow from the settings, in the run's key)
/// and their packages' SDKs. A library list that several units share is fed once.
pub fn group_key(run: &[u8; 32], units: &[&LintUnit], sdks: &[Option<Sdk>]) -> [u8; 32] {
    // Fed into one buffer, hashed at once; each part with its length first, so that no two
    // groups feed the same bytes.
    let mut bytes: Vec<u8> = Vec::new();
    let mut feed = |part: &[u8]| {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part);
    };
    let mut libraries: Vec<*const [crate::unit::UnitFile]> = Vec::new();
    for unit in units {
        // Every field named: a new one must be fed here or left out on purpose.
        let LintUnit {
            name,
            files,
            follow_modules,
            rooted,
            manifest,
            test_target,
            is_library,
            path_dependencies,
            crate_name,
            roots,
            library,
        } = unit;
        feed(name.as_bytes());
        let shared = Arc::as_ptr(library);
        let library: &[crate::unit::UnitFile] =
            match libraries.iter().position(|l| std::ptr::addr_eq(*l, shared)) {
                Some(index) => {
                    feed(format!("library {index}").as_bytes());
                    &[]
                }
                None => {
                    libraries.push(shared);
                    library
                }
            };
        for file in files.iter().chain(library) {
            feed(file.path.as_os_str().as_encoded_bytes());
            feed(&[u8::from(file.owns_directory)]);
            file.module.iter().for_each(|m| feed(m.as_bytes()));
            feed(b"\0file");
        }
        feed(&[
            u8::from(*follow_modules),
            u8::from(*rooted),
            u8::from(*is_library),
            u8::from(*test_target),
        ]);
        feed(format!("{manifest:?}\0{crate_name:?}\0{roots:?}\0{path_dependencies:?}").as_bytes());
        feed(b"\0unit");
    }
    feed(format!("{sdks:?}").as_bytes());
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"group\0");
    hasher.update(run);
    hasher.update(&bytes);
    *hasher.finalize().as_bytes()
}

/// A file a group read, as the engine knew it at the end of the group.
pub struct ReadFile<'a> {
    pub source: &'a SourceFile,
    pub canonical: &'a Path,
    /// Its stamp when it was first read, if it had one.
    pub stamp: Option<&'a Stamp>,
}

/// The record of a group that read `files` (in the order of its ids), did not find the module
/// files `missing`, found `findings` and used the cache's `journal`; `None` when it cannot be
/// kept exactly: a file without a stamp (written in the last two seconds, not a regular file),
/// a path that is not UTF-8, or a finding the cache cannot keep (an internal error).
pub fn record(
    files: &[ReadFile<'_>],
    missing: &[PathBuf],
    findings: &[Diagnostic],
    journal: Journal,
) -> Option<GroupRecord> {
    let recorded = files
        .iter()
        .map(|file| {
            let source = file.source;
            let text = match source.released_as() {
                Some((len, hash)) => RecordedText::Released(len, hash),
                None if source.is_resident() && !source.text().is_empty() => {
                    RecordedText::Kept(source.text().to_string())
                }
                None => RecordedText::Empty,
            };
            Some(RecordedFile {
                path: source.path.to_str()?.to_string(),
                display_path: source.display_path.clone(),
                canonical: file.canonical.to_str()?.to_string(),
                stamp: file.stamp?.clone(),
                text,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let places: Vec<FileId> = (0..files.len()).collect();
    let findings = findings
        .iter()
        .map(|d| crate::unit_results::store(d, &places))
        .collect::<Option<Vec<_>>>()?;
    let missing = missing
        .iter()
        .map(|m| m.to_str().map(str::to_string))
        .collect::<Option<Vec<_>>>()?;
    Some(GroupRecord {
        files: recorded,
        missing,
        findings,
        journal,
    })
}

/// A group's sources, each with its canonical path, and its findings.
pub type Restored = (Vec<(SourceFile, PathBuf)>, Vec<Diagnostic>);

/// The group's sources (each with its canonical path) and findings, from its record, if every
/// file it read still has its stamp and every module file it did not find is still missing.
pub fn restore(record: &GroupRecord) -> Option<Restored> {
    let unchanged = record.files.par_iter().all(|file| {
        std::fs::metadata(&file.path)
            .ok()
            .and_then(|metadata| Stamp::of(&metadata))
            .is_some_and(|now| now == file.stamp)
    });
    // What a module declaration loads is looked for with `is_file`: the same test.
    if !unchanged || record.missing.iter().any(|m| Path::new(m).is_file()) {
        return None;
    }
    let places: Vec<FileId> = (0..record.files.len()).collect();
    let findings = record
        .findings
        .iter()
        .map(|f| crate::unit_results::restore(f, &places))
        .collect::<Option<Vec<_>>>()?;
    let sources = record
        .files
        .iter()
        .map(|file| {
            let (path, shown) = (PathBuf::from(&file.path), file.display_path.clone());
            let source = match &file.text {
                RecordedText::Empty => SourceFile::new(path, shown, String::new()),
                RecordedText::Released(len, hash) => SourceFile::released(path, shown, *len, *hash),
                RecordedText::Kept(text) => SourceFile::new(path, shown, text.clone()),
            };
            (source, PathBuf::from(&file.canonical))
        })
        .collect();
    Some((sources, findings))
}
