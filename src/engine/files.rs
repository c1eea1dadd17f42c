//! One file: read (held to the size limit and to the linted directories), pre-filtered, and
//! analysed, through the cache when there is one.

use std::path::{Path, PathBuf};

use crate::analysis::facts::FileFacts;
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::prefilter::{Trigrams, Wanted};
use crate::rules::{internal_error, syntax_error};
use crate::settings::MAX_FILE_SIZE_CEILING;
use crate::source::{display_path, ByteSpan, FileId, SourceFile};
use crate::timings;
use crate::unit::{LintUnit, ModDecl, UnitFile};

use super::run::Run;

// One outcome per file, moved once into the run's tables: its size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub(super) enum FileOutcome {
    Facts(FileFacts),
    /// Read, but holds nothing the analysis needs (see [`crate::prefilter`]); what the
    /// follow-up waves need to know of its text (not worked out when they will not ask), and
    /// the modules it declares (read from its tokens when the module tree needs them).
    Skipped(Option<Trigrams>, Vec<ModDecl>),
    Failed(Diagnostic),
}

/// What keys the stamps of the files a run skips: a file is skipped unread only by a run whose
/// pre-filter, size limit and confinement are those of the run that skipped it. `None` when the
/// pre-filter wants every file.
pub(super) fn stamp_salt(
    prefilter: &crate::prefilter::Prefilter,
    settings: &Settings,
    roots: &[PathBuf],
) -> Option<[u8; 32]> {
    if prefilter.is_everything() {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(&prefilter.digest());
    hasher.update(&settings.max_file_size.to_le_bytes());
    for root in roots {
        hasher.update(root.as_os_str().as_encoded_bytes());
        hasher.update(&[0]);
    }
    Some(*hasher.finalize().as_bytes())
}

/// Why a file's text could not be had, with the text to show (empty, or the bytes decoded
/// lossily).
pub(super) struct Unreadable {
    pub(super) text: String,
    pub(super) span: ByteSpan,
    pub(super) message: String,
    pub(super) help: Option<String>,
}

/// The directories the units' files are read in: all their roots, or none (anywhere) when a
/// unit has none.
pub(super) fn confinement(units: &[LintUnit]) -> Vec<PathBuf> {
    if units.iter().any(|u| u.roots.is_empty()) {
        return Vec::new();
    }
    let mut roots: Vec<PathBuf> = units.iter().flat_map(|u| u.roots.clone()).collect();
    roots.sort();
    roots.dedup();
    roots
}

/// Why a file on disk must not be read: it lies outside the roots once links are resolved, or
/// it is not a regular file. The message names the path and nothing of its content.
pub(super) fn refused(path: &Path, roots: &[PathBuf]) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    if !roots.is_empty() && !roots.iter().any(|root| real.starts_with(root)) {
        return Some(format!(
            "this file is `{}`, outside the linted directories, so it was not read",
            real.display()
        ));
    }
    let metadata = std::fs::metadata(&real).ok()?;
    (!metadata.is_file()).then(|| {
        format!(
            "`{}` is not a regular file, so it was not read",
            real.display()
        )
    })
}

/// A file's text: from the overlay or the disk, and valid UTF-8 (not when it is too large,
/// unreadable, or not UTF-8). A file on disk outside the run's roots, or not a regular file, is
/// not read at all.
pub(super) fn read_text(file: &UnitFile, run: &Run<'_>) -> Result<String, Unreadable> {
    if run.overlay.get(&*file.path).is_none() {
        if let Some(message) = refused(&file.path, &run.roots) {
            return Err(Unreadable {
                text: String::new(),
                span: ByteSpan::default(),
                message,
                help: Some(
                    "a module file is read only inside the directories linted (cargo mode: the workspace)"
                        .to_string(),
                ),
            });
        }
        if let Ok(metadata) = std::fs::metadata(&file.path) {
            if metadata.len() > run.max_file_size {
                let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
                let message = format!(
                    "this file is {:.1} MiB, larger than the {} MiB limit, so it was not analysed",
                    mib(metadata.len()),
                    mib(run.max_file_size)
                );
                // The configuration can raise the limit up to the ceiling, never past it.
                let help = Some(if metadata.len() <= MAX_FILE_SIZE_CEILING {
                    format!(
                        "raise `max-file-size-mib` in the configuration (to at most {}) to analyse it",
                        MAX_FILE_SIZE_CEILING / (1024 * 1024)
                    )
                } else {
                    format!(
                        "a file over {} MiB is never analysed (parsing it could take gigabytes of memory); split it into modules to have it linted",
                        MAX_FILE_SIZE_CEILING / (1024 * 1024)
                    )
                });
                return Err(Unreadable {
                    text: String::new(),
                    span: ByteSpan::default(),
                    message,
                    help,
                });
            }
        }
    }
    // At most the limit and one byte more: a file whose size is reported as 0 (`/proc`) or
    // that grows while read is held to the limit too.
    let read = match run.overlay.get(&*file.path) {
        Some(text) => Ok((text.clone().into_bytes(), false)),
        None => crate::bounded::read_capped(&file.path, run.max_file_size),
    };
    let (bytes, more) = read.map_err(|error| Unreadable {
        text: String::new(),
        span: ByteSpan::default(),
        message: format!("could not read this file: {error}"),
        help: None,
    })?;
    if more {
        return Err(Unreadable {
            text: String::new(),
            span: ByteSpan::default(),
            message: format!(
                "this file holds more than the {} MiB limit, so it was not analysed",
                run.max_file_size / (1024 * 1024)
            ),
            help: None,
        });
    }
    String::from_utf8(bytes).map_err(|error| {
        let valid = error.utf8_error().valid_up_to();
        Unreadable {
            text: String::from_utf8_lossy(error.as_bytes()).into_owned(),
            span: ByteSpan::new(valid, valid),
            message: format!("this file is not valid UTF-8 (first invalid byte at offset {valid})"),
            help: Some("Rust source files must be UTF-8".to_string()),
        }
    })
}

