//! The on-disk cache of per-file facts: an unchanged file is not parsed again. Entries are keyed
//! by the file's content (and its module path); the whole cache is keyed by the tool's version,
//! the facts' shape, the analysis vocabulary, the collecting rules, preview mode and the binary
//! (its size and modification time), so a new version, a rebuilt binary or another configuration
//! starts afresh. Only the entries a run used are written back, so the cache does not grow
//! without bound.
//!
//! The cache lives in the tree (`target/mcp-lint/`), which on a pull request is written by a
//! stranger, so a cache file is trusted only if it proves it was written on this machine: it
//! starts with a tag of its key and a tag of its body, both keyed BLAKE3 hashes under a random
//! secret kept in the user's cache directory, outside any tree. The header is read and checked
//! first (a wrong or forged file costs one small read); the body is read only up to
//! [`MAX_CACHE_SIZE`] and decoded only once its tag holds. Without a secret there is no cache.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::Vocabulary;
use crate::diagnostic::{Applicability, Severity};
use crate::prefilter::Trigrams;
use crate::source::ByteSpan;
use crate::unit::ModDecl;

/// What analysing a file's text gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cached {
    /// Boxed: the facts are much larger than a syntax error.
    Facts(Box<FileFacts>),
    /// The text does not parse: the error's span and message.
    SyntaxError(ByteSpan, String),
}

/// A stored edit or label: its file's place in the unit's input, its span, and its text.
pub type StoredPlace = (usize, ByteSpan, String);

/// A finding of a unit as the cache keeps it: its files are named by their place in the unit's
/// input (see `unit_results::key`), its rule by code and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFinding {
    pub code: String,
    pub name: String,
    pub severity: Severity,
    pub message: String,
    pub file: usize,
    pub span: ByteSpan,
    /// Each label's file, span and message.
    pub labels: Vec<StoredPlace>,
    pub notes: Vec<String>,
    pub help: Option<String>,
    /// The fix's applicability, message, and edits (file, span, replacement).
    pub fix: Option<(Applicability, String, Vec<StoredPlace>)>,
    pub context: Option<String>,
}

/// What a file's metadata said when it was read and skipped by the pre-filter. A file whose
/// metadata still says the same (size, modification and change times to the nanosecond, inode
/// and device, as git's index judges) is unchanged, so it is skipped again without being read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    inode: u64,
    device: u64,
}

impl Stamp {
    /// The stamp of a file's metadata, if a change of the file must change it: on Unix, for a
    /// regular file neither modified nor changed in the last two seconds (a file written within
    /// the clock's granularity of being read could be written again without its times moving).
    #[cfg(unix)]
    pub fn of(metadata: &std::fs::Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let recent = now.saturating_sub(std::time::Duration::from_secs(2));
        let at = |seconds: i64, nanoseconds: i64| {
            std::time::Duration::new(
                u64::try_from(seconds).unwrap_or(0),
                u32::try_from(nanoseconds).unwrap_or(0),
            )
        };
        if !metadata.is_file()
            || at(metadata.mtime(), metadata.mtime_nsec()) >= recent
            || at(metadata.ctime(), metadata.ctime_nsec()) >= recent
        {
            return None;
        }
        Some(Stamp {
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
            inode: metadata.ino(),
            device: metadata.dev(),
        })
    }

    #[cfg(not(unix))]
    pub fn of(_metadata: &std::fs::Metadata) -> Option<Stamp> {
        None
    }
}

/// The key of a skipped file's stamp: the pre-filter that skipped it (its digest, with the run's
/// size limit), its path, and whether its module declarations were wanted.
pub fn stamp_key(salt: &[u8; 32], path: &Path, follows_modules: bool) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(salt);
    hasher.update(path.as_os_str().as_encoded_bytes());
    hasher.update(&[0, u8::from(follows_modules)]);
    *hasher.finalize().as_bytes()
}

/// A skipped file's stamp, the three-byte sequences its text held, and the modules it declares
/// (when its tokens were read for them: see [`crate::prefilter::Wanted::Modules`]).
type Skipped = (Stamp, Trigrams, Vec<ModDecl>);

