//! The facts cache never changes results, and is invalidated by any change of file content,
//! configuration (vocabulary) or tool version.

use std::path::{Path, PathBuf};

use cargo_mcp_lint::analysis::vocabulary::Vocabulary;
use cargo_mcp_lint::cache::{self, Cache};
use cargo_mcp_lint::config::{Level, Settings};
use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine::{self, LintResult, Overlay};

mod support;

fn summary(result: &LintResult) -> Vec<String> {
    result
        .diagnostics
        .iter()
        .map(|d| {
            let path = result
                .sources
                .get(d.file)
                .map(|s| s.display_path.clone())
                .unwrap_or_default();
            // The whole finding: labels, notes, help and fix too (a warm run takes a unit's
            // findings from the cache whole).
            format!("{path}: {d:?}")
        })
        .collect()
}

/// A cancel path that sends a response: one MCP001 finding.
const SENDS: &str =
    "fn on_cancelled(&self) {\n    self.send_error(-32800, \"Request cancelled\");\n}\n";

/// Lint in preview mode, so the rules in preview are compared too.
fn lint(paths: &[PathBuf], cache_directory: Option<&Path>) -> LintResult {
    let mut settings = Settings::default();
    settings.preview = true;
    settings.cache_directory = cache_directory.map(Path::to_path_buf);
    let units = path_mode::discover(paths).expect("discover");
    engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings)
}

#[test]
fn the_cache_never_changes_results() {
    let copy = tempfile::tempdir().expect("temp dir");
    let root = copy.path().join("fixtures");
    support::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &root,
    );
    let cache = tempfile::tempdir().expect("temp dir");
    let mut compared = 0;
    for rule in std::fs::read_dir(&root).expect("fixtures") {
        let rule = rule.expect("entry").path();
        let without = lint(std::slice::from_ref(&rule), None);
        let cold = lint(std::slice::from_ref(&rule), Some(cache.path()));
        let warm = lint(std::slice::from_ref(&rule), Some(cache.path()));
        assert_eq!(
            summary(&cold),
            summary(&without),
            "{}: cold cache",
            rule.display()
        );
        assert_eq!(
            summary(&warm),
            summary(&without),
            "{}: warm cache",
            rule.display()
        );
        compared += without.diagnostics.len();
    }
    assert!(
        compared > 50,
        "the fixtures hold findings to compare: {compared}"
    );
    assert!(
        std::fs::read_dir(cache.path())
            .expect("cache written")
            .count()
            > 0,
        "the cache was written"
    );
    let written = preview_cache(cache.path());
    assert!(
        written.unit_count() > 0,
        "the units' findings were kept, not only the files' facts"
    );
}

/// The cache in `dir` of a preview run with the default configuration.
fn preview_cache(dir: &Path) -> Cache {
    Cache::open_in_mode(dir, &Vocabulary::default(), &collector_keys(), true)
}

/// The keys of the rules that collect facts in a preview run with the default configuration.
fn collector_keys() -> Vec<&'static str> {
    let mut settings = Settings::default();
    settings.preview = true;
    cargo_mcp_lint::rules::collectors(&settings)
        .iter()
        .map(|c| c.key())
        .collect()
}

#[test]
fn a_content_change_invalidates_the_entry() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("server.rs");
    std::fs::write(
        &file,
        "fn on_cancelled(&self) {\n    self.send_error(-32800, \"Request cancelled\");\n}\n",
    )
    .expect("write");
    assert_eq!(
        lint(std::slice::from_ref(&file), Some(cache.path()))
            .diagnostics
            .len(),
        1
    );
    assert_eq!(
        lint(std::slice::from_ref(&file), Some(cache.path()))
            .diagnostics
            .len(),
        1,
        "warm"
    );
    std::fs::write(
        &file,
        "fn on_cancelled(&self) {\n    self.token.cancel();\n}\n",
    )
    .expect("write");
    assert_eq!(
        lint(&[file], Some(cache.path())).diagnostics.len(),
        0,
        "the edit is seen"
    );
}

