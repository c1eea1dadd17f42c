//! A `select!` branch's cancel future written as an `async` block:
//! `_ = token.cancelled() => ..` becomes `_ = async { token.cancelled().await } => ..`.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

use crate::edit::{each_token, is_punct, Edits};
use crate::Input;

pub fn rewrite(input: &Input<'_>) -> Edits {
    let mut edits = Edits::default();
    let Ok(stream) = input.text.text.parse::<TokenStream>() else {
        return edits;
    };
    each_token(stream, &mut |token, before| {
        let previous = before.last();
        // The group of a `select! { .. }` (`select` `!` group).
        let TokenTree::Group(group) = token else {
            return;
        };
        let is_select = is_punct(previous, '!')
            && matches!(before.len().checked_sub(2).and_then(|i| before.get(i)),
                Some(TokenTree::Ident(i)) if i == "select");
        if !is_select || group.delimiter() == Delimiter::None {
            return;
        }
        let tokens: Vec<TokenTree> = group.stream().into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            // A branch's `=` (alone, not part of `=>`, `==`, `<=`, `>=`, `!=`).
            let lone_equals = matches!(&tokens[i], TokenTree::Punct(p)
                if p.as_char() == '=' && p.spacing() == Spacing::Alone)
                && !matches!(i.checked_sub(1).and_then(|p| tokens.get(p)),
                    Some(TokenTree::Punct(p)) if p.spacing() == Spacing::Joint);
            if !lone_equals {
                i += 1;
                continue;
            }
            // The future: the tokens up to the branch's `=>`.
            let mut j = i + 1;
            while j + 1 < tokens.len()
                && !(matches!(&tokens[j], TokenTree::Punct(p) if p.as_char() == '=' && p.spacing() == Spacing::Joint)
                    && is_punct(tokens.get(j + 1), '>'))
            {
                j += 1;
            }
            let future = &tokens[i + 1..j.min(tokens.len())];
            let n = future.len();
            let on_cancelled = n >= 3
                && is_punct(future.get(n - 3), '.')
                && matches!(&future[n - 2], TokenTree::Ident(name)
                    if name == "cancelled" || name == "cancelled_owned")
                && matches!(&future[n - 1], TokenTree::Group(g)
                    if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
            if on_cancelled {
                let start = input.text.range(future[0].span()).0;
                let end = input.text.range(future[n - 1].span()).1;
                let text = input.text.slice((start, end));
                edits.replace((start, end), format!("async {{ {text}.await }}"));
            }
            i = j + 1;
        }
    });
    edits
}