/// A file the pre-filter wanted: its stamp, its entry (see [`entry_key`]), and its text's length
/// and hash (what the text must be when it is read again to show a finding).
type Wanted = (Stamp, [u8; 32], u64, [u8; 32]);

/// The key of a wanted file's stamp: its path's (see [`stamp_key`]) and the module path it was
/// analysed at (the same file reached at another module path has other facts).
pub fn wanted_key(stamp_key: &[u8; 32], module: &[String]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(stamp_key);
    for segment in module {
        hasher.update(&[0]);
        hasher.update(segment.as_bytes());
    }
    *hasher.finalize().as_bytes()
}

/// The body of a cache file: its files' entries, the findings of the units checked, and the
/// stamps of the files skipped and of the files wanted.
/// Each entry is kept encoded (its own postcard bytes): loading the cache copies bytes, and an
/// entry is decoded only when a run asks for it, on the thread that asks.
#[derive(Serialize, Deserialize)]
struct CacheBody {
    entries: Vec<([u8; 32], Vec<u8>)>,
    units: Vec<([u8; 32], Vec<StoredFinding>)>,
    skipped: Vec<([u8; 32], Skipped)>,
    wanted: Vec<([u8; 32], Wanted)>,
}

/// What a cache file starts with; then the key's tag, the body's tag, and the body.
const MAGIC: &[u8; 8] = b"mcplint9";

/// What the file of the groups' records starts with (see [`GroupRecord`]): a file of its own,
/// small, so that a warm run whose groups are all unchanged never reads the facts.
const GROUPS_MAGIC: &[u8; 8] = b"mcpgrp01";

/// The tables of the cache's keys, as a run's [`Journal`] names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Table {
    Entries,
    Units,
    Skipped,
    Wanted,
}

/// The keys of the cache a run read or made, in order: what a group used, kept with its
/// record so that a run which takes the group from its record keeps them too.
pub type Journal = Vec<(Table, [u8; 32])>;

/// How a recorded file's text is had again (see [`crate::source::SourceFile`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecordedText {
    /// Not in memory after the run (a file skipped, or one that could not be read).
    Empty,
    /// Let go: read again when shown, only if it has this length and hash.
    Released(u64, [u8; 32]),
    /// Kept in memory (a file with suppression comments, or one not analysed).
    Kept(String),
}

/// A file a group read: the path it was read at, the path shown, its canonical path, its
/// stamp then, and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedFile {
    pub path: String,
    pub display_path: String,
    pub canonical: String,
    pub stamp: Stamp,
    pub text: RecordedText,
}

/// What a group of units gave, with what it depended on (see [`crate::replay`]): the files it
/// read (in the order of its sources), the module files it looked for and did not find, its
/// findings (their files named by place in `files`), and the keys of the cache it used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRecord {
    pub files: Vec<RecordedFile>,
    pub missing: Vec<String>,
    pub findings: Vec<StoredFinding>,
    pub journal: Journal,
}

/// The most a cache file is read: a larger one is not this tool's.
pub const MAX_CACHE_SIZE: u64 = 1 << 30;

/// The secret that keys the tags, from the user's cache directory (created there on first use),
/// or `None` where there is none that only this user can have written.
fn secret() -> Option<[u8; 32]> {
    let directory = dirs::cache_dir()?.join("cargo-mcp-lint");
    secret_in(&directory)
}

fn secret_in(directory: &Path) -> Option<[u8; 32]> {
    let path = directory.join("cache-secret");
    if let Some(secret) = read_secret(&path) {
        return Some(secret);
    }
    std::fs::create_dir_all(directory).ok()?;
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).ok()?;
    let mut temporary = tempfile::NamedTempFile::new_in(directory).ok()?;
    use std::io::Write;
    temporary.write_all(&fresh).ok()?;
    // Another run may have made one meanwhile: then that one is the secret.
    match temporary.persist_noclobber(&path) {
        Ok(_) => Some(fresh),
        Err(_) => read_secret(&path),
    }
}

/// A secret file: a regular file (not a link) of 32 bytes that only its owner can read or write.
fn read_secret(path: &Path) -> Option<[u8; 32]> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() != 32 {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o077 != 0 {
            return None;
        }
    }
    std::fs::read(path).ok()?.try_into().ok()
}

