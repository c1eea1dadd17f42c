//! `--format junit`: JUnit XML, one test suite per file with findings, one failing test case per
//! diagnostic (or one passing case when nothing was found).

use std::collections::BTreeMap;
use std::io;

use codespan_reporting::term::termcolor::WriteColor;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;

use super::emitter::Emitter;
use crate::report::Report;

pub struct Junit;

/// Text XML 1.0 can hold, on one line: every control (those XML forbids among them) and every
/// bidirectional control written as its escape (see [`crate::escape::inline`]), and the
/// non-characters U+FFFE and U+FFFF too, so that a string literal or a file name of the linted
/// code can neither make the report invalid nor start a line of a log it is printed to.
fn xml_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let inline = crate::escape::inline(text);
    if !inline.contains(['\u{fffe}', '\u{ffff}']) {
        return inline;
    }
    std::borrow::Cow::Owned(
        inline
            .replace('\u{fffe}', "\\u{fffe}")
            .replace('\u{ffff}', "\\u{ffff}"),
    )
}

impl Emitter for Junit {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        let mut by_file: BTreeMap<String, Vec<&crate::diagnostic::Diagnostic>> = BTreeMap::new();
        for d in &result.diagnostics {
            by_file
                .entry(report.repository_path(d.file))
                .or_default()
                .push(d);
        }
        let total = result.diagnostics.len();
        let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
        writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        let tests = total.max(1).to_string();
        let failures = total.to_string();
        writer
            .create_element("testsuites")
            .with_attribute(("name", "cargo-mcp-lint"))
            .with_attribute(("tests", tests.as_str()))
            .with_attribute(("failures", failures.as_str()))
            .write_inner_content(|w| {
                if by_file.is_empty() {
                    w.create_element("testsuite")
                        .with_attribute(("name", "cargo-mcp-lint"))
                        .with_attribute(("tests", "1"))
                        .with_attribute(("failures", "0"))
                        .write_inner_content(|w| {
                            w.create_element("testcase")
                                .with_attribute(("name", "no findings"))
                                .with_attribute(("classname", "cargo-mcp-lint"))
                                .write_empty()?;
                            Ok(())
                        })?;
                    return Ok(());
                }
                for (path, diagnostics) in &by_file {
                    let count = diagnostics.len().to_string();
                    let suite = xml_safe(path);
                    w.create_element("testsuite")
                        .with_attribute(("name", suite.as_ref()))
                        .with_attribute(("tests", count.as_str()))
                        .with_attribute(("failures", count.as_str()))
                        .write_inner_content(|w| {
                            for d in diagnostics {
                                let position = result
                                    .sources
                                    .get(d.file)
                                    .map(|s| s.line_column(d.span.start))
                                    .map(|p| format!("{}:{}", p.line, p.column))
                                    .unwrap_or_default();
                                let path = xml_safe(path);
                                let message = xml_safe(&d.message);
                                let name = format!("{} [{}] {path}:{position}", d.code, d.name);
                                let text =
                                    format!("{path}:{position}: {} [{}] {message}", d.code, d.name);
                                w.create_element("testcase")
                                    .with_attribute(("name", name.as_str()))
                                    .with_attribute(("classname", path.as_ref()))
                                    .write_inner_content(|w| {
                                        w.create_element("failure")
                                            .with_attribute(("message", message.as_ref()))
                                            .with_attribute(("type", d.code))
                                            .write_text_content(BytesText::new(&text))?;
                                        Ok(())
                                    })?;
                            }
                            Ok(())
                        })?;
                }
                Ok(())
            })?;
        out.write_all(&writer.into_inner())?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::xml_safe;

    #[test]
    fn controls_xml_forbids_are_escaped() {
        assert_eq!(xml_safe("plain\ttext\n"), "plain\\ttext\\n");
        assert_eq!(xml_safe("x\u{ffff}"), "x\\u{ffff}");
        assert_eq!(xml_safe("esc\u{1b}[31m"), "esc\\u{1b}[31m");
        assert_eq!(xml_safe("nul\u{0}"), "nul\\u{0}");
    }
}
