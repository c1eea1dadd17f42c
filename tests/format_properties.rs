//! Every output format keeps its grammar whatever text the linted tree puts in its fields
//! (issue 14): file names, messages (which quote string literals), labels, notes, help, fix
//! messages and replacements, and the source text itself, drawn from characters that break
//! formats (line breaks, controls, bidirectional controls, quotes, `%`, `,`, `:`, `<`, `&`,
//! non-characters).

use std::path::PathBuf;
use std::sync::OnceLock;

use cargo_mcp_lint::diagnostic::{Applicability, Diagnostic, Edit, Fix, Label, Severity};
use cargo_mcp_lint::engine::LintResult;
use cargo_mcp_lint::output::{Format, Report};
use cargo_mcp_lint::source::{ByteSpan, SourceFile, SourceMap};
use proptest::prelude::*;

mod support;

/// Characters and pieces that break one format or another (workflow commands old and new among
/// them), and plain ones.
fn hostile_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "z",
        " ",
        "/",
        ".",
        "\\",
        "\n",
        "\r",
        "\t",
        "\u{0}",
        "\u{7}",
        "\u{1b}",
        "\u{7f}",
        "\u{85}",
        "\u{9b}",
        "\u{202e}",
        "\u{2066}",
        "\u{200f}",
        "\u{2028}",
        "\u{feff}",
        "\u{fffe}",
        "\u{ffff}",
        "\u{200b}",
        "\u{2060}",
        "\u{e0041}",
        "%",
        ",",
        ":",
        "\"",
        "'",
        "<",
        ">",
        "&",
        "]",
        "[",
        "{",
        "}",
        "#",
        "?",
        "é",
        "語",
        "🦀",
        "::",
        "##[",
        "::error::x",
        "##[error]x",
        "\n::stop-commands::t\n",
        "\n  ::warning::w",
    ])
}

fn hostile_text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_piece(), 0..max).prop_map(|c| c.concat())
}

/// A byte offset of `text` on a character boundary, from a fraction.
fn boundary(text: &str, fraction: f64) -> usize {
    let mut at = ((text.len() as f64) * fraction) as usize;
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[derive(Debug, Clone)]
struct Case {
    path: String,
    text: String,
    findings: Vec<(String, String, String, String, String, f64, f64)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        hostile_text(12),
        hostile_text(200),
        prop::collection::vec(
            (
                hostile_text(30),
                hostile_text(20),
                hostile_text(20),
                hostile_text(20),
                hostile_text(20),
                0.0..1.0f64,
                0.0..1.0f64,
            ),
            1..4,
        ),
    )
        .prop_map(|(path, text, findings)| Case {
            path: format!("src/{path}.rs"),
            text,
            findings,
        })
}

fn result_of(case: &Case) -> LintResult {
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new(
        PathBuf::from(&case.path),
        case.path.clone(),
        case.text.clone(),
    ));
    let diagnostics = case
        .findings
        .iter()
        .enumerate()
        .map(|(i, (message, label, note, help, replacement, a, b))| {
            let (a, b) = (boundary(&case.text, *a), boundary(&case.text, *b));
            let span = ByteSpan::new(a.min(b), a.max(b));
            Diagnostic {
                code: "MCP001",
                name: "cancel-sends-response",
                severity: [Severity::Error, Severity::Warning, Severity::Note][i % 3],
                message: message.clone(),
                file,
                span,
                labels: vec![Label {
                    file,
                    span,
                    message: label.clone(),
                }],
                notes: vec![note.clone()],
                help: Some(help.clone()),
                fix: Some(Fix {
                    applicability: Applicability::Safe,
                    message: message.clone(),
                    edits: vec![Edit {
                        file,
                        span,
                        replacement: replacement.clone(),
                    }],
                }),
                context: Some(label.clone()),
            }
        })
        .collect();
    LintResult {
        sources,
        diagnostics,
    }
}

/// The format as the tool writes it: through its channel's last escaping step.
fn emit(format: Format, result: &LintResult) -> String {
    let mut out = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
    cargo_mcp_lint::output::emit_format(format, &Report { result, root: None }, &mut out)
        .expect("written");
    String::from_utf8(out.into_inner()).expect("UTF-8")
}

/// No line a CI runner reads as a command: none that starts, after its blanks, with `::`, and no
/// `##[` anywhere.
fn no_command(format: &str, text: &str) -> Result<(), TestCaseError> {
    for line in text.lines() {
        prop_assert!(!line.trim_start().starts_with("::"), "{format}: {line:?}");
        prop_assert!(!line.contains("##["), "{format}: {line:?}");
    }
    Ok(())
}

