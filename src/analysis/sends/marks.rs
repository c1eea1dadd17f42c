//! What starts the paths the send analysis marks, and what guards them: a condition that a rule
//! family defines (its words, the labels of its paths), asked of syntax. The analysis follows
//! the paths (branches, arms, the code after an `.await` or a loop, hooks) and the guards that
//! keep them off the code under them; which condition it follows is the family's to say.

use syn::{Expr, Pat};

use super::super::facts::OriginCondition;

/// Where a marked path starts, for its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    /// A function that runs because the condition held (its name).
    Hook(&'a str),
    /// The `then` branch of an `if` that tests the condition.
    Then,
    /// The `else` branch of an `if` that tests the condition's negation.
    ElseOfNot,
    /// A `match` arm that selects the condition.
    Arm,
    /// A branch whose condition compares with the condition's method (`method == ..`,
    /// `.eq(..)`, `matches!(..)`).
    MethodTest,
    /// A branch whose `let` pattern selects the condition (or converts into it).
    LetPattern,
    /// The code after a `let .. else` whose pattern selects the condition.
    LetElse,
    /// A `select!` branch on the condition's future.
    SelectBranch,
    /// The code after the condition's future is awaited.
    AfterAwait,
    /// The code after a loop that runs while the condition does not hold.
    AfterLoop,
    /// A handler table's entry for the condition's message: the function registered there.
    Registered(&'a str),
    /// A handler table's entry for the condition's message: the closure registered there.
    RegisteredClosure,
    /// A branch that tests an atomic flag the marked paths set.
    FlagTest,
    /// A `select!` branch on a one-shot channel's receiver, which the marked paths signal.
    SignalBranch,
}

/// The condition a rule family has the send analysis follow.
pub trait PathMarks: Sync {
    /// Whether a function of this name runs because the condition held.
    fn is_hook(&self, name: &str, has_receiver: bool) -> bool;

    /// When a hook of this name is a marked path: always, or (for a name the crate gives its
    /// own function) only as its callers show ([`OriginCondition::CalledOnPath`]).
    fn hook_condition(&self, _name: &str) -> OriginCondition {
        OriginCondition::Always
    }

    /// Whether a method of this name, on a receiver the condition concerns, is its future
    /// (completes when it holds).
    fn is_future_method(&self, method: &str) -> bool;

    /// Whether a method of this name, on a receiver the condition concerns, tests it.
    fn is_test_method(&self, method: &str) -> bool;

    /// Whether the condition concerns this receiver (its future or test method is its).
    fn concerns(&self, receiver: &Expr) -> bool;

    /// An operand of a comparison that names the condition (and when that holds).
    fn operand(&self, expr: &Expr) -> Option<OriginCondition>;

    /// Whether a macro's tokens (`matches!(..)`) name the condition.
    fn tokens_name(&self, tokens: &proc_macro2::TokenStream) -> bool;

    /// Whether a pattern selects the condition (and when that holds).
    fn pattern(&self, pat: &Pat) -> Option<OriginCondition>;

    /// Whether an expression converts a value into the condition's (an `Ok(..)` of it selects
    /// it).
    fn converts(&self, expr: &Expr) -> bool;

    /// The label of a path that starts at `place`.
    fn label(&self, place: Place<'_>) -> String;
}

/// No condition: nothing is marked.
pub struct Unmarked;

impl PathMarks for Unmarked {
    fn is_hook(&self, _: &str, _: bool) -> bool {
        false
    }

    fn is_future_method(&self, _: &str) -> bool {
        false
    }

    fn is_test_method(&self, _: &str) -> bool {
        false
    }

    fn concerns(&self, _: &Expr) -> bool {
        false
    }

    fn operand(&self, _: &Expr) -> Option<OriginCondition> {
        None
    }

    fn tokens_name(&self, _: &proc_macro2::TokenStream) -> bool {
        false
    }

    fn pattern(&self, _: &Pat) -> Option<OriginCondition> {
        None
    }

    fn converts(&self, _: &Expr) -> bool {
        false
    }

    fn label(&self, _: Place<'_>) -> String {
        String::new()
    }
}

/// A condition named by a constant: `ConstNamed` when the last segment reads like one
/// (`CANCELLED`, `methods::CANCELLED`); what it holds is the crate's to say.
pub fn const_condition(segments: &[String]) -> Option<OriginCondition> {
    let last = segments.last()?;
    let is_const_like = last.chars().any(|c| c.is_ascii_uppercase())
        && !last.chars().any(|c| c.is_ascii_lowercase());
    is_const_like.then(|| OriginCondition::ConstNamed(last.clone()))
}