pub(super) fn analyse_file(
    id: FileId,
    file: &UnitFile,
    run: &Run<'_>,
    trigrams: bool,
    wanted: impl Fn(&str) -> Wanted,
) -> (SourceFile, FileOutcome, Option<[u8; 32]>) {
    (run.on_file)();
    let shown = display_path(&file.path, run.cwd);
    let text = match timings::work("read", || read_text(file, run)) {
        Ok(text) => text,
        Err(unreadable) => {
            let source = SourceFile::new(file.path.to_path_buf(), shown, unreadable.text);
            let failure =
                syntax_error::diagnostic(id, unreadable.span, unreadable.message, unreadable.help);
            return (source, FileOutcome::Failed(failure), None);
        }
    };
    let declared = match timings::work("pre-filter", || wanted(&text)) {
        Wanted::Parse => None,
        Wanted::Skip => Some(Vec::new()),
        Wanted::Modules(declared) => Some(declared),
    };
    if let Some(declared) = declared {
        let trigrams = trigrams.then(|| Trigrams::of(text.as_bytes()));
        return (
            SourceFile::new(file.path.to_path_buf(), shown, String::new()),
            FileOutcome::Skipped(trigrams, declared),
            None,
        );
    }
    let (outcome, entry) = facts_of(id, file, &text, run);
    let keep_text = run.overlay.get(&*file.path).is_some()
        || !matches!(outcome, FileOutcome::Facts(_))
        || text.contains(crate::suppression::MARKER);
    let mut source = SourceFile::new(file.path.to_path_buf(), shown, text);
    // The text is not kept for the run: a file with findings is read again to render them
    // (see `check_texts`). Kept: an overlay's texts (they are not on disk), a file that was
    // not analysed (its text is shown with its problem), and a file with suppression comments
    // (the policy reads them).
    if !keep_text {
        source.release();
    }
    (source, outcome, entry)
}

/// A wanted file's outcome, from the cache (by its text and module path) or analysed (and then
/// remembered), with its cache entry's key when there is a cache.
fn facts_of(
    id: FileId,
    file: &UnitFile,
    text: &str,
    run: &Run<'_>,
) -> (FileOutcome, Option<[u8; 32]>) {
    let (entry, cached) = match &run.cache {
        None => (None, None),
        Some(cache) => timings::work("cache lookup", || {
            let entry = crate::cache::entry_key(text, &file.module);
            let cached = cache.get(&entry);
            (Some(entry), cached)
        }),
    };
    let analysed = match cached {
        Some(crate::cache::Cached::Facts(facts)) => Ok(Ok(*facts)),
        Some(crate::cache::Cached::SyntaxError(span, message)) => {
            Ok(Err(crate::analysis::ParseFailure { span, message }))
        }
        None => {
            let fresh = timings::work("parse and facts", || {
                internal_error::catch(|| {
                    internal_error::test_panic(run.test_panic.as_deref(), &file.path);
                    crate::analysis::analyse_text(
                        text,
                        file.module.to_vec(),
                        run.vocabulary,
                        run.marks.as_ref(),
                        &run.collectors,
                    )
                })
            });
            if let (Some(cache), Some(entry), Ok(result)) = (&run.cache, &entry, &fresh) {
                cache.remember(
                    *entry,
                    &match result {
                        Ok(facts) => crate::cache::Cached::Facts(Box::new(facts.clone())),
                        Err(failure) => {
                            crate::cache::Cached::SyntaxError(failure.span, failure.message.clone())
                        }
                    },
                );
            }
            fresh
        }
    };
    let outcome = match analysed {
        Ok(Ok(facts)) => FileOutcome::Facts(facts),
        Ok(Err(failure)) => FileOutcome::Failed(syntax_error::diagnostic(
            id,
            failure.span,
            failure.message,
            None,
        )),
        Err(panic) => FileOutcome::Failed(internal_error::analysis_failed(id, &panic)),
    };
    (outcome, entry)
}

