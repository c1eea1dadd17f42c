//! A cheap lexical pre-check of how deeply a file nests, so that a hostile input (ten thousand
//! nested parentheses, blocks, generic types, closures or prefix operators) is reported instead of
//! exhausting the parser's stack. Comments and string, character and raw string literals are
//! skipped; angle brackets count only after an identifier or `::`, and reset at `;`, `{` and `}`
//! (generic arguments hold none of them), so comparisons do not pile up.

/// The deepest nesting analysed; real code stays far below it.
pub const MAX_NESTING: usize = 256;

/// The deepest nesting found, when it goes beyond [`MAX_NESTING`].
pub fn too_deep(text: &str) -> Option<usize> {
    use crate::lexical::Region;
    let mut depth = 0usize;
    let mut angle = 0usize;
    let mut prefix_run = 0usize;
    let mut deepest = 0usize;
    let mut previous: u8 = b' ';
    for (region, range) in crate::lexical::regions(text) {
        match region {
            Region::LineComment | Region::BlockComment => continue,
            Region::Literal => {
                previous = b'"';
                prefix_run = 0;
                continue;
            }
            Region::Code => {}
        }
        for &b in &text.as_bytes()[range] {
            match b {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    if b == b'{' {
                        angle = 0;
                    }
                }
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if b == b'}' {
                        angle = 0;
                    }
                }
                b';' => angle = 0,
                b'<' if previous.is_ascii_alphanumeric()
                    || previous == b'_'
                    || previous == b':' =>
                {
                    angle += 1
                }
                b'>' => angle = angle.saturating_sub(1),
                _ => {}
            }
            if matches!(b, b'!' | b'-' | b'*' | b'&' | b'|') {
                prefix_run += 1;
            } else if !b.is_ascii_whitespace() {
                prefix_run = 0;
            }
            deepest = deepest.max(depth + angle).max(prefix_run);
            if !b.is_ascii_whitespace() {
                previous = b;
            }
        }
    }
    (deepest > MAX_NESTING).then_some(deepest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_code_passes() {
        let text = r#"fn f(a: Vec<Vec<u8>>) -> bool { if a.len() < 3 { return a[0][0] > 1 } let s = "(((("; // ((((
 '(' == '(' }"#;
        assert_eq!(too_deep(text), None);
        let many_comparisons = "fn f() { ".to_string() + &"if a < b {}\n".repeat(10_000) + "}";
        assert_eq!(too_deep(&many_comparisons), None);
    }

    #[test]
    fn deep_nesting_is_caught() {
        let n = 10_000;
        for text in [
            format!("fn f() {{ let x = {}1{}; }}", "(".repeat(n), ")".repeat(n)),
            format!("fn f() {}{}", "{".repeat(n), "}".repeat(n)),
            format!("type T = {}u8{};", "Vec<".repeat(n), ">".repeat(n)),
            format!("fn f() {{ let c = {}1; }}", "|| ".repeat(n)),
            format!("fn f() {{ let x = {}true; }}", "!".repeat(n)),
        ] {
            assert!(too_deep(&text).is_some_and(|d| d >= n), "{}", &text[..40]);
        }
    }
}
