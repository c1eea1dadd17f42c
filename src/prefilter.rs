//! The byte-level pre-filter: a file that cannot contribute to any finding or summary is never
//! parsed. Each enabled rule names its words (`Rule::words`, `Rule::mcp_words`): a file is
//! parsed when it holds one of the first kind (a word of a cancel path, a stdio transport, a
//! suppression comment), one of the second kind and a word of code that speaks MCP (error codes,
//! method dispatch, progress; the MCP word in code or a string literal, not only in a comment:
//! see [`crate::analysis::text::speaks_mcp`]), or, in cargo mode, a `mod x;` declaration (to
//! follow the module tree). Later waves parse the skipped files that what was parsed points at (`Rule::follow_up`:
//! the functions a cancel path calls, the callers of a dispatcher, stdout writers in a stdio
//! server); this module holds the machinery, and the words of no one rule family (the rules'
//! own words are in their rooms).

use aho_corasick::AhoCorasick;

/// The suppression comments' marker (MCP900, MCP901).
pub const SUPPRESSION_WORDS: &[&str] = &["mcp-lint:"];

/// Marks a follow-up needle that is searched for alone: a file holding it is parsed even without
/// a send word.
pub const STANDALONE: char = '\u{1}';

/// Words as follow-up needles that stand alone.
pub fn standalone<'a>(words: &'a [&'a str]) -> impl Iterator<Item = String> + 'a {
    words.iter().map(|w| format!("{STANDALONE}{w}"))
}

/// Words as owned strings (for `Rule::words`).
pub fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// A follow-up "needle" that is no word: it asks for every skipped file that declares modules
/// (read for its declarations only: see [`Wanted::Modules`]).
pub const MODULE_FILES: &str = "\u{2}module files";

/// Words without which a file holds no send: the follow-up waves parse only files with one.
pub const SEND_WORDS: &[&str] = &[
    "send", "respond", "reply", "write", "notify", "print", "progress",
];

/// Decides which files are parsed.
#[derive(Clone)]
pub struct Prefilter {
    /// One searcher for every word the decision needs, in three groups by pattern index: the
    /// words that alone make a file worth parsing, then those that do so only in code that
    /// speaks MCP (error codes, method dispatch, progress), then the words of such code.
    automaton: Option<AhoCorasick>,
    /// Where the second group starts.
    gated: usize,
    /// Where the third group starts.
    mcp_words: usize,
    everything: bool,
    /// A hash of the words and the switch it was built from: files it skipped are skipped by
    /// another pre-filter only if this is the same.
    digest: [u8; 32],
}

impl Prefilter {
    /// A hash of what the pre-filter was built from (see [`crate::cache::Stamp`]).
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// Whether it wants every file.
    pub fn is_everything(&self) -> bool {
        self.everything
    }

    /// The pre-filter for a run: `alone` are the words that make a file worth parsing, `with_mcp`
    /// those that do so only in code that speaks MCP (each enabled rule's); `everything` turns it
    /// off (every file is parsed).
    pub fn new(alone: Vec<String>, with_mcp: Vec<String>, everything: bool) -> Self {
        // The searcher for the last word lists asked for is kept: a run of `--fix` lints once per
        // round with the same lists, and building the searcher costs more than a small file.
        type Key = (Vec<String>, Vec<String>, bool);
        static LAST: std::sync::Mutex<Option<(Key, Prefilter)>> = std::sync::Mutex::new(None);
        let key = (alone, with_mcp, everything);
        if let Ok(last) = LAST.lock() {
            if let Some((cached, prefilter)) = last.as_ref() {
                if *cached == key {
                    return prefilter.clone();
                }
            }
        }
        let built = Prefilter::build(key.0.clone(), key.1.clone(), everything);
        if let Ok(mut last) = LAST.lock() {
            *last = Some((key, built.clone()));
        }
        built
    }

    fn build(alone: Vec<String>, with_mcp: Vec<String>, everything: bool) -> Self {
        let mut hasher = blake3::Hasher::new();
        for list in [&alone, &with_mcp] {
            for word in list {
                hasher.update(word.as_bytes());
                hasher.update(&[0]);
            }
            hasher.update(&[1]);
        }
        hasher.update(&[u8::from(everything)]);
        let digest = *hasher.finalize().as_bytes();
        let mut needles = alone;
        let gated = needles.len();
        needles.extend(with_mcp);
        let mcp_words = needles.len();
        needles.extend(
            crate::analysis::text::MCP_WORDS
                .iter()
                .chain(&["tools/"])
                .map(|s| s.to_string()),
        );
        Prefilter {
            // Every file is parsed: no searcher to build.
            automaton: if everything {
                None
            } else {
                automaton(&needles)
            },
            gated,
            mcp_words,
            everything,
            digest,
        }
    }

    /// What a file's text needs: a parse, nothing, or only its `mod x;` declarations, read from
    /// its tokens (with `follows_modules` they find the rest of the crate; in either mode a
    /// stdio server's follow-up asks for such files). The text is scanned once for the words.
    pub fn decide(&self, text: &str, follows_modules: bool) -> Wanted {
        if self.everything {
            return Wanted::Parse;
        }
        let Some(automaton) = &self.automaton else {
            return Wanted::Parse;
        };
        let (mut gated, mut speaks_mcp) = (false, false);
        let Ok(matches) = automaton.try_find_overlapping_iter(text) else {
            return Wanted::Parse;
        };
        for found in matches {
            let index = found.pattern().as_usize();
            if index < self.gated {
                return Wanted::Parse;
            } else if index < self.mcp_words {
                gated = true;
            } else {
                speaks_mcp = true;
            }
        }
        // The words of MCP count in code and literals, not in comments (a comment that names
        // MCP, or a fixture's `//~ MCP004` marker, decides nothing): checked last, and only here,
        // since it copies the text without its comments.
        if gated && speaks_mcp && crate::analysis::text::speaks_mcp(text) {
            return Wanted::Parse;
        }
        if !declares_modules(text) {
            return Wanted::Skip;
        }
        // The declarations are read in path mode too, where they build no module tree: a stdio
        // server's files that declare modules are asked for by a follow-up wave (see
        // [`MODULE_FILES`]) in either mode. A file whose tokens do not settle them is parsed
        // where the tree needs them, and skipped where it does not (as before).
        let code = &text[crate::analysis::code_start(text)..];
        match crate::analysis::declared_modules::declared_modules(code) {
            Some(declared) => Wanted::Modules(declared),
            None if follows_modules => Wanted::Parse,
            None => Wanted::Skip,
        }
    }
}

/// What the pre-filter makes of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// It may hold what a rule looks for: parse it.
    Parse,
    /// It holds nothing any rule or the module tree needs.
    Skip,
    /// It holds nothing any rule needs, and declares these out-of-line modules (read from its
    /// tokens, as the parse would find them): the module tree goes on without parsing it.
    Modules(Vec<crate::unit::ModDecl>),
}