/// A file met for the first time in a group: taken unread from its stamp when the cache knows
/// it, else read, pre-filtered, and analysed if wanted (and its outcome stamped).
pub(super) fn read_fresh(
    id: FileId,
    file: &UnitFile,
    follows: bool,
    stamp: Option<([u8; 32], crate::cache::Stamp)>,
    run: &Run<'_>,
) -> (SourceFile, FileOutcome, Option<[u8; 32]>) {
    if let (Some(cache), Some((at, stamp))) = (&run.cache, &stamp) {
        if let Some(known) = known_unread(cache, (at, stamp), file, run) {
            return known;
        }
    }
    let analysed = analyse_file(id, file, run, true, |text| {
        run.prefilter.decide(text, follows)
    });
    if let (Some(cache), Some((at, stamp))) = (&run.cache, stamp) {
        match &analysed {
            (_, FileOutcome::Skipped(Some(trigrams), declared), _) => {
                let skipped = (trigrams.clone(), declared.clone());
                cache.remember_skipped(at, stamp, skipped);
            }
            _ => remember_wanted(cache, (at, stamp), file, &analysed),
        }
    }
    analysed
}

/// A file the cache knows by its stamp (its metadata unchanged since): skipped, or wanted and
/// analysed (its facts taken from the cache), without a read.
pub(super) fn known_unread(
    cache: &crate::cache::Cache,
    (at, stamp): (&[u8; 32], &crate::cache::Stamp),
    file: &UnitFile,
    run: &Run<'_>,
) -> Option<(SourceFile, FileOutcome, Option<[u8; 32]>)> {
    if let Some((trigrams, declared)) = cache.skipped_before(at, stamp) {
        (run.on_file)();
        let shown = display_path(&file.path, run.cwd);
        let source = SourceFile::new(file.path.to_path_buf(), shown, String::new());
        return Some((source, FileOutcome::Skipped(Some(trigrams), declared), None));
    }
    wanted_unread(cache, (at, stamp), file, run)
}

/// A file the cache knows as wanted by its stamp (its metadata unchanged since): its facts,
/// taken without reading it.
pub(super) fn wanted_unread(
    cache: &crate::cache::Cache,
    (at, stamp): (&[u8; 32], &crate::cache::Stamp),
    file: &UnitFile,
    run: &Run<'_>,
) -> Option<(SourceFile, FileOutcome, Option<[u8; 32]>)> {
    let shown = || display_path(&file.path, run.cwd);
    let wanted = crate::cache::wanted_key(at, &file.module);
    let (entry, len, hash) = cache.wanted_before(&wanted, stamp)?;
    let Some(crate::cache::Cached::Facts(facts)) =
        timings::work("cache lookup", || cache.get(&entry))
    else {
        return None;
    };
    (run.on_file)();
    let source = SourceFile::released(file.path.to_path_buf(), shown(), len, hash);
    Some((source, FileOutcome::Facts(*facts), Some(entry)))
}

/// Stamp a file the pre-filter wanted with its entry and its text's length and hash, when its
/// text was let go (one kept, with suppression comments, is read each run).
pub(super) fn remember_wanted(
    cache: &crate::cache::Cache,
    (at, stamp): ([u8; 32], crate::cache::Stamp),
    file: &UnitFile,
    analysed: &(SourceFile, FileOutcome, Option<[u8; 32]>),
) {
    if let (source, FileOutcome::Facts(_), Some(entry)) = analysed {
        if let Some(text) = source.released_as() {
            let at = crate::cache::wanted_key(&at, &file.module);
            cache.remember_wanted(at, stamp, *entry, text);
        }
    }
}

/// A file that a follow-up wave asks for because it declares modules (see
/// [`crate::prefilter::MODULE_FILES`]): parsed whatever it holds, and stamped as wanted, so
/// that a warm run takes its facts unread.
pub(super) fn declaring_file(
    id: FileId,
    file: &UnitFile,
    canonical: &Path,
    run: &Run<'_>,
) -> (SourceFile, FileOutcome, Option<[u8; 32]>) {
    // Keyed as a file whose modules are followed, in either mode: the stamp says which entry
    // the file's text at its module path has, which the mode does not change.
    let stamp = run.stamp(canonical, file, true);
    if let (Some(cache), Some((at, stamp))) = (&run.cache, &stamp) {
        if let Some(known) = wanted_unread(cache, (at, stamp), file, run) {
            return known;
        }
    }
    let analysed = analyse_file(id, file, run, false, |_| Wanted::Parse);
    if let (Some(cache), Some(stamp)) = (&run.cache, stamp) {
        remember_wanted(cache, stamp, file, &analysed);
    }
    analysed
}