#[test]
fn a_vocabulary_change_invalidates_the_cache() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache_dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("server.rs");
    std::fs::write(
        &file,
        "fn on_cancelled(&self) {\n    self.emit_answer(0);\n}\n",
    )
    .expect("write");
    assert!(lint(std::slice::from_ref(&file), Some(cache_dir.path()))
        .diagnostics
        .is_empty());
    let mut settings = Settings::default();
    settings.cache_directory = Some(cache_dir.path().to_path_buf());
    settings.vocabulary = Vocabulary {
        sink_calls: vec!["emit_answer".into()],
        ..Vocabulary::default()
    };
    let units = path_mode::discover(&[file]).expect("discover");
    let result = engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings);
    assert_eq!(
        result.diagnostics.len(),
        1,
        "the configured sink is seen despite the cache"
    );
}

#[test]
fn a_cache_of_another_version_or_vocabulary_is_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = Vocabulary::default();
    let cache = Cache::open(dir.path(), &plain);
    cache.remember(
        [7; 32],
        &cache::Cached::SyntaxError(Default::default(), "x".into()),
    );
    cache.save();
    assert_eq!(Cache::open(dir.path(), &plain).len(), 1, "read back");
    let taught = Vocabulary {
        cancel_hooks: vec!["on_abort".into()],
        ..Vocabulary::default()
    };
    assert!(
        Cache::open(dir.path(), &taught).is_empty(),
        "another vocabulary"
    );
    assert_eq!(
        Cache::open_in_mode(dir.path(), &plain, &[], false).len(),
        1,
        "`open` is the cache of a run without preview mode"
    );
    assert!(
        Cache::open_in_mode(dir.path(), &plain, &[], true).is_empty(),
        "a run in preview mode does not read the cache of a run without it"
    );
    assert_ne!(
        cache::cache_key("0.1.0", &plain),
        cache::cache_key("0.1.1", &plain),
        "another version"
    );
}

/// Lint `dir` with `cache` and `settings` (in preview mode).
fn lint_with_settings(dir: &Path, cache: &Path, mut settings: Settings) -> Vec<String> {
    settings.preview = true;
    settings.cache_directory = Some(cache.to_path_buf());
    let units = path_mode::discover(&[dir.to_path_buf()]).expect("discover");
    summary(&engine::lint_with(
        &units,
        Path::new("/"),
        &Overlay::new(),
        &settings,
    ))
}

/// Files written more than two seconds ago are stamped when skipped, and skipped unread while
/// their metadata is unchanged; a change of the file makes it read again.
#[test]
fn a_skipped_file_is_read_again_once_it_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let quiet = "pub fn helper() -> u32 {\n    41 + 1\n}\n";
    std::fs::write(dir.path().join("main.rs"), "fn main() {}\n").expect("write");
    std::fs::write(dir.path().join("helper.rs"), quiet).expect("write");
    // Neither stamped nor trusted while recent: wait until they are not.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert!(lint_with_settings(dir.path(), cache.path(), Settings::default()).is_empty());
    let stamped = preview_cache(cache.path());
    assert!(
        stamped.skipped_count() == 2,
        "both files were skipped and stamped: {}",
        stamped.skipped_count()
    );
    // Without the group's record (see below), so that the stamps are what the run goes by.
    std::fs::remove_file(groups_file(cache.path())).expect("recorded");
    assert!(lint_with_settings(dir.path(), cache.path(), Settings::default()).is_empty());

    // The file changes, and is old enough to be stamped again by the time it is linted: its
    // stamp is not the one kept, so it is read.
    std::fs::write(dir.path().join("helper.rs"), SENDS).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = lint_with_settings(dir.path(), cache.path(), Settings::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("MCP001"), "{found:?}");
}

