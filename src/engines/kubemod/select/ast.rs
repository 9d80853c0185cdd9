//! The compiled form of a select expression: a tree of gval evaluables and JSONPath
//! selectors, built by `parser` and walked by `eval`.

use super::value::Val;

#[derive(Debug)]
pub(crate) enum Node {
    /// A literal, or an operation on literals folded at compile time (gval `Const`).
    Const(Val<'static>),
    /// `[a, b, …]`
    Array(Vec<Node>),
    /// `{k: v, …}`, with `#`-keyed entries that expand over a JSONPath's matches.
    Object(Vec<Entry>),
    /// `#` (`None`) or `#N` inside an object key.
    Placeholder(Option<usize>),
    /// `$…` or `@…`.
    Path(Path),
    /// A bare identifier path (`kind`, `metadata.name`, `spec["x"]`): a gval variable.
    Var(Vec<Node>),
    /// A variable followed by `(…)`: gval tries to call it, which is always an error on
    /// JSON values (the arguments are never evaluated).
    CallVar {
        name: String,
        var: Vec<Node>,
    },
    Func(Func, Vec<Node>),
    Prefix(PrefixOp, Box<Node>),
    Infix(InfixOp, Box<Node>, Box<Node>),
    /// `a =~ b` / `a !~ b`; a constant pattern is compiled once.
    Regex {
        negate: bool,
        lhs: Box<Node>,
        pattern: Pattern,
    },
    /// `c ? a : b` (KubeMod's `parseIf`); a missing `: b` is nil.
    If(Box<Node>, Box<Node>, Option<Box<Node>>),
}

#[derive(Debug)]
pub(crate) enum Pattern {
    Compiled(regex::Regex),
    Dynamic(Box<Node>),
}

#[derive(Debug)]
pub(crate) enum Entry {
    Pair {
        key: Node,
        value: Node,
    },
    /// A key containing `#`/`#N` whose value is a JSONPath: one entry per match.
    Matcher {
        key: Node,
        path: Path,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Length,
    IsDefined,
    IsUndefined,
    IsEmpty,
    IsNotEmpty,
    Date,
}

impl Func {
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "length" => Func::Length,
            "isDefined" => Func::IsDefined,
            "isUndefined" => Func::IsUndefined,
            "isEmpty" => Func::IsEmpty,
            "isNotEmpty" => Func::IsNotEmpty,
            "date" => Func::Date,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrefixOp {
    /// `-x`
    Neg,
    /// `!x` (bool only, KubeMod's propositional logic)
    Not,
    /// `~x` (bitwise not)
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InfixOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Gt,
    Ge,
    Lt,
    Le,
    /// `==` of the KubeMod language: numeric when both sides convert, else DeepEqual.
    Eq,
    Ne,
    /// `==` of the bare JSONPath language: DeepEqual only.
    DeepEq,
    DeepNe,
    BitXor,
    BitAnd,
    BitOr,
    Shl,
    Shr,
    And,
    Or,
    In,
    Coalesce,
}

/// A JSONPath: a root and a sequence of selectors.
#[derive(Debug)]
pub(crate) struct Path {
    pub root: Root,
    pub segments: Vec<Segment>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    /// `$`: the document.
    Doc,
    /// `@`: the current element.
    Current,
}

#[derive(Debug)]
pub(crate) enum Segment {
    Plain(Plain),
    Ambiguous(Ambiguous),
}

/// A selector that yields exactly one value.
#[derive(Debug)]
pub(crate) enum Plain {
    /// `.name` or `[expr]`
    Key(Node),
    /// `(expr)`: the expression's value, with `@` bound to the current value.
    Script(Node),
}

/// A selector that yields any number of values, each with a key.
#[derive(Debug)]
pub(crate) enum Ambiguous {
    /// `*`, `[*]`
    Star,
    /// `[a, b, …]`
    Multi(Vec<Node>),
    /// `[start:end:step]`
    Range(Box<[Node; 3]>),
    /// `[?expr]`
    Filter(Node),
    /// `..`: the value itself and every descendant, depth first.
    Mapper,
}

impl Path {
    pub fn is_ambiguous(&self) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, Segment::Ambiguous(_)))
    }
}
