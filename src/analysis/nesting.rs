//! A cheap lexical pre-check of how deep a file's syntax tree can be, so that a hostile input is
//! reported instead of exhausting the parser's stack or costing time that grows with the square of
//! a chain's length. Two measures, both linear to compute:
//!
//! - **nesting**: delimiters, and generic angle brackets (which count only after an identifier or
//!   `::`, and reset at `;`, `{` and `}`, since generic arguments hold none of them);
//! - **chain**: what one expression or type strings together, weighed along the way down: each
//!   operator character (`.`, `?`, `+`, `*`, `&`, `|`, `!`, `->`, comparisons, ..) and the keywords
//!   `as` and `else` weigh 1; an assignment and `return`, `break` and `yield` weigh
//!   [`RIGHT_CHAIN_WEIGHT`] (real code never chains them, and each link makes the analysis read
//!   the rest of the chain again); each delimiter opened weighs [`NESTING_WEIGHT`] inside it, and
//!   a closed delimited group 1 after it (`y()()()`). A `;`, `,` or `=>` ends an expression: the
//!   chain falls back to where its delimiter opened it, and when a delimiter closes, to what it
//!   was before it opened.
//!
//! Comments and string, character and raw string literals are skipped.

/// The deepest nesting analysed; real code stays far below it.
pub const MAX_NESTING: usize = 256;

/// The longest chain analysed (in the weights above); real code stays far below it.
pub const MAX_CHAIN: usize = 2048;

/// What a delimiter adds to the chain.
const NESTING_WEIGHT: usize = 8;

/// What an assignment, `return`, `break` or `yield` adds to the chain.
const RIGHT_CHAIN_WEIGHT: usize = 32;

/// Why a file is too deep to analyse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TooDeep {
    /// It nests this many delimiters or generic brackets deep.
    Nesting(usize),
    /// One of its expressions or types chains this deep.
    Chain(usize),
}

impl TooDeep {
    /// The diagnostic's message.
    pub fn message(self) -> String {
        match self {
            TooDeep::Nesting(depth) => format!(
                "this file nests {depth} levels deep, beyond the {MAX_NESTING} levels the analysis reads, so it was not analysed"
            ),
            TooDeep::Chain(length) => format!(
                "an expression or type in this file chains {length} operators, calls and keywords deep (weighed as the analysis pays for them), beyond the {MAX_CHAIN} it reads, so the file was not analysed"
            ),
        }
    }
}

/// The chain of the expression being read at one delimiter level.
struct Level {
    /// The chain where the level's delimiter opened it (an expression there starts from it).
    base: usize,
    /// The enclosing level's chain when the delimiter opened (restored when it closes).
    outer: usize,
}

/// The measures, read byte by byte through the code.
#[derive(Default)]
struct Measure {
    depth: usize,
    angle: usize,
    deepest: usize,
    levels: Vec<Level>,
    chain: usize,
    longest: usize,
    /// The last byte of code that is not whitespace (`"` for a literal).
    previous: u8,
    word_start: Option<usize>,
    /// A block just closed: what follows goes on with its chain only if it is `else`, `as`, `.`,
    /// `?` or an operator (`if a {} else ..`, `match x {}.len()`); anything else starts a new
    /// statement (blocks end statements without a `;`).
    after_block: bool,
    word_after_block: bool,
}

impl Measure {
    fn base(&self) -> usize {
        self.levels.last().map_or(0, |l| l.base)
    }

    fn literal(&mut self) {
        self.previous = b'"';
        self.word_start = None;
        if std::mem::take(&mut self.after_block) {
            self.chain = self.base();
        }
    }

    fn end_word(&mut self, word: &[u8]) {
        if self.word_after_block && !matches!(word, b"else" | b"as") {
            self.chain = self.base();
        }
        self.chain += keyword_weight(word);
        self.longest = self.longest.max(self.chain);
    }

    fn byte(&mut self, bytes: &[u8], at: usize) {
        let b = bytes[at];
        if b.is_ascii_alphanumeric() || b == b'_' {
            if self.word_start.is_none() {
                self.word_start = Some(at);
                self.word_after_block = std::mem::take(&mut self.after_block);
            }
        } else {
            if let Some(start) = self.word_start.take() {
                self.end_word(&bytes[start..at]);
            }
            if !b.is_ascii_whitespace() && std::mem::take(&mut self.after_block) && !continues(b) {
                self.chain = self.base();
            }
            self.punctuation(b, bytes.get(at + 1).copied().unwrap_or(b' '));
        }
        self.deepest = self.deepest.max(self.depth + self.angle);
        self.longest = self.longest.max(self.chain);
        if !b.is_ascii_whitespace() {
            self.previous = b;
        }
    }

    fn punctuation(&mut self, b: u8, next: u8) {
        let before = self.previous;
        match b {
            b'(' | b'[' | b'{' => {
                self.depth += 1;
                if b == b'{' {
                    self.angle = 0;
                }
                self.levels.push(Level {
                    base: self.chain + NESTING_WEIGHT,
                    outer: self.chain,
                });
                self.chain += NESTING_WEIGHT;
            }
            b')' | b']' | b'}' => {
                self.depth = self.depth.saturating_sub(1);
                if b == b'}' {
                    self.angle = 0;
                }
                // A delimited group is a link of the chain it closes into (`y()()()`).
                self.chain = self.levels.pop().map_or(0, |l| l.outer) + 1;
                self.after_block = b == b'}';
            }
            b';' | b',' => {
                if b == b';' {
                    self.angle = 0;
                }
                self.chain = self.base();
            }
            // `=>` ends a match arm's pattern; `==`, `<=`, `>=`, `!=` compare.
            b'=' if next == b'>' => self.chain = self.base(),
            b'=' if next == b'=' || matches!(before, b'=' | b'<' | b'>' | b'!') => {
                self.chain += usize::from(next != b'=');
            }
            b'=' => self.chain += RIGHT_CHAIN_WEIGHT,
            b'<' => {
                if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                    self.angle += 1;
                }
                self.chain += 1;
            }
            // The `>` of `=>` was read with its `=`; that of `->` is its arrow.
            b'>' if before == b'=' || before == b'-' => {}
            b'>' => {
                self.angle = self.angle.saturating_sub(1);
                self.chain += 1;
            }
            b'-' if next == b'>' => self.chain += 1,
            b'.' | b'?' | b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'&' | b'|' | b'!' => {
                self.chain += 1;
            }
            _ => {}
        }
    }
}

