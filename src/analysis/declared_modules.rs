//! A file's out-of-line module declarations (`mod name;`) read from its tokens, without parsing
//! it: a file the pre-filter wants only to follow the module tree costs a lexical pass instead
//! of a parse and a walk. The answer is given only where it is the one the parse gives (see
//! [`declared_modules`]); anywhere else the file is parsed.

use crate::lexical::{tokens, Token};
use crate::unit::{InlineModule, ModDecl};

/// Where a stretch of tokens stands: in a module (the file's own, or an inline `mod x { .. }`)
/// or anywhere else (a function, an impl, a macro's input, parentheses, brackets).
enum Open {
    Module(InlineModule),
    Other,
}

/// The file's `mod name;` declarations outside function bodies, with their `#[path]` and the
/// inline modules around them, when the tokens alone show them exactly as the parse would:
/// every `mod` keyword stands in a module (not in a function, an impl, or a macro's input),
/// every bracket is closed, names are plain ASCII identifiers, and every `path` attribute is
/// `#[path = "plain string"]`. `None` otherwise: the file must be parsed to know. A text that
/// does not parse may still get an answer (the same one a parse of its corrected text would
/// give): its syntax error is then not reported, as for any file the pre-filter skips.
/// Declarations inside an inline `#[cfg(test)]` module are none, as for the parse (see
/// [`super::test_modules`]).
pub fn declared_modules(code: &str) -> Option<Vec<ModDecl>> {
    let code = &*super::test_modules::blank_test_modules(code);
    let tokens = tokens(code).list;
    let word = |t: &Token| t.word(code);
    let mut stack: Vec<(u8, Open)> = Vec::new();
    // For each closing bracket, where its opening one is (for the attributes before a `mod`).
    let mut opener: Vec<usize> = vec![usize::MAX; tokens.len()];
    let mut open_at: Vec<usize> = Vec::new();
    let mut decls = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct(b @ (b'{' | b'(' | b'[')) => {
                // Nesting the parse would refuse is left to it (it reports it).
                if stack.len() >= super::nesting::MAX_NESTING {
                    return None;
                }
                stack.push((*b, Open::Other));
                open_at.push(i);
            }
            Token::Punct(b @ (b'}' | b')' | b']')) => {
                let (open, _) = stack.pop()?;
                let at = open_at.pop()?;
                if closing(open) != *b {
                    return None;
                }
                opener[i] = at;
            }
            // `#![path = ".."]` inside an inline module: the parse counts it among the
            // module's attributes.
            Token::Punct(b'#')
                if tokens.get(i + 1) == Some(&Token::Punct(b'!'))
                    && tokens.get(i + 2) == Some(&Token::Punct(b'['))
                    && tokens.get(i + 3).and_then(word) == Some("path") =>
            {
                return None;
            }
            // `include!("x.rs")`: the parse reads which file, and where it stands.
            Token::Word(r)
                if &code[r.clone()] == "include"
                    && tokens.get(i + 1) == Some(&Token::Punct(b'!')) =>
            {
                return None;
            }
            Token::Word(r) if &code[r.clone()] == "mod" => {
                let in_module = stack.iter().all(|(_, o)| matches!(o, Open::Module(_)));
                let raw = i >= 2
                    && tokens[i - 1] == Token::Punct(b'#')
                    && word(&tokens[i - 2]) == Some("r");
                if !in_module || raw {
                    return None;
                }
                let name = tokens.get(i + 1).and_then(word).filter(|w| is_ident(w))?;
                let (path_attr, test, features) = path_attribute(code, &tokens, &opener, i)?;
                // `pub mod` or `pub(..) mod` (`path_attribute` answers only when a `)` before
                // `mod` closes a `pub(..)`).
                let public = i > 0
                    && (word(&tokens[i - 1]) == Some("pub") || tokens[i - 1] == Token::Punct(b')'));
                match tokens.get(i + 2) {
                    Some(Token::Punct(b';')) => {
                        decls.push(ModDecl {
                            name: name.to_string(),
                            path_attr,
                            test,
                            cfg_paths: Vec::new(),
                            include: false,
                            features,
                            public,
                            inline: stack
                                .iter()
                                .filter_map(|(_, o)| match o {
                                    Open::Module(m) => Some(m.clone()),
                                    Open::Other => None,
                                })
                                .collect(),
                        });
                    }
                    // Each declaration copies the inline modules around it: deeper than real
                    // code nests them, the parse decides (so the copies stay linear).
                    Some(Token::Punct(b'{')) if stack.len() >= MAX_INLINE_DEPTH => return None,
                    Some(Token::Punct(b'{')) => {
                        let module = InlineModule {
                            name: name.to_string(),
                            path_attr,
                        };
                        stack.push((b'{', Open::Module(module)));
                        open_at.push(i + 2);
                    }
                    _ => return None,
                }
                i += 3;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    stack.is_empty().then_some(decls)
}

/// How deep inline modules (and other brackets around them) may nest for the tokens to answer.
const MAX_INLINE_DEPTH: usize = 16;

fn closing(open: u8) -> u8 {
    match open {
        b'{' => b'}',
        b'(' => b')',
        _ => b']',
    }
}

/// A plain ASCII identifier that may name a module (not a keyword that cannot).
fn is_ident(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !matches!(word, "_" | "self" | "super" | "crate" | "Self")
}

/// The `#[path = ".."]` of the `mod` at `at`: `Some(None)` without one, `Some(Some(path))`
/// with one (the first, as the parse takes it), `None` when an attribute or what precedes the
/// keyword has a shape this reading does not know.
fn path_attribute(
    code: &str,
    tokens: &[Token],
    opener: &[usize],
    at: usize,
) -> Option<(Option<String>, bool, Vec<String>)> {
    let word = |i: usize| tokens[i].word(code);
    let mut j = at;
    // The visibility: `pub`, `pub(crate)`, `pub(in a::b)`.
    if j > 0 && tokens[j - 1] == Token::Punct(b')') {
        let open = opener[j - 1];
        if open == usize::MAX || open == 0 || word(open - 1) != Some("pub") {
            return None;
        }
        j = open - 1;
    } else if j > 0 && word(j - 1) == Some("pub") {
        j -= 1;
    }
    if j > 0 && word(j - 1) == Some("unsafe") {
        return None;
    }
    let mut found = None;
    let mut test = false;
    let mut features = Vec::new();
    // Outer attributes, last first: `#[..]` (an inner one, `#![..]`, belongs to the module
    // around and ends the item's attributes).
    while j > 0 && tokens[j - 1] == Token::Punct(b']') {
        let open = opener[j - 1];
        if open == usize::MAX || open == 0 || tokens[open - 1] != Token::Punct(b'#') {
            break;
        }
        let inside = &tokens[open + 1..j - 1];
        let first = inside.first().and_then(|t| t.word(code));
        if first == Some("cfg_attr") {
            // It may give the module other paths: the parse reads them.
            return None;
        }
        if first == Some("cfg") && inside.iter().any(|t| t.word(code) == Some("test")) {
            // `#[cfg(test)]` exactly; any other predicate naming `test` is the parse's to judge.
            match inside {
                [_, Token::Punct(b'('), t, Token::Punct(b')')] if t.word(code) == Some("test") => {
                    test = true
                }
                _ => return None,
            }
        }
        if first == Some("cfg") && inside.iter().any(|t| t.word(code) == Some("feature")) {
            // `#[cfg(feature = "x")]` exactly; any other predicate naming a feature is the
            // parse's to judge.
            match inside {
                [_, Token::Punct(b'('), f, Token::Punct(b'='), Token::Literal(r), Token::Punct(b')')]
                    if f.word(code) == Some("feature") =>
                {
                    features.insert(0, plain_string(&code[r.clone()])?);
                }
                _ => return None,
            }
        }
        if first == Some("path") {
            match inside {
                [_, Token::Punct(b'='), Token::Literal(r)] => {
                    found = Some(plain_string(&code[r.clone()])?);
                }
                _ => return None,
            }
        }
        j = open - 1;
    }
    Some((found, test, features))
}

/// The value of a string literal without escapes: `"a/b.rs"`, `r"a\b.rs"`, `r#"a.rs"#`.
fn plain_string(literal: &str) -> Option<String> {
    if let Some(raw) = literal.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let inner = raw.get(hashes..raw.len().checked_sub(hashes)?)?;
        let inner = inner.strip_prefix('"')?.strip_suffix('"')?;
        return Some(inner.to_string());
    }
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['\\', '"', '\r'])).then(|| inner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the parse gives for the same text.
    fn parsed(text: &str) -> Vec<ModDecl> {
        let vocabulary = crate::analysis::vocabulary::Vocabulary::default();
        crate::analysis::analyse_text(
            text,
            Vec::new(),
            &vocabulary,
            &crate::analysis::sends::marks::Unmarked,
            &[],
        )
        .map(|f| f.mod_decls)
        .unwrap_or_default()
    }

    #[test]
    fn reads_the_declarations_the_parse_finds() {
        let texts = [
            "mod a;\npub mod b;\npub(crate) mod c;\npub(in crate::x) mod d;\n",
            "#[cfg(test)]\n#[path = \"t/x.rs\"]\nmod x;\n#[path = r\"y.rs\"] pub mod y;",
            "//! docs: mod no;\n/// mod nor;\nmod a { mod b; #[path = \"q\"] mod c { pub mod d; } }\nmod e;",
            "#[path = \"p\"]\nmod a {\n    #![allow(dead_code)]\n    mod b;\n}\n",
            "fn f() -> &'static str { \"mod x;\" }\nstruct S<'a>(&'a str);\nconst C: char = '{';\nmod z;",
            "#[doc = \"mod x;\"] #[cfg(unix)] mod w;",
            "impl X { fn f(&self) {} }\nmacro_rules! m { () => {} }\nmod after;",
            "#[cfg(feature = \"obs\")]\npub mod observability;\n#[cfg(feature = \"a\")] #[cfg(feature = \"b\")] mod ab;",
            "",
        ];
        for text in texts {
            assert_eq!(declared_modules(text), Some(parsed(text)), "{text}");
        }
        assert_eq!(
            declared_modules("mod a { mod b; }").map(|d| d[0].inline.clone()),
            Some(vec![InlineModule {
                name: "a".into(),
                path_attr: None
            }])
        );
        assert_eq!(
            declared_modules("#[path = \"x.rs\"] mod a;").map(|d| d[0].path_attr.clone()),
            Some(Some("x.rs".to_string()))
        );
        assert_eq!(
            declared_modules("#[cfg(feature = \"obs\")] mod a;").map(|d| d[0].features.clone()),
            Some(vec!["obs".to_string()])
        );
        // Any other predicate naming a feature is left to the parse.
        assert_eq!(
            declared_modules("#[cfg(all(unix, feature = \"obs\"))] mod a;"),
            None
        );
    }

    /// Every Rust file of this repository (sources, fixtures, examples) and of the directory
    /// `MCP_LINT_MODULES_CORPUS` names: where the tokens give an answer, the parse gives the same.
    #[test]
    fn agrees_with_the_parse_on_real_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("src"), root.join("tests"), root.join("examples")];
        dirs.extend(std::env::var_os("MCP_LINT_MODULES_CORPUS").map(std::path::PathBuf::from));
        let (mut read, mut answered) = (0, 0);
        for dir in dirs {
            for entry in ignore::WalkBuilder::new(dir)
                .standard_filters(false)
                .build()
                .flatten()
            {
                let path = entry.path();
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(path) else {
                    continue;
                };
                read += 1;
                let code = &text[crate::analysis::code_start(&text)..];
                let vocabulary = crate::analysis::vocabulary::Vocabulary::default();
                let Ok(facts) = crate::analysis::analyse_text(
                    &text,
                    Vec::new(),
                    &vocabulary,
                    &crate::analysis::sends::marks::Unmarked,
                    &[],
                ) else {
                    continue;
                };
                if let Some(decls) = declared_modules(code) {
                    answered += 1;
                    assert_eq!(decls, facts.mod_decls, "{}", path.display());
                }
            }
        }
        eprintln!("module declarations read from tokens in {answered} of {read} files");
        assert!(read > 100 && answered * 2 > read, "{answered} of {read}");
    }

    /// A random module file: declarations, inline modules, functions (with a declaration in
    /// the body), macros, comments and strings holding `mod`, attributes and visibilities.
    fn module_text(seed: u64) -> String {
        struct Random(u64);
        impl Random {
            fn below(&mut self, n: u64) -> u64 {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                self.0 % n
            }
        }
        fn items(random: &mut Random, depth: u32, names: &mut u32, out: &mut String) {
            if random.below(4) == 0 {
                out.push_str("#![allow(dead_code)]\n");
            }
            for _ in 0..random.below(5) {
                *names += 1;
                let attrs = [
                    "",
                    "#[cfg(test)]\n",
                    "#[path = \"p.rs\"]\n",
                    "#[path = r\"q/r.rs\"]\n",
                    "#[doc = \"mod x;\"] ",
                    "/// mod y;\n",
                    "#[cfg_attr(test, path = \"t.rs\")]\n",
                ];
                let vis = ["", "pub ", "pub(crate) ", "pub(in crate::a) "];
                let attr = attrs[random.below(attrs.len() as u64) as usize];
                let vis = vis[random.below(vis.len() as u64) as usize];
                match random.below(8) {
                    0 | 1 => out.push_str(&format!("{attr}{vis}mod n{names};\n")),
                    2 if depth < 3 => {
                        out.push_str(&format!("{attr}{vis}mod n{names} {{\n"));
                        items(random, depth + 1, names, out);
                        out.push_str("}\n");
                    }
                    3 => out.push_str(&format!("fn f{names}() {{ mod inner; let _ = '{{'; }}\n")),
                    4 => out.push_str("m! { mod z; }\n"),
                    5 => out.push_str(&format!("// mod c;\nconst S{names}: &str = \"mod s;\";\n")),
                    6 => out.push_str(&format!("struct T{names}<'a>(&'a str);\n")),
                    _ => out.push_str(&format!(
                        "impl T{names} {{ fn g(&self) -> [u8; 2] {{ [1, 2] }} }}\n"
                    )),
                }
            }
        }
        let mut out = String::new();
        items(&mut Random(seed | 1), 0, &mut 0, &mut out);
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Where the tokens answer, the answer is the parse's; they answer for every file of
        /// these shapes but those with a `mod` inside a function or a macro (outside test
        /// modules).
        #[test]
        fn never_disagrees_with_the_parse(seed in proptest::prelude::any::<u64>()) {
            let text = module_text(seed);
            let vocabulary = crate::analysis::vocabulary::Vocabulary::default();
            let parsed = crate::analysis::analyse_text(&text, Vec::new(), &vocabulary, &crate::analysis::sends::marks::Unmarked, &[]);
            proptest::prop_assert!(parsed.is_ok(), "{}", text);
            let declared = declared_modules(&text);
            // (Test modules are parsed empty: what they hold counts for nothing.)
            let outside_tests = crate::analysis::test_modules::blank_test_modules(&text);
            // A `cfg_attr` may give a module other paths: the parse reads those.
            let inside = outside_tests.contains("mod inner;")
                || outside_tests.contains("m! {")
                || outside_tests.contains("cfg_attr");
            proptest::prop_assert_eq!(declared.is_none(), inside, "{}", text);
            if let (Some(declared), Ok(facts)) = (declared, parsed) {
                proptest::prop_assert_eq!(declared, facts.mod_decls, "{}", text);
            }
        }

        /// Any text at all: reading it never panics.
        #[test]
        fn never_panics(text in "[ -~\\n\u{e9}]{0,200}") {
            let _ = declared_modules(&text);
        }
    }

    #[test]
    fn leaves_to_the_parse_what_tokens_cannot_settle() {
        for text in [
            // In a function, a macro's input, a const block: the parse decides.
            "fn f() { mod inner; }",
            "cfg_if::cfg_if! { if #[cfg(unix)] { mod unix; } }",
            "macro_rules! m { ($n:ident) => { mod $n; } }",
            "const _: () = { mod k; };",
            // Shapes this reading does not know.
            "mod r#async;",
            "#[path = \"a\\\\b.rs\"] mod a;",
            "#[path = concat!(\"a\", \".rs\")] mod a;",
            "unsafe mod u;",
            // Another path under some configuration, and a `cfg` naming `test` otherwise than
            // `cfg(test)`.
            "#[cfg_attr(test, path = \"t.rs\")] mod w;",
            "#[cfg(all(test, unix))] mod w;",
            "mod a {\n    #![path = \"elsewhere\"]\n    mod b;\n}",
            "mod é;",
            // Deeper than the tokens answer for.
            &format!("{}mod b;{}", "mod a { ".repeat(20), " }".repeat(20)),
            // Unbalanced brackets.
            "mod a { mod b;",
            "mod a; }",
            "fn f() { (] }",
        ] {
            assert_eq!(declared_modules(text), None, "{text}");
        }
    }
}
