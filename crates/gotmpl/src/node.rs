//! The parse tree, shaped like Go's `text/template/parse` nodes. `Display` renders a node
//! back to template text the way Go's `String()` methods do, because execution errors
//! quote the node they stopped at (`executing "x" at <index .Target 1>: …`).

use kadmit_go::strconv::{
    parse_float, parse_int, parse_uint, quote, unquote_char, FloatSyntax, Unquoted,
};
use std::fmt::{self, Display, Formatter, Write};

/// A byte offset into the template text.
pub(crate) type Pos = usize;

#[derive(Debug)]
pub(crate) enum Node {
    Text(Pos, String),
    Action(Pos, Pipe),
    If(Branch),
    Range(Branch),
    With(Branch),
    Template(Pos, String, Option<Pipe>),
    Break(Pos),
    Continue(Pos),
}

#[derive(Debug)]
pub(crate) struct Branch {
    pub pos: Pos,
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub else_list: Option<Vec<Node>>,
}

#[derive(Debug)]
pub(crate) struct Pipe {
    pub pos: Pos,
    pub is_assign: bool,
    /// Declared or assigned variables, each `$name`.
    pub decl: Vec<String>,
    pub cmds: Vec<Command>,
}

#[derive(Debug)]
pub(crate) struct Command {
    pub pos: Pos,
    pub args: Vec<Arg>,
}

/// A number literal with every interpretation Go's `NumberNode` records.
#[derive(Debug, Clone)]
pub(crate) struct Number {
    pub text: String,
    pub is_int: bool,
    pub int: i64,
    pub is_uint: bool,
    pub is_float: bool,
    pub float: f64,
}

impl Number {
    /// Go's `newNumber`: every reading of a number literal (or character constant);
    /// complex numbers are refused, kadmit has no complex values.
    pub(crate) fn parse(text: &str, char_constant: bool, complex: bool) -> Result<Number, String> {
        let mut n = Number {
            text: text.to_string(),
            is_int: false,
            int: 0,
            is_uint: false,
            is_float: false,
            float: 0.0,
        };
        if char_constant {
            let body = &text[1..];
            let Some((u, tail)) = unquote_char(body, '\'') else {
                return Err("invalid syntax".into());
            };
            if tail != "'" {
                return Err(format!("malformed character constant: {text}"));
            }
            let r = match u {
                Unquoted::Char(c) => c as i64,
                Unquoted::Byte(b) => i64::from(b),
            };
            n.is_int = true;
            n.int = r;
            n.is_uint = true;
            n.is_float = true;
            n.float = r as f64;
            return Ok(n);
        }
        if complex || text.ends_with('i') {
            return Err(format!("complex number {text} is not supported"));
        }
        let u = parse_uint(text, 0);
        if u.is_some() {
            n.is_uint = true;
        }
        if let Some(i) = parse_int(text, 0) {
            n.is_int = true;
            n.int = i;
            if i == 0 {
                n.is_uint = true;
            }
        }
        if n.is_int {
            n.is_float = true;
            n.float = n.int as f64;
        } else if let Some(u) = u {
            n.is_float = true;
            n.float = u as f64;
        } else if let Some(f) = parse_float(text, FloatSyntax::Literal) {
            if !text.contains(['.', 'e', 'E', 'p', 'P']) {
                return Err(format!("integer overflow: {text}"));
            }
            n.is_float = true;
            n.float = f;
            if f.fract() == 0.0 && f.abs() < 9.2e18 {
                n.is_int = true;
                n.int = f as i64;
            }
            if f.fract() == 0.0 && (0.0..1.8e19).contains(&f) {
                n.is_uint = true;
            }
        }
        if !n.is_int && !n.is_uint && !n.is_float {
            return Err(format!("illegal number syntax: {}", quote(text, false)));
        }
        Ok(n)
    }
}

#[derive(Debug)]
pub(crate) enum Arg {
    /// `.A.B`: the identifiers without dots.
    Field(Pos, Vec<String>),
    /// `(pipe).A.B` or `fn.A`.
    Chain(Pos, Box<Arg>, Vec<String>),
    /// A function name.
    Func(Pos, String),
    Dot(Pos),
    Nil(Pos),
    Bool(Pos, bool),
    Number(Pos, Number),
    /// The quoted source text and the unquoted value.
    String(Pos, String, String),
    /// `$x.A.B`: the variable name, then fields.
    Variable(Pos, Vec<String>),
    Pipe(Pos, Box<Pipe>),
}

