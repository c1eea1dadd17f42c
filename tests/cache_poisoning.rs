//! A cache committed into the tree cannot change a result (issue 14): its entries are trusted
//! only under a secret kept outside the tree, in the user's cache directory. One test in its own
//! binary, because it sets `XDG_CACHE_HOME` (where that secret lives) for the process.

use std::path::Path;

use cargo_mcp_lint::cache::{self, Cache};
use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine::{self, Overlay};
use cargo_mcp_lint::rules;

const CLEAN: &str = "pub fn on_cancelled(&self, id: u64) {\n    self.forget(id);\n}\n";
const BUGGY: &str =
    "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"Request cancelled\");\n}\n";

fn findings(tree: &Path, cache_directory: &Path) -> usize {
    let mut settings = Settings::default();
    settings.cache_directory = Some(cache_directory.to_path_buf());
    let units = path_mode::discover(&[tree.to_path_buf()]).expect("discover");
    engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings)
        .diagnostics
        .len()
}

#[test]
fn a_cache_written_under_another_secret_is_never_read() {
    let tree = tempfile::tempdir().expect("temp dir");
    let server = tree.path().join("server.rs");
    let cache_directory = tree.path().join("target/mcp-lint");
    let attacker = tempfile::tempdir().expect("temp dir");
    let victim = tempfile::tempdir().expect("temp dir");

    // The attacker, on their machine, caches the clean text's facts, then files them under the
    // buggy text's key, and commits the cache.
    std::env::set_var("XDG_CACHE_HOME", attacker.path());
    std::fs::write(&server, CLEAN).expect("write");
    assert_eq!(findings(tree.path(), &cache_directory), 0);
    let settings = Settings::default();
    let collectors: Vec<&str> = rules::collectors(&settings)
        .iter()
        .map(|c| c.key())
        .collect();
    let module = path_mode::module_of(&server);
    let forged = Cache::open_in_mode(&cache_directory, &settings.vocabulary, &collectors, false);
    let clean_facts = forged
        .get(&cache::entry_key(CLEAN, &module))
        .expect("the clean text's entry");
    forged.remember(cache::entry_key(BUGGY, &module), &clean_facts);
    forged.save();
    std::fs::write(&server, BUGGY).expect("write");
    assert_eq!(
        findings(tree.path(), &cache_directory),
        0,
        "under the attacker's own secret the forged entry is read (the test forges for real)"
    );

    // Another machine (another secret) never reads it: the finding is reported.
    std::env::set_var("XDG_CACHE_HOME", victim.path());
    assert_eq!(findings(tree.path(), &cache_directory), 1);

    // A huge committed cache file costs nothing: it is not read past its header.
    let huge = cache_directory.join("facts-v7.bin");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&huge)
        .expect("open");
    file.set_len(cache::MAX_CACHE_SIZE * 4)
        .expect("sparse file");
    assert_eq!(findings(tree.path(), &cache_directory), 1);

    // A group's record (taken whole, without its files' facts, while their stamps hold) is
    // forged likewise: the attacker records the buggy text's group, empties its findings, and
    // commits the records. The file must be old enough to be stamped for a record to be made.
    let records = tree.path().join("target/mcp-lint-records");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    std::env::set_var("XDG_CACHE_HOME", attacker.path());
    assert_eq!(findings(tree.path(), &records), 1);
    let forged = Cache::open_in_mode(&records, &settings.vocabulary, &collectors, false);
    assert!(forged.group_count() > 0, "the group was recorded");
    for key in forged.group_keys() {
        let mut record = forged.group(&key).expect("a record");
        record.findings.clear();
        forged.remember_group(key, record);
    }
    forged.save();
    assert_eq!(
        findings(tree.path(), &records),
        0,
        "under the attacker's own secret the forged record is read (the test forges for real)"
    );
    std::env::set_var("XDG_CACHE_HOME", victim.path());
    assert_eq!(findings(tree.path(), &records), 1);
}