/// Whether the text is too deep to analyse, and how.
pub fn too_deep(text: &str) -> Option<TooDeep> {
    use crate::lexical::Region;
    let bytes = text.as_bytes();
    let mut measure = Measure {
        previous: b' ',
        ..Measure::default()
    };
    for (region, range) in crate::lexical::regions(text) {
        match region {
            Region::LineComment | Region::BlockComment => continue,
            Region::Literal => {
                measure.literal();
                continue;
            }
            Region::Code => {}
        }
        for at in range.clone() {
            measure.byte(bytes, at);
        }
        if let Some(start) = measure.word_start.take() {
            measure.end_word(&bytes[start..range.end]);
        }
    }
    if measure.deepest > MAX_NESTING {
        Some(TooDeep::Nesting(measure.deepest))
    } else if measure.longest > MAX_CHAIN {
        Some(TooDeep::Chain(measure.longest))
    } else {
        None
    }
}

/// Whether a character after a closed block goes on with its expression.
fn continues(b: u8) -> bool {
    matches!(
        b,
        b'.' | b'?'
            | b'+'
            | b'-'
            | b'*'
            | b'/'
            | b'%'
            | b'^'
            | b'&'
            | b'|'
            | b'<'
            | b'>'
            | b'='
            | b'!'
    )
}

/// What a word adds to the chain.
fn keyword_weight(word: &[u8]) -> usize {
    match word {
        b"as" | b"else" => 1,
        b"return" | b"break" | b"yield" | b"become" => RIGHT_CHAIN_WEIGHT,
        _ => 0,
    }
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
        // Many statements, arms and arguments: each starts a chain afresh.
        let statements =
            "fn f() { ".to_string() + &"x = y.a().b()?; return z;\n".repeat(10_000) + "}";
        assert_eq!(too_deep(&statements), None);
        let arms = "fn f() { match x { ".to_string()
            + &"A => { return 1 } B => x = 2,\n".repeat(5_000)
            + "} }";
        assert_eq!(too_deep(&arms), None);
        let ladder =
            "fn f() { if x == 0 {} ".to_string() + &"else if x == 1 { y = 1; }\n".repeat(500) + "}";
        assert_eq!(too_deep(&ladder), None);
        let builder = "fn f() { let b = B::new()".to_string() + &".a(1).b(&x)?".repeat(200) + "; }";
        assert_eq!(too_deep(&builder), None);
        let arrays = "const A: &[u8] = &[".to_string() + &"1 + 2, ".repeat(100_000) + "];";
        assert_eq!(too_deep(&arrays), None);
    }

    #[test]
    fn deep_nesting_is_caught() {
        let n = 10_000;
        for text in [
            format!("fn f() {{ let x = {}1{}; }}", "(".repeat(n), ")".repeat(n)),
            format!("fn f() {}{}", "{".repeat(n), "}".repeat(n)),
            format!("type T = {}u8{};", "Vec<".repeat(n), ">".repeat(n)),
        ] {
            assert!(
                matches!(too_deep(&text), Some(TooDeep::Nesting(d)) if d >= n),
                "{}",
                &text[..40]
            );
        }
    }

    #[test]
    fn long_chains_are_caught() {
        let n = 5_000;
        for text in [
            format!("fn f() {{ let c = {}1; }}", "|| ".repeat(n)),
            format!("fn f() {{ let x = {}true; }}", "!".repeat(n)),
            format!("type T = {}u8;", "fn() -> ".repeat(n)),
            format!("type T = {}u8;", "*const ".repeat(n)),
            format!("fn f() -> {}u8 {{}}", "impl Fn() -> ".repeat(n)),
            format!("fn f() {{ {}1; }}", "return ".repeat(n / 8)),
            format!(
                "fn f() {{ 'a: loop {{ {}1; }} }}",
                "break 'a ".repeat(n / 8)
            ),
            format!("fn f() {{ {}1; }}", "x = ".repeat(n / 8)),
            format!("fn f() {{ let b = 1{}; }}", "+1".repeat(n)),
            format!("fn f() {{ let b = B::new(){}; }}", ".a()".repeat(n)),
            format!("fn f() {{ y{}; }}", ".a".repeat(n)),
            format!("fn f() {{ y{}; }}", "()".repeat(n)),
            format!("fn f() {{ y{}; }}", "[0]".repeat(n)),
            format!("fn f() {{ y{}; }}", "?".repeat(n)),
            format!("fn f() {{ y{}; }}", " as u8".repeat(n)),
            format!("fn f() {{ y{}; }}", ".0".repeat(n)),
            format!("fn f() {{ if a {{}} {} }}", "else if a {} ".repeat(n)),
            format!("fn f() {{ {}; }}", "&".repeat(n) + "x"),
        ] {
            assert!(
                matches!(too_deep(&text), Some(TooDeep::Chain(_))),
                "{}",
                &text[..40]
            );
        }
    }
}