/// The keyed tag of `parts` under `secret`.
fn tag(secret: &[u8; 32], label: &[u8], data: &[u8]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new_keyed(secret);
    hasher.update(label);
    hasher.update(&[0]);
    hasher.update(data);
    *hasher.finalize().as_bytes()
}

/// What a cache file holds: the files' entries, the units' findings, the skipped and the
/// wanted files' stamps.
#[derive(Default)]
struct Tables {
    entries: HashMap<[u8; 32], Vec<u8>>,
    units: HashMap<[u8; 32], Vec<StoredFinding>>,
    skipped: HashMap<[u8; 32], Skipped>,
    wanted: HashMap<[u8; 32], Wanted>,
}

/// The tables of the cache file at `path` if it holds `key` and was written under `secret`.
fn read_cache(path: &Path, key: &str, secret: &[u8; 32]) -> Option<Tables> {
    let body = read_tagged(path, MAGIC, key, secret)?;
    let body: CacheBody = postcard::from_bytes(&body).ok()?;
    Some(Tables {
        entries: body.entries.into_iter().collect(),
        units: body.units.into_iter().collect(),
        skipped: body.skipped.into_iter().collect(),
        wanted: body.wanted.into_iter().collect(),
    })
}

/// The groups' records in the file at `path` if it holds `key` and was written under `secret`.
fn read_groups(
    path: &Path,
    key: &str,
    secret: &[u8; 32],
) -> Option<HashMap<[u8; 32], GroupRecord>> {
    let body = read_tagged(path, GROUPS_MAGIC, key, secret)?;
    let body: Vec<([u8; 32], GroupRecord)> = postcard::from_bytes(&body).ok()?;
    Some(body.into_iter().collect())
}

/// The body of the file at `path` if it starts with `magic`, holds `key` and was written under
/// `secret` (its tags hold).
fn read_tagged(path: &Path, magic: &[u8; 8], key: &str, secret: &[u8; 32]) -> Option<Vec<u8>> {
    use std::io::Read;
    let metadata = std::fs::symlink_metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_CACHE_SIZE {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut header = [0u8; 8 + 32 + 32];
    file.read_exact(&mut header).ok()?;
    let (found, tags) = header.split_at(8);
    let (key_tag, body_tag) = tags.split_at(32);
    if found != magic || key_tag != tag(secret, b"key", key.as_bytes()) {
        return None;
    }
    // Room for the whole body at once (it is megabytes: grown and copied by doubling it cost
    // more than reading it).
    let mut body = Vec::new();
    let room = usize::try_from(metadata.len().saturating_sub(header.len() as u64) + 1).ok()?;
    body.try_reserve_exact(room).ok()?;
    file.take(MAX_CACHE_SIZE + 1).read_to_end(&mut body).ok()?;
    if body.len() as u64 > MAX_CACHE_SIZE || body_tag != tag(secret, magic, &body) {
        return None;
    }
    Some(body)
}

/// Write `body` to `path` under `magic`, `key` and `secret`, atomically, never through a link.
fn write_tagged(path: &Path, magic: &[u8; 8], key: &str, secret: &[u8; 32], body: &[u8]) {
    let Some(directory) = path.parent() else {
        return;
    };
    if std::fs::create_dir_all(directory).is_err() {
        return;
    }
    // Never through a link: the directory and any file in the way must be real.
    if std::fs::symlink_metadata(directory).is_ok_and(|m| !m.is_dir())
        || std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file())
    {
        return;
    }
    if let Ok(mut temporary) = tempfile::NamedTempFile::new_in(directory) {
        use std::io::Write;
        let written = temporary.write_all(magic).is_ok()
            && temporary
                .write_all(&tag(secret, b"key", key.as_bytes()))
                .is_ok()
            && temporary.write_all(&tag(secret, magic, body)).is_ok()
            && temporary.write_all(body).is_ok();
        if written {
            let _ = temporary.persist(path);
        }
    }
}

