//! The rules: each reads the crate-wide facts and reports diagnostics. A rule is a file of its
//! own, alone (`syntax_error.rs`) or in its family's folder (`stdio/stdout_pollution.rs`, beside
//! what the family's rules share in `stdio/mod.rs`); each rule's documentation is
//! `rules/<CODE>-<name>.md` at the repository root, embedded here. This file is the registry: a
//! rule's module is declared here, and the rule listed in [`registry`].

pub mod bad_error_code;
pub mod cancel_sends_response;
pub mod contract;
pub mod dispatch;
pub mod internal_error;
pub mod invalid_suppression;
pub mod progress_after_completion;
pub mod stdio;
pub mod syntax_error;
pub mod unused_suppression;

use std::collections::BTreeSet;

use crate::analysis::facts::FileFacts;
use crate::analysis::sends::marks::PathMarks;
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::Collects;
use crate::prefilter::Prefilter;
use crate::settings::Settings;

pub use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
pub use contract::{Library, Rule, RuleContext};

/// The pre-filter of a run: the union of the enabled rules' words.
pub fn prefilter(settings: &Settings) -> Prefilter {
    let rules = enabled(settings);
    let alone = rules
        .iter()
        .flat_map(|r| r.words(&settings.vocabulary))
        .collect();
    let with_mcp = rules
        .iter()
        .flat_map(|r| r.mcp_words())
        .map(|w| w.to_string())
        .collect();
    Prefilter::new(alone, with_mcp, settings.analyse_every_file)
}

/// What the enabled rules look for in the skipped files, from what was parsed.
pub fn follow_up_needles(settings: &Settings, facts: &[&FileFacts]) -> BTreeSet<String> {
    use rayon::prelude::*;
    // Each rule reads every parsed file's facts: the rules run side by side.
    enabled(settings)
        .par_iter()
        .map(|r| r.follow_up(facts, &settings.vocabulary))
        .reduce(BTreeSet::new, |mut all, mut more| {
            all.append(&mut more);
            all
        })
}

/// The rules that can report anything in a run with `settings`: those whose status lets them run
/// (see [`runs`]) and that are not allowed everywhere. The others cost nothing: no hook, no
/// pre-filter words, no check.
pub fn enabled(settings: &Settings) -> Vec<&'static dyn Rule> {
    registry()
        .into_iter()
        .filter(|rule| runs(rule.meta(), settings) && settings.may_report(rule.meta().code))
        .collect()
}

/// Whether a rule's status lets it run with `settings`: it is stable, or preview mode is on.
/// Whatever level a preview rule is given, it reports nothing without preview mode.
pub fn runs(meta: &RuleMeta, settings: &Settings) -> bool {
    !meta.is_preview() || settings.preview
}

/// Whether the rule with this code runs with `settings` (see [`runs`]); a code that names no
/// rule runs (it is not a preview rule).
pub fn code_runs(code: &str, settings: &Settings) -> bool {
    find(code).is_none_or(|rule| runs(rule.meta(), settings))
}

/// The collectors of the enabled rules.
pub fn collectors(settings: &Settings) -> Vec<&'static dyn Collects> {
    let mut collectors: Vec<&'static dyn Collects> = Vec::new();
    // Rules that read the same facts name the same collector: it runs once.
    for &collector in enabled(settings).into_iter().flat_map(|r| r.collectors()) {
        if !collectors.iter().any(|c| c.key() == collector.key()) {
            collectors.push(collector);
        }
    }
    collectors
}

/// The condition whose paths the send analysis follows: a request's cancellation (MCP001's),
/// whichever rules run, so that a file's facts are the same in every run (the cache keeps them
/// by the vocabulary, not by the rules).
pub fn path_marks(vocabulary: &Vocabulary) -> Box<dyn PathMarks + '_> {
    Box::new(cancel_sends_response::marks::Cancellation { vocabulary })
}

/// Every rule, in code order.
pub fn registry() -> Vec<&'static dyn Rule> {
    vec![
        &syntax_error::SyntaxError,
        &cancel_sends_response::rule::CancelSendsResponse,
        &stdio::stdout_pollution::StdioStdoutPollution,
        &dispatch::response_to_notification::ResponseToNotification,
        &dispatch::ping_not_answered::PingNotAnswered,
        &progress_after_completion::ProgressAfterCompletion,
        &bad_error_code::BadErrorCode,
        &stdio::embedded_newline::StdioEmbeddedNewline,
        &unused_suppression::UnusedSuppression,
        &invalid_suppression::InvalidSuppression,
        &internal_error::InternalError,
    ]
}

/// The rule with a code or name, if any.
pub fn find(code_or_name: &str) -> Option<&'static dyn Rule> {
    registry().into_iter().find(|rule| {
        rule.meta().code.eq_ignore_ascii_case(code_or_name) || rule.meta().name == code_or_name
    })
}

