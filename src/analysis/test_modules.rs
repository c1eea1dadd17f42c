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

use crate::lexical::{tokens, Token};

/// The attribute that makes a module test code. Only this exact spelling is recognised: any
/// other (`#[cfg(all(test, ..))]`, `# [cfg (test)]`) leaves the module parsed, as before.
const CFG_TEST: &str = "#[cfg(test)]";

/// How many tokens [`CFG_TEST`] is: `#`, `[`, `cfg`, `(`, `test`, `)`, `]`.
const CFG_TEST_TOKENS: usize = 7;

/// `code` with the bodies of its inline `#[cfg(test)]` modules blanked (see the module's
/// documentation); borrowed when it has none.
pub fn blank_test_modules(code: &str) -> Cow<'_, str> {
    if !code.contains(CFG_TEST) {
        return Cow::Borrowed(code);
    }
    let tokens = tokens(code);
    let closer = closers(&tokens.list);
    let mut bodies: Vec<Range<usize>> = Vec::new();
    for (i, &start) in tokens.starts.iter().enumerate() {
        let attribute = tokens.list[i] == Token::Punct(b'#') && code[start..].starts_with(CFG_TEST);
        // A module inside one already blanked is blanked with it.
        if !attribute || bodies.last().is_some_and(|body| body.contains(&start)) {
            continue;
        }
        if let Some((open, close)) = module_body(code, &tokens.list, &closer, i + CFG_TEST_TOKENS) {
            bodies.push(tokens.starts[open] + 1..tokens.starts[close]);
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

/// For each opening bracket token, the token that closes it (None: never closed, or closed by
/// another kind), found in one pass so that no search runs over the text more than once.
fn closers(list: &[Token]) -> Vec<Option<usize>> {
    let mut closer = vec![None; list.len()];
    let mut open: Vec<(usize, u8)> = Vec::new();
    for (i, token) in list.iter().enumerate() {
        match token {
            Token::Punct(b @ (b'{' | b'(' | b'[')) => open.push((i, *b)),
            Token::Punct(b @ (b'}' | b')' | b']')) => {
                let wanted = match b {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                match open.pop() {
                    Some((at, kind)) if kind == wanted => closer[at] = Some(i),
                    // Mismatched: the text does not parse; nothing after is trusted.
                    _ => return closer,
                }
            }
            _ => {}
        }
    }
    closer
}

/// The braces (token indexes) around the body of the inline module that the attribute ending
/// before token `i` applies to: further attributes, a visibility, `mod` and its name may come
/// first (comments are no tokens), nothing else. None for any other item (`mod x;`, a
/// function) and where a bracket is not closed.
fn module_body(
    code: &str,
    list: &[Token],
    closer: &[Option<usize>],
    mut i: usize,
) -> Option<(usize, usize)> {
    let punct = |i: usize, b: u8| list.get(i) == Some(&Token::Punct(b));
    let word = |i: usize| list.get(i).and_then(|t| t.word(code));
    // Further attributes: `#[..]`.
    while punct(i, b'#') && punct(i + 1, b'[') {
        i = closer[i + 1]? + 1;
    }
    if word(i) == Some("pub") {
        i += 1;
        if punct(i, b'(') {
            i = closer[i]? + 1;
        }
    }
    if word(i) != Some("mod") || word(i + 1).is_none() || !punct(i + 2, b'{') {
        return None;
    }
    Some((i + 2, closer[i + 2]?))
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
        // Each attribute searching to the end of the text again would cost quadratic time:
        // brackets are matched once, in one pass.
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
