//! Property tests of the fixer: on generated servers, the fix removes exactly the safe sends of
//! the cancel path (so no byte outside its edits changes), the result parses, a second run
//! changes nothing, and CRLF line endings and a BOM survive.

use std::path::{Path, PathBuf};

use cargo_mcp_lint::engine::{LintUnit, Overlay, UnitFile};
use cargo_mcp_lint::fix::{self, FixOptions};
use proptest::prelude::*;

mod support;

#[derive(Debug, Clone, Copy)]
enum Line {
    /// A safe send alone on its line: removed with the line.
    SafeSend,
    /// A safe send followed by a comment: the send goes, the comment stays.
    SafeSendWithComment,
    /// A send whose argument has a side effect: an unsafe fix, not applied by default.
    UnsafeSend,
    Code,
    Comment,
    Blank,
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        Just(Line::SafeSend),
        Just(Line::SafeSendWithComment),
        Just(Line::UnsafeSend),
        Just(Line::Code),
        Just(Line::Comment),
        Just(Line::Blank),
    ]
}

struct Generated {
    text: String,
    expected: String,
}

fn generate(lines: &[Line], crlf: bool, bom: bool, tabs: bool, final_newline: bool) -> Generated {
    let eol = if crlf { "\r\n" } else { "\n" };
    let indent = if tabs { "\t\t" } else { "        " };
    // Pieces: (original, expected after fixing).
    let mut pieces: Vec<(String, String)> = Vec::new();
    let same = |s: String| (s.clone(), s);
    if bom {
        pieces.push(same("\u{feff}".to_string()));
    }
    pieces.push(same(format!(
        "impl Responder {{{eol}    fn cancel(&self) {{{eol}"
    )));
    for (i, line) in lines.iter().enumerate() {
        pieces.push(match line {
            Line::SafeSend => (
                format!("{indent}self.send_error({i}, \"Request cancelled\");{eol}"),
                String::new(),
            ),
            Line::SafeSendWithComment => (
                format!("{indent}self.reply(self.id.clone(), \"null\"); // why {i}{eol}"),
                format!("{indent}// why {i}{eol}"),
            ),
            Line::UnsafeSend => same(format!(
                "{indent}self.send_error(compute({i}), \"x\");{eol}"
            )),
            Line::Code => same(format!("{indent}self.token.cancel();{eol}")),
            Line::Comment => same(format!("{indent}// step {i}{eol}")),
            Line::Blank => same(eol.to_string()),
        });
    }
    pieces.push(same(format!(
        "    }}{eol}    fn other(&self) {{{eol}{indent}self.send_error(0, \"kept\");{eol}    }}{eol}}}"
    )));
    // A body left with nothing but blanks closes up into `{}`, as rustfmt writes it.
    let emptied = lines.iter().any(|l| matches!(l, Line::SafeSend))
        && lines
            .iter()
            .all(|l| matches!(l, Line::SafeSend | Line::Blank));
    if emptied {
        let body_start = usize::from(bom) + 1;
        for piece in &mut pieces[body_start..body_start + lines.len()] {
            piece.1.clear();
        }
        pieces[body_start - 1].1 = format!("impl Responder {{{eol}    fn cancel(&self) {{");
        let close = body_start + lines.len();
        pieces[close].1 = pieces[close].1.replacen("    }", "}", 1);
    }
    if final_newline {
        pieces.push(same(eol.to_string()));
    }
    Generated {
        text: pieces.iter().map(|(t, _)| t.as_str()).collect(),
        expected: pieces.iter().map(|(_, e)| e.as_str()).collect(),
    }
}

fn units(path: &Path) -> Vec<LintUnit> {
    vec![support::unit(
        "generated",
        vec![UnitFile {
            owns_directory: false,
            ..support::root_file(path)
        }],
    )]
}

fn fixed_text(path: &Path, text: &str) -> (String, usize) {
    let mut overlay = Overlay::new();
    overlay.insert(path.to_path_buf(), text.to_string());
    let run = fix::fix_from(
        &units(path),
        Path::new("/"),
        FixOptions::default(),
        overlay,
        &Default::default(),
    );
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    match run.files.first() {
        Some(file) => (file.fixed.clone(), run.applied()),
        None => (text.to_string(), 0),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fixes_remove_exactly_the_safe_sends(
        lines in prop::collection::vec(line(), 0..10),
        crlf in any::<bool>(),
        bom in any::<bool>(),
        tabs in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let path = PathBuf::from("/generated/server.rs");
        let generated = generate(&lines, crlf, bom, tabs, final_newline);
        let (fixed, applied) = fixed_text(&path, &generated.text);
        let safe = lines.iter().filter(|l| matches!(l, Line::SafeSend | Line::SafeSendWithComment)).count();
        prop_assert_eq!(applied, safe);
        prop_assert_eq!(&fixed, &generated.expected);
        prop_assert!(fix::parses(&fixed));
        prop_assert_eq!(fixed.starts_with('\u{feff}'), bom);
        if crlf {
            prop_assert!(!fixed.replace("\r\n", "").contains('\n'), "a bare LF appeared");
        } else {
            prop_assert!(!fixed.contains('\r'));
        }
        // Idempotent: fixing the fixed text changes nothing.
        let (again, applied_again) = fixed_text(&path, &fixed);
        prop_assert_eq!(applied_again, 0);
        prop_assert_eq!(again, fixed);
    }
}