/// Files written more than two seconds ago are stamped when the pre-filter wants them, and then
/// taken from the cache unread while their metadata is unchanged (a finding's text is read again
/// when shown); a change of the file makes it read and analysed again.
#[test]
fn a_wanted_file_is_taken_unread_until_it_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let quiet = "fn on_cancelled(&self) {\n    self.log(\"Request cancelled\");\n}\n";
    std::fs::write(dir.path().join("server.rs"), SENDS).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let first = lint_with_settings(dir.path(), cache.path(), Settings::default());
    assert_eq!(first.len(), 1, "{first:?}");
    let stamped = preview_cache(cache.path());
    assert_eq!(stamped.wanted_count(), 1, "the wanted file was stamped");
    drop(stamped);
    // Unread, from its stamp: the same finding, its text read again to be shown (without the
    // group's record, so that the stamps are what the run goes by).
    std::fs::remove_file(groups_file(cache.path())).expect("recorded");
    assert_eq!(
        lint_with_settings(dir.path(), cache.path(), Settings::default()),
        first
    );

    // The file changes (and is old enough to be stamped by the time it is linted): its stamp
    // is not the one kept, so it is read and analysed again.
    std::fs::write(dir.path().join("server.rs"), quiet).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = lint_with_settings(dir.path(), cache.path(), Settings::default());
    assert!(found.is_empty(), "{found:?}");
}

/// Lint the crate whose root is `root` as cargo mode does (following its module tree), with
/// `cache`, in preview mode.
fn lint_from_root(root: &Path, cache: &Path) -> Vec<String> {
    use cargo_mcp_lint::engine::LintUnit;
    let unit = LintUnit {
        follow_modules: true,
        rooted: true,
        ..support::unit("crate", vec![support::root_file(root)])
    };
    let mut settings = Settings::default();
    settings.preview = true;
    settings.cache_directory = Some(cache.to_path_buf());
    summary(&engine::lint_with(
        std::slice::from_ref(&unit),
        Path::new("/"),
        &Overlay::new(),
        &settings,
    ))
}

/// A crate root that only declares modules is read for its declarations, not parsed, and stamped
/// with them: a warm run takes them from its stamp, unread, and still finds the module's files.
#[test]
fn a_files_module_declarations_are_kept_with_its_stamp() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("lib.rs"), "pub mod server;\n").expect("write");
    std::fs::write(dir.path().join("server.rs"), SENDS).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let run = || lint_from_root(&dir.path().join("lib.rs"), cache.path());
    let cold = run();
    assert_eq!(cold.len(), 1, "{cold:?}");
    assert!(cold[0].contains("server.rs"), "{cold:?}");
    let stamped = preview_cache(cache.path());
    assert_eq!(
        stamped.skipped_count(),
        1,
        "the root was skipped and stamped"
    );
    drop(stamped);
    std::fs::remove_file(groups_file(cache.path())).expect("recorded");
    assert_eq!(
        run(),
        cold,
        "the warm run found the module through the stamp"
    );
}

/// In a stdio server, the files read only for their module declarations are parsed by a
/// follow-up wave (the serving path runs through them) and stamped as wanted: a warm run takes
/// their facts unread, with the same findings.
#[test]
fn a_stdio_servers_module_files_are_stamped_when_parsed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    support::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mcp002/logger_before_dispatch_module"),
        dir.path(),
    );
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let run = || lint_from_root(&dir.path().join("src/main.rs"), cache.path());
    let cold = run();
    assert_eq!(cold.len(), 1, "{cold:?}");
    assert!(cold[0].contains("MCP002"), "{cold:?}");
    let stamped = preview_cache(cache.path());
    // The serving file, and the three that declare modules (`main.rs`, `cli/mod.rs`,
    // `cli/dispatch/mod.rs`), parsed by the wave.
    assert_eq!(stamped.wanted_count(), 4, "the wave's files were stamped");
    drop(stamped);
    std::fs::remove_file(groups_file(cache.path())).expect("recorded");
    assert_eq!(run(), cold);
}

/// The cache's files in `dir`: the facts, and the groups' records.
fn facts_file(dir: &Path) -> PathBuf {
    dir.join("facts-v7.bin")
}

fn groups_file(dir: &Path) -> PathBuf {
    dir.join("groups-v1.bin")
}