fn sarif_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        jsonschema::options()
            .should_validate_formats(false)
            .build(&support::sarif_schema())
            .expect("the schema compiles")
    })
}

/// What a person reads: no control but the line breaks between lines (and tabs of source
/// text), no bidirectional
/// control, and no line a CI runner would read as a workflow command.
fn readable(format: &str, text: &str) -> Result<(), TestCaseError> {
    for c in text.chars() {
        prop_assert!(
            matches!(c, '\n' | '\t')
                || !(c.is_control()
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{e0000}'..='\u{e0fff}')),
            "{format}: {c:?} in {text:?}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_format_keeps_its_grammar(case in case()) {
        let result = result_of(&case);
        let n = result.diagnostics.len();

        let human = emit(Format::Human, &result);
        readable("human", &human)?;
        no_command("human", &human)?;

        let concise = emit(Format::Concise, &result);
        readable("concise", &concise)?;
        no_command("concise", &concise)?;

        let github = emit(Format::Github, &result);
        readable("github", &github)?;
        prop_assert_eq!(github.lines().count(), n, "one command per finding: {}", github);
        prop_assert!(github.lines().all(|l| ["::error file=", "::warning file=", "::notice file="].iter().any(|p| l.starts_with(p))), "{}", github);
        prop_assert!(!github.contains("##["), "{}", github);

        for format in [Format::Json, Format::JsonLines, Format::Gitlab, Format::Sarif, Format::Junit] {
            no_command(&format!("{format:?}"), &emit(format, &result))?;
        }
        let json: serde_json::Value = serde_json::from_str(&emit(Format::Json, &result)).map_err(|e| TestCaseError::fail(format!("json: {e}")))?;
        prop_assert_eq!(json["diagnostics"].as_array().map(Vec::len), Some(n));

        let lines = emit(Format::JsonLines, &result);
        prop_assert_eq!(lines.lines().count(), n);
        for line in lines.lines() {
            serde_json::from_str::<serde_json::Value>(line).map_err(|e| TestCaseError::fail(format!("json-lines: {e}")))?;
        }

        let gitlab: serde_json::Value = serde_json::from_str(&emit(Format::Gitlab, &result)).map_err(|e| TestCaseError::fail(format!("gitlab: {e}")))?;
        prop_assert_eq!(gitlab.as_array().map(Vec::len), Some(n));

        let sarif: serde_json::Value = serde_json::from_str(&emit(Format::Sarif, &result)).map_err(|e| TestCaseError::fail(format!("sarif: {e}")))?;
        let errors: Vec<String> = sarif_validator().iter_errors(&sarif).map(|e| format!("{e} at {}", e.instance_path())).collect();
        prop_assert!(errors.is_empty(), "{:?}", errors);
        prop_assert_eq!(sarif["runs"][0]["results"].as_array().map(Vec::len), Some(n));

        // Cargo's JSON messages: every line one message cargo_metadata parses, one per finding.
        let mut out = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
        cargo_mcp_lint::output::emit(&cargo_mcp_lint::output::cargo_json::CargoJson, cargo_mcp_lint::output::Channel::Json, &Report { result: &result, root: None }, &mut out).expect("written");
        let cargo = out.into_inner();
        no_command("cargo json", &String::from_utf8_lossy(&cargo))?;
        let messages = cargo_metadata::Message::parse_stream(cargo.as_slice()).collect::<Result<Vec<_>, _>>().map_err(|e| TestCaseError::fail(format!("cargo json: {e}")))?;
        let compiler = messages.iter().filter(|m| matches!(m, cargo_metadata::Message::CompilerMessage(_))).count();
        prop_assert_eq!(compiler, n);
        prop_assert_eq!(cargo.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count(), n + 1);

        let junit = emit(Format::Junit, &result);
        let mut reader = quick_xml::Reader::from_str(&junit);
        let mut cases = 0;
        loop {
            match reader.read_event() {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(quick_xml::events::Event::Start(e)) if e.name().as_ref() == b"testcase" => cases += 1,
                Ok(_) => {}
                Err(e) => return Err(TestCaseError::fail(format!("junit: {e}: {junit}"))),
            }
        }
        prop_assert_eq!(cases, n);
        for c in junit.chars() {
            let allowed = matches!(c, '\t' | '\n' | '\r') || (!c.is_control() && c != '\u{fffe}' && c != '\u{ffff}');
            prop_assert!(allowed, "junit holds {:?}", c);
        }
        prop_assert!(!junit.lines().any(|l| l.trim_start().starts_with("::")), "{}", junit);
    }
}
