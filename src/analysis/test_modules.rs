//! Inline test modules (`#[cfg(test)] mod tests { .. }`) emptied before a file is parsed.
//!
//! Test code never runs while the program serves, and every rule already leaves it out (the
//! walk marks it, see [`super::syntax::is_test_item`]); but parsing and walking it was a fifth
//! of the parse work on the large files of MCP SDKs, whose unit tests sit in the same file as
//! the code. The body of such a module is replaced by spaces before parsing, newlines kept, so
//! that every byte offset and line of the rest of the file is what it was: the module is then
//! parsed as an empty one.

use std::borrow::Cow;
use std::ops::Range;

use crate::lexical::{regions, Region};

/// The attribute that makes a module test code. Only this exact spelling is recognised: any
/// other (`#[cfg(all(test, ..))]`, `# [cfg (test)]`) leaves the module parsed, as before.
const CFG_TEST: &str = "#[cfg(test)]";

/// `code` with the bodies of its inline `#[cfg(test)]` modules blanked (see the module's
/// documentation); borrowed when it has none.
pub fn blank_test_modules(code: &str) -> Cow<'_, str> {
    if !code.contains(CFG_TEST) {
        return Cow::Borrowed(code);
    }
    let regions: Vec<(Region, Range<usize>)> = regions(code).collect();
    let mut bodies: Vec<Range<usize>> = Vec::new();
    'search: for (index, (region, range)) in regions.iter().enumerate() {
        if *region != Region::Code {
            continue;
        }
        for (at, _) in code[range.clone()].match_indices(CFG_TEST) {
            let after = range.start + at + CFG_TEST.len();
            // A module inside one already blanked is blanked with it.
            if bodies.last().is_some_and(|body| body.contains(&after)) {
                continue;
            }
            match module_body(code, &regions, index, after) {
                Some(Ok(body)) => bodies.push(body),
                Some(Err(Unclosed)) => {
                    // A bracket never closed: the file does not parse, and every later search
                    // would run to the end again (time quadratic in a hostile file's size).
                    // What was found stays blanked; the parse reports the error.
                    break 'search;
                }
                None => {}
            }
        }
    }
    if bodies.is_empty() {
        return Cow::Borrowed(code);
    }
    let mut bytes = code.as_bytes().to_vec();
    for body in bodies {
        for byte in &mut bytes[body] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    }
    // Whole characters are replaced (a body lies between two ASCII braces), so the text stays
    // UTF-8; should it not, the code is parsed whole.
    match String::from_utf8(bytes) {
        Ok(blanked) => Cow::Owned(blanked),
        Err(_) => Cow::Borrowed(code),
    }
}

/// The text ended inside a bracket that a search had opened.
struct Unclosed;

/// The body (between its braces) of the inline module that the attribute ending at `after`
/// (in code region `index`) applies to: further attributes, comments, a visibility, `mod`, its
/// name and `{` may come first, nothing else. None for any other item (`mod x;`, a function);
/// `Unclosed` when the text ends first.
fn module_body(
    code: &str,
    regions: &[(Region, Range<usize>)],
    index: usize,
    after: usize,
) -> Option<Result<Range<usize>, Unclosed>> {
    let mut tokens = CodeTokens {
        code,
        regions,
        index,
        at: after,
        ended: false,
    };
    let found = header_and_body(&mut tokens);
    match found {
        Some(body) => Some(Ok(body)),
        None if tokens.ended => Some(Err(Unclosed)),
        None => None,
    }
}

/// [`module_body`]'s search, from the token after the attribute.
fn header_and_body(tokens: &mut CodeTokens<'_>) -> Option<Range<usize>> {
    let mut word = tokens.next()?;
    // Further attributes: `#[..]` with balanced brackets, and doc comments (skipped as comments).
    while word == "#" {
        if tokens.next()? != "[" {
            return None;
        }
        let mut depth = 1usize;
        while depth > 0 {
            match tokens.next()? {
                "[" => depth += 1,
                "]" => depth -= 1,
                _ => {}
            }
        }
        word = tokens.next()?;
    }
    if word == "pub" {
        word = tokens.next()?;
        if word == "(" {
            while tokens.next()? != ")" {}
            word = tokens.next()?;
        }
    }
    if word != "mod" {
        return None;
    }
    let name = tokens.next()?;
    if !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
        return None;
    }
    if tokens.next()? != "{" {
        return None;
    }
    let open = tokens.at;
    let mut depth = 1usize;
    loop {
        match tokens.next()? {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(open..tokens.at - 1);
                }
            }
            _ => {}
        }
    }
}

/// The words and punctuation of code from a position on, comments skipped: a word (identifier
/// or number) at a time, else one character; a literal, whole, as `"` (so that the braces in
/// `"}"` or `'{'` count for nothing).
struct CodeTokens<'a> {
    code: &'a str,
    regions: &'a [(Region, Range<usize>)],
    /// The region `at` lies in (or before).
    index: usize,
    at: usize,
    /// The text has ended.
    ended: bool,
}