/// Files written more than two seconds ago are stamped, and a group whose files all keep their
/// stamps is taken whole from its record: the same findings as without a cache, without the
/// facts file (neither read nor written again). Without the records, the stamps give the same
/// findings too.
#[test]
fn a_group_is_taken_from_its_record_while_its_files_keep_their_stamps() {
    let copy = tempfile::tempdir().expect("temp dir");
    let root = copy.path().join("fixtures");
    support::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &root,
    );
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let mut compared = 0;
    for rule in std::fs::read_dir(&root).expect("fixtures") {
        let rule = rule.expect("entry").path();
        let cache = tempfile::tempdir().expect("temp dir");
        let without = summary(&lint(std::slice::from_ref(&rule), None));
        let run = || summary(&lint(std::slice::from_ref(&rule), Some(cache.path())));
        assert_eq!(run(), without, "{}: cold cache", rule.display());
        assert!(
            preview_cache(cache.path()).group_count() > 0,
            "{}: the groups were recorded",
            rule.display()
        );
        let facts = std::fs::read(facts_file(cache.path())).expect("facts written");
        std::fs::remove_file(facts_file(cache.path())).expect("remove");
        assert_eq!(run(), without, "{}: from the records", rule.display());
        assert!(
            !facts_file(cache.path()).exists(),
            "{}: every group came from its record, no facts were needed",
            rule.display()
        );
        std::fs::write(facts_file(cache.path()), facts).expect("write");
        std::fs::remove_file(groups_file(cache.path())).expect("remove");
        assert_eq!(run(), without, "{}: from the stamps", rule.display());
        compared += without.len();
    }
    assert!(compared > 50, "findings compared: {compared}");
}

/// A module file that a declaration looked for and did not find is part of the group's record:
/// once it is made, the group is linted again and finds what it holds.
#[test]
fn a_module_file_made_later_is_found() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("lib.rs"), "pub mod server;\n").expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let run = || lint_from_root(&dir.path().join("lib.rs"), cache.path());
    assert!(run().is_empty());
    assert!(run().is_empty(), "from the record");
    assert_eq!(preview_cache(cache.path()).group_count(), 1);
    std::fs::create_dir(dir.path().join("server")).expect("mkdir");
    std::fs::write(dir.path().join("server/mod.rs"), SENDS).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = run();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("server/mod.rs"), "{found:?}");
    // The group was recorded again (its new record replaced the old one): the next run takes
    // it from there, without the facts.
    std::fs::remove_file(facts_file(cache.path())).expect("facts written");
    assert_eq!(run(), found);
    assert!(
        !facts_file(cache.path()).exists(),
        "taken from the new record"
    );
}

/// A file reached through a link that is pointed at another file is not the file recorded: the
/// group is linted again (here the finding is in a module the first target declared, so the
/// text it shows is unchanged: only the link's new target tells).
#[cfg(unix)]
#[test]
fn a_link_pointed_elsewhere_is_not_the_file_recorded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("with_server.rs"), "pub mod server;\n").expect("write");
    std::fs::write(dir.path().join("without.rs"), "pub fn nothing() {}\n").expect("write");
    std::fs::write(dir.path().join("server.rs"), SENDS).expect("write");
    let link = dir.path().join("lib.rs");
    std::os::unix::fs::symlink("with_server.rs", &link).expect("link");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let run = || lint_from_root(&link, cache.path());
    assert_eq!(run().len(), 1);
    assert_eq!(run().len(), 1, "from the record");
    std::fs::remove_file(&link).expect("remove");
    std::os::unix::fs::symlink("without.rs", &link).expect("link");
    let found = run();
    assert!(found.is_empty(), "{found:?}");
}

/// The settings that change findings are part of a group's key: a rule set to warn on the
/// command line is not taken from a record made while it was an error.
#[test]
fn a_record_made_under_other_settings_is_not_used() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("server.rs"), SENDS).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let plain = || lint_with_settings(dir.path(), cache.path(), Settings::default());
    assert_eq!(plain().len(), 1);
    assert_eq!(plain().len(), 1, "from the record");
    assert!(plain()[0].contains("severity: Error"), "{:?}", plain());
    let mut warned = Settings::default();
    warned
        .apply_command_line(&vec![(Level::Warn, "MCP001".to_string())])
        .expect("a rule");
    let found = lint_with_settings(dir.path(), cache.path(), warned);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("severity: Warning"), "{found:?}");
    assert!(plain()[0].contains("severity: Error"), "{:?}", plain());
}