/// The cache of one run.
pub struct Cache {
    path: PathBuf,
    /// The file of the groups' records.
    groups_path: PathBuf,
    key: String,
    /// No secret: nothing is read or written.
    secret: Option<[u8; 32]>,
    /// The facts file's tables, read when a run first asks for any of them: a run whose groups
    /// all come from their records reads none.
    tables: std::sync::OnceLock<Tables>,
    /// Each file's outcome, encoded (see [`CacheBody`]).
    used: Used<Vec<u8>>,
    used_units: Used<Vec<StoredFinding>>,
    used_skipped: Used<Skipped>,
    used_wanted: Used<Wanted>,
    groups: HashMap<[u8; 32], GroupRecord>,
    used_groups: Used<GroupRecord>,
    /// The keys of the tables read or made since it was last taken (see [`Cache::take_journal`]).
    journal: Mutex<Journal>,
}

/// What a run used of one table of the cache: the keys of the entries it read (written back
/// from the table, not copied on each read), and the entries it made.
struct Used<T> {
    read: Mutex<std::collections::HashSet<[u8; 32]>>,
    made: Mutex<HashMap<[u8; 32], T>>,
}

impl<T> Default for Used<T> {
    fn default() -> Self {
        Used {
            read: Mutex::new(Default::default()),
            made: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Clone> Used<T> {
    /// `table`'s entry for `key`, noted as read.
    fn get(&self, table: &HashMap<[u8; 32], T>, key: &[u8; 32]) -> Option<T> {
        self.get_with(table, key, |value| Some(value.clone()))
    }

    /// What `read` makes of `table`'s entry for `key`, the entry noted as read when it makes
    /// something of it.
    fn get_with<R>(
        &self,
        table: &HashMap<[u8; 32], T>,
        key: &[u8; 32],
        read: impl FnOnce(&T) -> Option<R>,
    ) -> Option<R> {
        let found = read(table.get(key)?)?;
        if let Ok(mut noted) = self.read.lock() {
            noted.insert(*key);
        }
        Some(found)
    }

    /// Note `key` as read, as if a run had read its entry.
    fn keep(&self, key: [u8; 32]) {
        if let Ok(mut noted) = self.read.lock() {
            noted.insert(key);
        }
    }

    /// Whether anything was made.
    fn made_any(&self) -> bool {
        self.made.lock().is_ok_and(|made| !made.is_empty())
    }

    fn make(&self, key: [u8; 32], value: T) {
        if let Ok(mut made) = self.made.lock() {
            made.insert(key, value);
        }
    }

    /// The entries to write back (those read, taken from `table`, and those made: an entry
    /// made under a key that was read too, a group's record made again after its files
    /// changed, replaces the one read), and whether they differ from `table`'s.
    fn written(self, mut table: HashMap<[u8; 32], T>) -> (Vec<([u8; 32], T)>, bool) {
        let read = self.read.into_inner().unwrap_or_default();
        let made = self.made.into_inner().unwrap_or_default();
        let before = table.len();
        table.retain(|key, _| read.contains(key) && !made.contains_key(key));
        let changed = !made.is_empty() || table.len() != before;
        let mut all: Vec<([u8; 32], T)> = table.into_iter().collect();
        all.extend(made);
        (all, changed)
    }
}

// `FACTS_SHAPE`: the shape of the cached facts, a hash of the sources that shape them (the
// analysis, the facts' types, Cargo.lock; see `build/facts_shape.rs`), computed by `build.rs`.
// Any change to them gives a new shape, so a cache written by a build whose analysis differed is
// never read: nothing to raise by hand.
include!(concat!(env!("OUT_DIR"), "/facts_shape.rs"));

/// The key of a whole cache: the tool's version, the facts' shape and the vocabulary (the
/// configuration that shapes facts).
pub fn cache_key(version: &str, vocabulary: &Vocabulary) -> String {
    cache_key_with(version, FACTS_SHAPE, vocabulary)
}

fn cache_key_with(version: &str, shape: u64, vocabulary: &Vocabulary) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(version.as_bytes());
    hasher.update(&shape.to_le_bytes());
    hasher.update(&[0]);
    hasher.update(&postcard::to_allocvec(vocabulary).unwrap_or_default());
    format!("{version}-{}", &hasher.finalize().to_hex()[..16])
}

/// The running binary's size and modification time: a rebuilt binary of the same version (a
/// development build, a reinstall) may analyse differently, so it starts a fresh cache. Empty
/// when the binary cannot be looked at (the version and shape still key the cache).
fn build_stamp() -> String {
    let metadata = std::env::current_exe().and_then(std::fs::metadata);
    let Ok(metadata) = metadata else {
        return String::new();
    };
    let modified = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{:x}-{modified:x}", metadata.len())
}

/// The key of a file's entry: its text and its module path.
pub fn entry_key(text: &str, module: &[String]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(text.as_bytes());
    for segment in module {
        hasher.update(&[0]);
        hasher.update(segment.as_bytes());
    }
    *hasher.finalize().as_bytes()
}

impl Cache {
    /// Open the cache in `directory` (read what is there, if it matches).
    pub fn open(directory: &Path, vocabulary: &Vocabulary) -> Cache {
        Cache::open_for(directory, vocabulary, &[])
    }

    /// The cache of a run without preview mode whose enabled rules collect facts under
    /// `collectors` (their keys): a run with other rules enabled records other facts, so it keeps
    /// a cache of its own.
    pub fn open_for(directory: &Path, vocabulary: &Vocabulary, collectors: &[&str]) -> Cache {
        Cache::open_in_mode(directory, vocabulary, collectors, false)
    }

    /// [`Cache::open_for`], for a run in preview mode or not: each mode keeps a cache of its
    /// own, so what a run in one mode recorded is never read by a run in the other (a shape in
    /// preview may be collected only in preview mode).
    pub fn open_in_mode(
        directory: &Path,
        vocabulary: &Vocabulary,
        collectors: &[&str],
        preview: bool,
    ) -> Cache {
        let key = format!(
            "{}-{}-{}-{}",
            cache_key(env!("CARGO_PKG_VERSION"), vocabulary),
            collectors.join("+"),
            if preview { "preview" } else { "stable" },
            build_stamp()
        );
        let path = directory.join("facts-v7.bin");
        let groups_path = directory.join("groups-v1.bin");
        let secret = secret();
        let groups = secret
            .as_ref()
            .and_then(|secret| read_groups(&groups_path, &key, secret))
            .unwrap_or_default();
        Cache {
            path,
            groups_path,
            key,
            secret,
            tables: std::sync::OnceLock::new(),
            used: Used::default(),
            used_units: Used::default(),
            used_skipped: Used::default(),
            used_wanted: Used::default(),
            groups,
            used_groups: Used::default(),
            journal: Mutex::new(Vec::new()),
        }
    }

    /// The facts file's tables, read on first use.
    fn tables(&self) -> &Tables {
        self.tables.get_or_init(|| {
            self.secret
                .as_ref()
                .and_then(|secret| read_cache(&self.path, &self.key, secret))
                .unwrap_or_default()
        })
    }

    fn note(&self, table: Table, key: &[u8; 32]) {
        if let Ok(mut journal) = self.journal.lock() {
            journal.push((table, *key));
        }
    }

    /// The keys of the tables read or made since the last call (or since the cache was opened).
    pub fn take_journal(&self) -> Journal {
        self.journal
            .lock()
            .map(|mut journal| std::mem::take(&mut *journal))
            .unwrap_or_default()
    }

    /// Keep the entries of `journal` as if this run had read them (a group taken from its
    /// record used them when it was recorded).
    pub fn keep(&self, journal: &Journal) {
        for (table, key) in journal {
            match table {
                Table::Entries => self.used.keep(*key),
                Table::Units => self.used_units.keep(*key),
                Table::Skipped => self.used_skipped.keep(*key),
                Table::Wanted => self.used_wanted.keep(*key),
            }
        }
    }

    /// The record of the group with this key, if any.
    pub fn group(&self, key: &[u8; 32]) -> Option<GroupRecord> {
        self.used_groups.get(&self.groups, key)
    }

    /// Remember a group's record (to be written back).
    pub fn remember_group(&self, key: [u8; 32], record: GroupRecord) {
        self.used_groups.make(key, record);
    }

    /// How many groups' records were read from disk.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The keys of the groups' records read from disk.
    pub fn group_keys(&self) -> Vec<[u8; 32]> {
        self.groups.keys().copied().collect()
    }

    /// How many entries were read from disk.
    pub fn len(&self) -> usize {
        self.tables().entries.len()
    }

    /// How many skipped files' stamps were read from disk.
    pub fn skipped_count(&self) -> usize {
        self.tables().skipped.len()
    }

    /// How many units' findings were read from disk.
    pub fn unit_count(&self) -> usize {
        self.tables().units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tables().entries.is_empty()
    }

    /// The cached outcome of a text, if any.
    pub fn get(&self, entry: &[u8; 32]) -> Option<Cached> {
        let found = self.used.get_with(&self.tables().entries, entry, |bytes| {
            postcard::from_bytes(bytes).ok()
        });
        found.inspect(|_| self.note(Table::Entries, entry))
    }

    /// Remember a text's outcome (to be written back).
    pub fn remember(&self, entry: [u8; 32], outcome: &Cached) {
        if let Ok(bytes) = postcard::to_stdvec(outcome) {
            self.used.make(entry, bytes);
            self.note(Table::Entries, &entry);
        }
    }

    /// The findings a unit with this key gave, if any are cached.
    pub fn unit_findings(&self, key: &[u8; 32]) -> Option<Vec<StoredFinding>> {
        let found = self.used_units.get(&self.tables().units, key);
        found.inspect(|_| self.note(Table::Units, key))
    }

    /// The three-byte sequences of a file skipped before, and the modules it declares, if its
    /// stamp is still `stamp`.
    pub fn skipped_before(
        &self,
        key: &[u8; 32],
        stamp: &Stamp,
    ) -> Option<(Trigrams, Vec<ModDecl>)> {
        let table = &self.tables().skipped;
        let (known, ..) = table.get(key)?;
        if known != stamp {
            return None;
        }
        let (_, trigrams, declared) = self.used_skipped.get(table, key)?;
        self.note(Table::Skipped, key);
        trigrams.is_well_formed().then_some((trigrams, declared))
    }

    /// A wanted file's entry and its text's length and hash, if the file was wanted with this
    /// stamp (its metadata unchanged since).
    pub fn wanted_before(
        &self,
        key: &[u8; 32],
        stamp: &Stamp,
    ) -> Option<([u8; 32], u64, [u8; 32])> {
        let table = &self.tables().wanted;
        let (known, ..) = table.get(key)?;
        if known != stamp {
            return None;
        }
        let (_, entry, len, hash) = self.used_wanted.get(table, key)?;
        self.note(Table::Wanted, key);
        Some((entry, len, hash))
    }

    /// Remember that a file with this stamp was wanted, its entry and its text's length and
    /// hash (to be written back).
    pub fn remember_wanted(
        &self,
        key: [u8; 32],
        stamp: Stamp,
        entry: [u8; 32],
        text: (u64, [u8; 32]),
    ) {
        self.used_wanted.make(key, (stamp, entry, text.0, text.1));
        self.note(Table::Wanted, &key);
    }

    /// How many wanted files' stamps were read from disk.
    pub fn wanted_count(&self) -> usize {
        self.tables().wanted.len()
    }

    /// Remember that a file with this stamp was skipped, its three-byte sequences and the
    /// modules it declares (to be written back).
    pub fn remember_skipped(
        &self,
        key: [u8; 32],
        stamp: Stamp,
        (trigrams, declared): (Trigrams, Vec<ModDecl>),
    ) {
        self.used_skipped.make(key, (stamp, trigrams, declared));
        self.note(Table::Skipped, &key);
    }

    /// Remember a unit's findings (to be written back).
    pub fn remember_unit(&self, key: [u8; 32], findings: Vec<StoredFinding>) {
        self.used_units.make(key, findings);
        self.note(Table::Units, &key);
    }

    /// Write the entries this run used (atomically; a failure only costs the next run time).
    /// The facts file is written only if the run read it (or made entries): a run whose groups
    /// all came from their records leaves it as it is.
    pub fn save(self) {
        let Some(secret) = self.secret else {
            return;
        };
        let (groups, groups_changed) = self.used_groups.written(self.groups);
        if groups_changed {
            if let Ok(body) = postcard::to_allocvec(&groups) {
                write_tagged(&self.groups_path, GROUPS_MAGIC, &self.key, &secret, &body);
            }
        }
        let made = self.used.made_any()
            || self.used_units.made_any()
            || self.used_skipped.made_any()
            || self.used_wanted.made_any();
        if !made && self.tables.get().is_none() {
            return;
        }
        let Tables {
            entries,
            units,
            skipped,
            wanted,
        } = match self.tables.into_inner() {
            Some(tables) => tables,
            None => read_cache(&self.path, &self.key, &secret).unwrap_or_default(),
        };
        let (entries, entries_changed) = self.used.written(entries);
        let (units, units_changed) = self.used_units.written(units);
        let (skipped, skipped_changed) = self.used_skipped.written(skipped);
        let (wanted, wanted_changed) = self.used_wanted.written(wanted);
        if !entries_changed && !units_changed && !skipped_changed && !wanted_changed {
            return;
        }
        let body = CacheBody {
            entries,
            units,
            skipped,
            wanted,
        };
        if let Ok(body) = postcard::to_allocvec(&body) {
            write_tagged(&self.path, MAGIC, &self.key, &secret, &body);
        }
    }
}

/// How `build.rs` computes `FACTS_SHAPE`, for the tests to recompute it.
#[cfg(test)]
#[path = "../build/facts_shape.rs"]
mod facts_shape;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_includes_the_facts_shape() {
        let plain = Vocabulary::default();
        assert_eq!(
            cache_key("0.1.0", &plain),
            cache_key_with("0.1.0", FACTS_SHAPE, &plain)
        );
        assert_ne!(
            cache_key("0.1.0", &plain),
            cache_key_with("0.1.0", FACTS_SHAPE ^ 1, &plain)
        );
    }

    /// The compiled shape is the hash of the sources as they are: `build.rs` reran on every
    /// change to them.
    #[test]
    fn the_facts_shape_is_the_hash_of_the_sources_that_shape_the_facts() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let files = facts_shape::input_files(root).expect("the sources are readable");
        for wanted in [
            "src/analysis/facts.rs",
            "src/analysis/mod.rs",
            "src/rules/mod.rs",
            "src/cache.rs",
            "Cargo.lock",
        ] {
            assert!(files.iter().any(|f| f == wanted), "{wanted}: {files:?}");
        }
        assert!(!files.iter().any(|f| f == "src/cli.rs"), "{files:?}");
        assert_eq!(
            FACTS_SHAPE,
            facts_shape::hash(root).expect("the sources are readable")
        );
    }