impl Arg {
    pub(crate) fn pos(&self) -> Pos {
        match self {
            Arg::Field(p, _)
            | Arg::Chain(p, ..)
            | Arg::Func(p, _)
            | Arg::Dot(p)
            | Arg::Nil(p)
            | Arg::Bool(p, _)
            | Arg::Number(p, _)
            | Arg::String(p, ..)
            | Arg::Variable(p, _)
            | Arg::Pipe(p, _) => *p,
        }
    }
}

impl Node {
    pub(crate) fn pos(&self) -> Pos {
        match self {
            Node::Text(p, _)
            | Node::Action(p, _)
            | Node::Template(p, ..)
            | Node::Break(p)
            | Node::Continue(p) => *p,
            Node::If(b) | Node::Range(b) | Node::With(b) => b.pos,
        }
    }
}

/// Any node an execution error can point at.
#[derive(Clone, Copy)]
pub(crate) enum At<'a> {
    Node(&'a Node),
    Pipe(&'a Pipe),
    Command(&'a Command),
    Arg(&'a Arg),
}

impl At<'_> {
    pub(crate) fn pos(&self) -> Pos {
        match self {
            At::Node(n) => n.pos(),
            At::Pipe(p) => p.pos,
            At::Command(c) => c.pos,
            At::Arg(a) => a.pos(),
        }
    }
}

impl Display for At<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            At::Node(n) => n.fmt(f),
            At::Pipe(p) => p.fmt(f),
            At::Command(c) => c.fmt(f),
            At::Arg(a) => a.fmt(f),
        }
    }
}

fn write_list(f: &mut Formatter<'_>, list: &[Node]) -> fmt::Result {
    list.iter().try_for_each(|n| n.fmt(f))
}

impl Display for Node {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let branch = |f: &mut Formatter<'_>, name: &str, b: &Branch| -> fmt::Result {
            write!(f, "{{{{{name} {}}}}}", b.pipe)?;
            write_list(f, &b.list)?;
            if let Some(e) = &b.else_list {
                f.write_str("{{else}}")?;
                write_list(f, e)?;
            }
            f.write_str("{{end}}")
        };
        match self {
            Node::Text(_, t) => f.write_str(t),
            Node::Action(_, p) => write!(f, "{{{{{p}}}}}"),
            Node::If(b) => branch(f, "if", b),
            Node::Range(b) => branch(f, "range", b),
            Node::With(b) => branch(f, "with", b),
            Node::Template(_, name, pipe) => {
                let name = quote(name, false);
                match pipe {
                    None => write!(f, "{{{{template {name}}}}}"),
                    Some(p) => write!(f, "{{{{template {name} {p}}}}}"),
                }
            }
            Node::Break(_) => f.write_str("{{break}}"),
            Node::Continue(_) => f.write_str("{{continue}}"),
        }
    }
}

impl Display for Pipe {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            f.write_str(&self.decl.join(", "))?;
            f.write_str(" := ")?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            c.fmt(f)?;
        }
        Ok(())
    }
}

impl Display for Command {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            match a {
                Arg::Pipe(_, p) => write!(f, "({p})")?,
                other => other.fmt(f)?,
            }
        }
        Ok(())
    }
}

impl Display for Arg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Field(_, idents) => idents.iter().try_for_each(|i| write!(f, ".{i}")),
            Arg::Chain(_, node, fields) => {
                match node.as_ref() {
                    Arg::Pipe(_, p) => write!(f, "({p})")?,
                    other => other.fmt(f)?,
                }
                fields.iter().try_for_each(|i| write!(f, ".{i}"))
            }
            Arg::Func(_, name) => f.write_str(name),
            Arg::Dot(_) => f.write_char('.'),
            Arg::Nil(_) => f.write_str("nil"),
            Arg::Bool(_, b) => write!(f, "{b}"),
            Arg::Number(_, n) => f.write_str(&n.text),
            Arg::String(_, quoted, _) => f.write_str(quoted),
            Arg::Variable(_, idents) => f.write_str(&idents.join(".")),
            Arg::Pipe(_, p) => p.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_render_like_go() {
        let cmd = Command {
            pos: 0,
            args: vec![
                Arg::Func(0, "index".into()),
                Arg::Field(0, vec!["Target".into(), "spec".into()]),
                Arg::Pipe(
                    0,
                    Box::new(Pipe {
                        pos: 0,
                        is_assign: false,
                        decl: vec![],
                        cmds: vec![Command {
                            pos: 0,
                            args: vec![Arg::Variable(0, vec!["$x".into(), "a".into()])],
                        }],
                    }),
                ),
                Arg::String(0, "\"k\"".into(), "k".into()),
            ],
        };
        assert_eq!(cmd.to_string(), "index .Target.spec ($x.a) \"k\"");
    }
}