/// The table `--list-rules` prints, with a note on preview rules below it when there are any.
pub fn table() -> String {
    let rules = registry();
    // Columns as wide as their longest entry, so that a long name never shifts a row.
    let name_width = rules
        .iter()
        .map(|r| r.meta().name.len())
        .chain(["Name".len()])
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "{:<7} {:<name_width$} {:<8} {:<10} {:<8} {}\n",
        "Code", "Name", "Default", "Fix", "Status", "Summary"
    );
    for rule in rules {
        let m = rule.meta();
        let fix = match m.fix {
            FixAvailability::None => "no",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "yes",
        };
        out.push_str(&format!(
            "{:<7} {:<name_width$} {:<8} {:<10} {:<8} {}\n",
            m.code,
            m.name,
            m.default_severity.as_str(),
            fix,
            m.status.as_str(),
            m.summary
        ));
    }
    if registry().iter().any(|r| r.meta().is_preview()) {
        out.push_str(
            "\nRules in preview run only with `--preview` (or `preview = true` in the \
             configuration).\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::crate_graph::CrateGraph;
    use crate::settings::Level;
    use crate::source::SourceMap;

    #[test]
    fn the_rule_table_columns_line_up() {
        let table = table();
        let mut lines = table.lines().take_while(|l| !l.is_empty());
        let header = lines.next().unwrap_or_default();
        let column = header.find("Default").unwrap_or_default();
        let mut rows = 0;
        for row in lines {
            rows += 1;
            let (name_part, rest) = row.split_at(column);
            assert!(name_part.ends_with(' '), "{row:?}");
            assert!(!rest.starts_with(' '), "{row:?}");
        }
        assert_eq!(rows, registry().len());
    }

    fn parses(filter: &Prefilter, text: &str, follows_modules: bool) -> bool {
        filter.decide(text, follows_modules) == crate::prefilter::Wanted::Parse
    }

    #[test]
    fn the_prefilter_wants_the_enabled_rules_words() {
        let settings = Settings::default();
        let filter = prefilter(&settings);
        assert!(parses(
            &filter,
            "fn f(ct: T) { ct.cancelled().await; }",
            false
        ));
        assert!(parses(&filter, "// mcp-lint: allow(MCP001)", false));
        assert!(!parses(&filter, "fn f() { tx.send(1); }", false));
        // A file that only declares modules is read for them, not parsed (when its tokens
        // show them: else it is parsed).
        let declared = |text: &str| match filter.decide(text, true) {
            crate::prefilter::Wanted::Modules(d) => {
                Some(d.iter().map(|m| m.name.clone()).collect::<Vec<_>>())
            }
            _ => None,
        };
        assert_eq!(declared("mod a;"), Some(vec!["a".to_string()]));
        assert!(parses(&filter, "fn f() { mod a; }", true));
        // Without a module tree to follow, the declarations are read all the same (a stdio
        // server's follow-up asks for such files), and one the tokens do not settle is not
        // parsed.
        assert!(matches!(
            filter.decide("mod a;", false),
            crate::prefilter::Wanted::Modules(_)
        ));
        assert_eq!(
            filter.decide("fn f() { mod a; }", false),
            crate::prefilter::Wanted::Skip
        );
        // Progress words count only in code that speaks MCP.
        assert!(parses(
            &filter,
            "use rmcp::model::*; fn f() { peer.notify_progress(p); }",
            false
        ));
        assert!(parses(
            &filter,
            r#"json!({"method": "notifications/progress"})"#,
            false
        ));
        assert!(!parses(
            &filter,
            "fn f() { bar.notify_progress(50); }",
            false
        ));
        // The word of MCP counts in code and literals, not in a comment; a `tools/` method is one
        // (for the dispatch rules, in preview).
        let filter = prefilter(&Settings {
            preview: true,
            ..Settings::default()
        });
        let arms = "match m { \"ping\" => a(), \"initialize\" => b(), _ => c() }";
        assert!(!parses(
            &filter,
            &format!("// an MCP server\nfn f() {{ {arms} }}"),
            false
        ));
        assert!(parses(
            &filter,
            &format!("fn f() {{ let _ = \"mcp\"; {arms} }}"),
            false
        ));
        assert!(parses(
            &filter,
            "match m { \"tools/list\" => a(), \"ping\" => b() }",
            false
        ));
        let everything = Settings {
            analyse_every_file: true,
            ..Settings::default()
        };
        assert!(parses(&prefilter(&everything), "", false));
    }

    #[test]
    fn a_rule_allowed_everywhere_costs_nothing() {
        // In preview mode, so that MCP002 (in preview) runs.
        let mut settings = Settings {
            preview: true,
            ..Settings::default()
        };
        settings.command_line.insert("MCP001", Level::Allow);
        assert!(!enabled(&settings).iter().any(|r| r.meta().code == "MCP001"));
        // Its words no longer make a file worth parsing; the other rules' still do.
        let filter = prefilter(&settings);
        assert!(!parses(
            &filter,
            "fn f(ct: T) { ct.cancelled().await; }",
            false
        ));
        assert!(parses(&filter, "fn main() { serve(stdio()) }", false));
        // Nor is a collecting rule's hook run.
        settings.command_line.insert("MCP005", Level::Allow);
        assert!(!collectors(&settings).iter().any(|c| c.key() == "MCP005"));
        assert!(collectors(&Settings::default())
            .iter()
            .any(|c| c.key() == "MCP005"));
        // A rule in preview costs nothing outside preview mode: with MCP002 off, MCP007 (in
        // preview, whose words are MCP002's) makes no stdio server worth parsing.
        let mut settings = Settings::default();
        settings.command_line.insert("MCP002", Level::Allow);
        assert!(!parses(
            &prefilter(&settings),
            "fn main() { serve(stdio()) }",
            false
        ));
        settings.preview = true;
        assert!(parses(
            &prefilter(&settings),
            "fn main() { serve(stdio()) }",
            false
        ));
    }

    #[test]
    fn a_collector_two_rules_name_runs_once_and_not_when_both_are_off() {
        let stdio = |settings: &Settings| {
            collectors(settings)
                .iter()
                .filter(|c| c.key() == "stdio")
                .count()
        };
        // In preview mode, so that MCP007 (in preview) runs.
        let mut settings = Settings {
            preview: true,
            ..Settings::default()
        };
        assert_eq!(stdio(&settings), 1);
        settings.command_line.insert("MCP002", Level::Allow);
        assert_eq!(stdio(&settings), 1);
        settings.command_line.insert("MCP007", Level::Allow);
        assert_eq!(stdio(&settings), 0);
        // Without preview mode, MCP007 costs nothing either.
        settings.command_line.remove("MCP007");
        settings.preview = false;
        assert_eq!(stdio(&settings), 0);
    }

    /// Each rule's status is worded as `--list-rules` and its page word it (the rule pages' test
    /// checks that a preview rule's page says how to turn preview mode on); which rules are in
    /// preview is the registry's to say, not this test's.
    #[test]
    fn each_rules_status_is_worded_from_the_registry() {
        let table = table();
        for rule in registry() {
            let meta = rule.meta();
            let word = if meta.is_preview() {
                "preview"
            } else {
                "stable"
            };
            assert_eq!(meta.status.as_str(), word, "{}", meta.code);
            let row = table
                .lines()
                .find(|l| l.starts_with(meta.code))
                .unwrap_or_default();
            assert!(row.contains(&format!(" {word} ")), "{row}");
            let status = format!("- Status: {word}");
            assert!(meta.docs.contains(&status), "{}: {status}", meta.code);
        }
    }

    #[test]
    fn a_preview_rule_runs_only_in_preview_mode_whatever_its_level() {
        let is_enabled = |settings: &Settings, code: &str| {
            enabled(settings).iter().any(|r| r.meta().code == code)
        };
        let mut settings = Settings::default();
        assert!(!is_enabled(&settings, "MCP007"), "not by default");
        assert!(is_enabled(&settings, "MCP005"), "a stable rule runs");
        assert!(!code_runs("MCP007", &settings));
        assert!(code_runs("MCP005", &settings) && code_runs("MCP555", &settings));
        for level in [Level::Warn, Level::Deny] {
            settings.command_line.insert("MCP007", level);
            assert!(
                !is_enabled(&settings, "MCP007"),
                "not when named: {level:?}"
            );
        }
        settings.preview = true;
        assert!(is_enabled(&settings, "MCP007"), "in preview mode");
        assert!(code_runs("MCP007", &settings));
        settings.command_line.insert("MCP007", Level::Allow);
        assert!(!is_enabled(&settings, "MCP007"), "allowed in preview mode");
    }

    #[test]
    fn the_context_tells_a_rule_whether_preview_mode_is_on() {
        let facts = FileFacts::default();
        let graph = CrateGraph::new(vec![(0, &facts)]);
        let sources = SourceMap::default();
        let preview = |on: bool| {
            let settings = Settings {
                preview: on,
                ..Settings::default()
            };
            let context = RuleContext {
                graph: &graph,
                sources: &sources,
                settings: &settings,
                sdk: None,
                is_target: false,
                whole_crate: false,
                is_test_target: false,
                memo: Default::default(),
                test_files: &Default::default(),
                gated_files: &Default::default(),
                default_features: None,
                shared_files: &Default::default(),
                libraries: &[],
            };
            context.preview()
        };
        assert!(!preview(false));
        assert!(preview(true));
    }

    #[test]
    fn the_table_shows_each_rules_status() {
        let table = table();
        let header = table.lines().next().unwrap_or_default();
        assert!(header.contains(" Status "), "{header}");
        // The note on preview mode is there when a rule is in preview.
        let any_preview = registry().iter().any(|r| r.meta().is_preview());
        assert_eq!(table.contains("`--preview`"), any_preview, "{table}");
    }
}