/// Whether a follow-up needle stands alone (needs no send word beside it): it looks for a stdout
/// writer, an error code, a dispatcher's callers and callees.
pub fn is_standalone(needle: &str) -> bool {
    needle.starts_with(STANDALONE)
}

/// The three-byte sequences a text holds, as a bit set of a size that follows the text's (a
/// Bloom filter with one hash, 64 to 4,096 bytes): a needle can occur in the text only if every
/// three-byte window of it is in the set. The follow-up waves keep one per skipped file, so that
/// a wave re-reads only the files that may hold one of its needles, with the same result as
/// reading them all.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Trigrams {
    bits: Vec<u64>,
    /// log2 of the number of bits.
    order: u32,
}

impl Trigrams {
    pub fn of(text: &[u8]) -> Trigrams {
        let order = text.len().next_power_of_two().trailing_zeros().clamp(9, 15);
        let mut set = Trigrams {
            bits: vec![0; (1usize << order) / 64],
            order,
        };
        for window in text.windows(3) {
            let bit = set.bit(window);
            set.bits[bit / 64] |= 1 << (bit % 64);
        }
        set
    }

    fn bit(&self, window: &[u8]) -> usize {
        let word = u32::from(window[0]) << 16 | u32::from(window[1]) << 8 | u32::from(window[2]);
        (word.wrapping_mul(0x9E37_79B1) >> (32 - self.order)) as usize
    }

    /// The set that may hold any needle (what a text not looked at must be taken to hold).
    pub fn any() -> Trigrams {
        Trigrams {
            bits: vec![u64::MAX; (1usize << 9) / 64],
            order: 9,
        }
    }