    /// Any change to an input file, or a new one, changes the shape; other files do not.
    #[test]
    fn the_shape_changes_with_the_sources_that_shape_the_facts() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let write = |relative: &str, text: &str| {
            let path = root.join(relative);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write("src/analysis/facts.rs", "pub struct FileFacts;\n");
        write("src/rules/mod.rs", "pub fn registry() {}\n");
        let shape = |root: &Path| facts_shape::hash(root).expect("hash");
        let first = shape(root);
        assert_eq!(first, shape(root), "stable");
        write("src/cli.rs", "fn main() {}\n");
        write("src/analysis/notes.txt", "not Rust\n");
        assert_eq!(first, shape(root), "files the facts do not depend on");
        write("src/analysis/facts.rs", "pub struct FileFacts {}\n");
        let edited = shape(root);
        assert_ne!(first, edited, "an edit");
        write("src/analysis/deeper/new.rs", "\n");
        let added = shape(root);
        assert_ne!(edited, added, "a new file below a directory");
        write("Cargo.lock", "version = 4\n");
        assert_ne!(added, shape(root), "the lockfile");
    }

    #[test]
    fn keys_change_with_version_vocabulary_content_and_module() {
        let plain = Vocabulary::default();
        let taught = Vocabulary {
            sink_calls: vec!["emit".into()],
            ..Vocabulary::default()
        };
        assert_ne!(cache_key("0.1.0", &plain), cache_key("0.2.0", &plain));
        assert_ne!(cache_key("0.1.0", &plain), cache_key("0.1.0", &taught));
        assert_eq!(
            cache_key("0.1.0", &plain),
            cache_key("0.1.0", &Vocabulary::default())
        );
        assert_ne!(entry_key("fn a() {}", &[]), entry_key("fn b() {}", &[]));
        assert_ne!(
            entry_key("fn a() {}", &[]),
            entry_key("fn a() {}", &["m".into()])
        );
    }
}