impl<'a> CodeTokens<'a> {
    fn next(&mut self) -> Option<&'a str> {
        loop {
            let Some((region, range)) = self.regions.get(self.index) else {
                self.ended = true;
                return None;
            };
            if self.at >= range.end {
                self.index += 1;
                continue;
            }
            self.at = self.at.max(range.start);
            match region {
                Region::LineComment | Region::BlockComment => {
                    self.at = range.end;
                    continue;
                }
                // A literal is one token: `"}"` is no brace.
                Region::Literal => {
                    self.at = range.end;
                    return Some("\"");
                }
                Region::Code => {}
            }
            let rest = &self.code[self.at..range.end];
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            let Some(first) = trimmed.chars().next() else {
                continue;
            };
            let len = if first == '_' || first.is_alphanumeric() {
                trimmed
                    .find(|c: char| !(c == '_' || c.is_alphanumeric()))
                    .unwrap_or(trimmed.len())
            } else {
                first.len_utf8()
            };
            let token = &trimmed[..len];
            self.at += len;
            return Some(token);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanked(code: &str) -> String {
        let out = blank_test_modules(code).into_owned();
        assert_eq!(out.len(), code.len(), "offsets kept");
        assert_eq!(
            out.match_indices('\n').map(|(i, _)| i).collect::<Vec<_>>(),
            code.match_indices('\n').map(|(i, _)| i).collect::<Vec<_>>(),
            "lines kept"
        );
        out
    }

    #[test]
    fn a_test_module_body_is_blanked_and_the_rest_kept() {
        let code =
            "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() { let s = \"}\"; }\n}\nfn c() {}\n";
        let out = blanked(code);
        assert!(out.starts_with("fn a() {}\n#[cfg(test)]\nmod tests {"));
        assert!(out.ends_with("}\nfn c() {}\n"));
        assert!(!out.contains("fn b"));
        syn::parse_file(&out).expect("still parses");
    }

    #[test]
    fn attributes_comments_and_visibility_may_come_between() {
        let code = "#[cfg(test)] // unit tests\n#[allow(dead_code)]\n/// docs\npub(crate) mod t { fn x() { '{'; } }";
        assert!(!blanked(code).contains("fn x"));
    }

    #[test]
    fn other_items_and_spellings_are_left_whole() {
        for code in [
            "#[cfg(test)]\nmod tests;\nfn f() {}",
            "#[cfg(test)]\nfn helper() { x(); }",
            "#[cfg(all(test, unix))]\nmod t { fn x() {} }",
            "// #[cfg(test)] mod t { fn x() {} }\nmod t { fn x() {} }",
            "const S: &str = \"#[cfg(test)] mod t { fn x() {} }\";",
            "#[cfg(test)]\nmod t { fn x() {",
        ] {
            assert_eq!(blank_test_modules(code), code, "{code}");
        }
    }

    #[test]
    fn nested_and_several_modules() {
        let code = "#[cfg(test)] mod a { #[cfg(test)] mod b { fn x() {} } fn y() {} }\nfn z() {}\n#[cfg(test)] mod c { fn w() {} }";
        let out = blanked(code);
        assert!(!out.contains("fn x") && !out.contains("fn y") && !out.contains("fn w"));
        assert!(out.contains("fn z() {}"));
    }

    #[test]
    fn an_unclosed_module_ends_the_search() {
        // Each attribute would otherwise search to the end of the text again.
        let code =
            "#[cfg(test)] mod a { fn x() {} }\n".to_string() + &"#[cfg(test)] mod b {\n".repeat(3);
        let out = blanked(&code);
        assert!(!out.contains("fn x"), "found before stays blanked");
        assert!(out.ends_with(&"#[cfg(test)] mod b {\n".repeat(3)));
    }

    proptest::proptest! {
        /// Any text: no panic, and offsets and lines are kept.
        #[test]
        fn any_text_keeps_its_offsets(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "#[cfg(test)]", " mod ", "t", " {", "}", "\"", "'", "//", "\n", "/*", "*/",
                    "#[", "]", "pub(", ")", "é", ";", "fn f() {", "r#\"",
                ]),
                0..60,
            )
        ) {
            let code = parts.concat();
            let out = blank_test_modules(&code);
            proptest::prop_assert_eq!(out.len(), code.len());
            proptest::prop_assert_eq!(
                out.match_indices('\n').count(),
                code.match_indices('\n').count()
            );
        }
    }

    #[test]
    fn multibyte_text_in_a_body_keeps_offsets() {
        let code = "#[cfg(test)] mod t { const É: &str = \"héllo\"; }\nfn after() {}";
        let out = blanked(code);
        assert!(out.ends_with("fn after() {}"));
    }
}