    /// Whether the set has the shape [`Trigrams::of`] gives (one read from a cache is checked).
    pub fn is_well_formed(&self) -> bool {
        (9..=15).contains(&self.order) && self.bits.len() == (1usize << self.order) / 64
    }

    /// Whether `needle` may occur in the text (never `false` when it does).
    pub fn may_contain(&self, needle: &[u8]) -> bool {
        needle.windows(3).all(|window| {
            let bit = self.bit(window);
            self.bits[bit / 64] & (1 << (bit % 64)) != 0
        })
    }
}

/// A fast multi-needle searcher (a DFA: the needle sets are small).
pub fn automaton<S: AsRef<[u8]>>(needles: &[S]) -> Option<AhoCorasick> {
    AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(needles)
        .or_else(|_| AhoCorasick::new(needles))
        .ok()
}

/// Whether a text may declare an out-of-line module (`mod name;`).
pub fn declares_modules(text: &str) -> bool {
    if text.contains("include!") {
        return true;
    }
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("mod") {
        let at = from + found;
        from = at + 3;
        let before_ok =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !before_ok || !bytes.get(at + 3).is_some_and(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let mut i = at + 3;
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        let ident_start = i;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
        if i == ident_start {
            continue;
        }
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if bytes.get(i) == Some(&b';') {
            return true;
        }
    }
    false
}

/// Separates a needle from a word the file must also hold (the type a method belongs to).
pub const COMPANION: char = '\u{0}';

/// A searcher for follow-up needles: a file matches when it holds a needle and, where the needle
/// has one, its companion word.
pub struct NeedleSearch {
    automaton: AhoCorasick,
    companions: Vec<Vec<Option<String>>>,
}

impl NeedleSearch {
    pub fn new(needles: &[String]) -> Option<NeedleSearch> {
        let mut patterns: Vec<String> = Vec::new();
        let mut companions: Vec<Vec<Option<String>>> = Vec::new();
        for needle in needles {
            let needle = needle.trim_start_matches(STANDALONE);
            let (pattern, companion) = match needle.split_once(COMPANION) {
                Some((p, c)) => (p.to_string(), Some(c.to_string())),
                None => (needle.to_string(), None),
            };
            match patterns.iter().position(|p| *p == pattern) {
                Some(i) => companions[i].push(companion),
                None => {
                    patterns.push(pattern);
                    companions.push(vec![companion]);
                }
            }
        }
        Some(NeedleSearch {
            automaton: automaton(&patterns)?,
            companions,
        })
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.automaton.find_iter(text).any(|m| {
            self.companions[m.pattern().as_usize()]
                .iter()
                .any(|c| c.as_deref().is_none_or(|c| text.contains(c)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_of_a_text_not_looked_at_may_hold_anything() {
        let any = Trigrams::any();
        assert!(any.is_well_formed());
        for needle in ["fn reply(", "println!", "zzz", "\u{e9}t\u{e9}"] {
            assert!(any.may_contain(needle.as_bytes()), "{needle}");
        }
        assert!(!Trigrams::of(b"fn main() {}").may_contain(b"println!"));
    }

    #[test]
    fn trigrams_never_miss_what_the_text_holds_and_rule_out_most_of_what_it_does_not() {
        let text =
            "impl Server {\n    fn reply(&self, id: u64) { self.out.send(id); }\n}\n".repeat(40);
        let set = Trigrams::of(text.as_bytes());
        for start in 0..text.len() {
            for end in start..(start + 12).min(text.len()) {
                assert!(
                    set.may_contain(&text.as_bytes()[start..end]),
                    "{start}..{end}"
                );
            }
        }
        // Shorter than a window: cannot be ruled out.
        assert!(set.may_contain(b"zq"));
        let absent = [
            "fn respond_cancelled(",
            "fn handle_notification<",
            "PENDING_REQUESTS",
        ];
        assert!(absent.iter().all(|n| !set.may_contain(n.as_bytes())));
    }

    #[test]
    fn finds_module_declarations() {
        assert!(declares_modules("mod a;"));
        assert!(declares_modules("pub mod server ;\n"));
        assert!(declares_modules("#[path = \"x.rs\"]\nmod  x;"));
        assert!(!declares_modules("mod a { fn f() {} }"));
        assert!(!declares_modules("let model = 1; // a mode;"));
        assert!(!declares_modules("use crate::module;"));
    }
}
