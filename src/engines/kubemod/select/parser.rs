//! gval v1.0.1's parser, reproduced: a prefix-dispatched expression parser with an
//! operator-precedence stage stack, constant folding, and the parse-time quirks that
//! decide which selects KubeMod accepts:
//!
//! - operators are glued greedily from consecutive operator characters, so `a==-1` reads
//!   the operator `==-` and fails, and `a&&isX(b)` reads `&&i` (`i` and `n` are operator
//!   characters because of `in`); whitespace ends an operator;
//! - an operation on two constants is evaluated at compile time, so `1 && 2` or a bad
//!   constant regex is a compile error, not an evaluation error;
//! - `c ? a : b` binds loosest and takes everything to its left as the condition;
//! - in an object literal, the token after a key is skipped whatever it is (gval checks
//!   for `:` but never reports its absence).
//!
//! Nesting is bounded (`MAX_DEPTH`) so hostile input cannot exhaust the stack.

use super::ast::{Entry, Func, InfixOp, Node, Pattern, PrefixOp, Root};
use super::eval::eval_detached;
use super::lexer::{Lexer, Tok, Token};
use super::value::Val;
use super::Dialect;
use kadmit_go::strconv::{atoi, parse_float, unquote, FloatSyntax};

/// Maximum nesting of the parser and of the compiled tree.
pub(crate) const MAX_DEPTH: usize = 100;

#[derive(Debug)]
pub(crate) struct ParseError {
    pub message: String,
    /// Byte offset of the offending token.
    pub pos: usize,
}

/// A node and the depth of the tree under it.
pub(crate) struct Parsed {
    pub node: Node,
    pub depth: usize,
}

impl Parsed {
    pub fn leaf(node: Node) -> Parsed {
        Parsed { node, depth: 1 }
    }
}

#[derive(Clone, Copy)]
enum BinKind {
    Infix(InfixOp),
    Regex { negate: bool },
}

struct Stage {
    operand: Parsed,
    op: Option<(BinKind, Token)>,
    precedence: u8,
}

enum Operator {
    Binary(BinKind, u8),
    Postfix,
    Unknown,
}

pub(crate) struct Parser<'s> {
    pub(super) lexer: Lexer<'s>,
    pub(super) dialect: Dialect,
    pub(super) last: Token,
    camouflaged: bool,
    depth: usize,
    /// One flag per object key being parsed: "a `#` placeholder was seen".
    placeholder_flags: Vec<bool>,
    /// The flag a `#` here would set (gval passes it down through the context).
    placeholder_ctx: Option<usize>,
}

/// Parses a whole select expression.
pub(crate) fn parse(src: &str, dialect: Dialect) -> Result<Node, ParseError> {
    let mut p = Parser {
        lexer: Lexer::new(src),
        dialect,
        last: Token {
            tok: Tok::Eof,
            start: 0,
            end: 0,
        },
        camouflaged: false,
        depth: 0,
        placeholder_flags: Vec::new(),
        placeholder_ctx: None,
    };
    let parsed = p.parse_expression()?;
    if p.camouflaged && p.last.tok != Tok::Eof {
        return Err(p.error(format!(
            "unexpected {}: expected an operator or the end of the expression",
            p.describe(p.last)
        )));
    }
    Ok(parsed.node)
}

fn is_symbol(c: char) -> bool {
    "+-*/%><=!^&|~?in".contains(c)
}

impl<'s> Parser<'s> {
    /// `Parser.Scan`: the next token, or the camouflaged one again.
    pub(super) fn scan(&mut self) -> Token {
        if self.camouflaged {
            self.camouflaged = false;
            return self.last;
        }
        self.last = self.lexer.scan();
        self.last
    }

    /// `Parser.Camouflage`: the next `scan` returns the last token again.
    pub(super) fn camouflage(&mut self) {
        self.camouflaged = true;
    }

    pub(super) fn text(&self, token: Token) -> &'s str {
        self.lexer.text(&token)
    }

    pub(super) fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            message: message.into(),
            pos: self.last.start,
        }
    }

    pub(super) fn describe(&self, token: Token) -> String {
        let text = self.text(token);
        match token.tok {
            Tok::Eof => "end of expression".into(),
            Tok::Ident => format!("identifier {text}"),
            Tok::Int | Tok::Float => format!("number {text}"),
            Tok::Char | Tok::Str | Tok::RawStr => format!("string {text}"),
            Tok::Punct(c) => format!("{c:?}"),
        }
    }

    /// gval's `Expected`: "unexpected X while scanning UNIT expected A or B".
    pub(super) fn expected(&self, unit: &str, want: &[&str]) -> ParseError {
        let got = self.describe(self.last);
        if want.is_empty() {
            return self.error(format!("unexpected {got} while scanning {unit}"));
        }
        self.error(format!(
            "unexpected {got} while scanning {unit}: expected {}",
            want.join(" or ")
        ))
    }

    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// A node over children of the given depths, refused when it gets too deep.
    pub(super) fn node(&self, node: Node, children: &[usize]) -> Result<Parsed, ParseError> {
        let depth = 1 + children.iter().copied().max().unwrap_or(0);
        if depth > MAX_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        Ok(Parsed { node, depth })
    }

    /// gval `ParseExpression`.
    pub(super) fn parse_expression(&mut self) -> Result<Parsed, ParseError> {
        self.enter()?;
        let mut stack: Vec<Stage> = Vec::new();
        loop {
            let operand = self.parse_next_expression()?;
            let stage = self.parse_operator(&mut stack, operand)?;
            self.push(&mut stack, stage)?;
            if stack.last().is_some_and(|s| s.op.is_none()) {
                self.leave();
                return Ok(stack.pop().map(|s| s.operand).expect("just pushed"));
            }
        }
    }

    fn push(&self, stack: &mut Vec<Stage>, mut b: Stage) -> Result<(), ParseError> {
        while stack
            .last()
            .is_some_and(|top| top.precedence >= b.precedence)
        {
            let a = stack.pop().expect("checked non-empty");
            let (kind, token) = a.op.expect("stacked stages have operators");
            b.operand = self.combine(kind, token, a.operand, b.operand)?;
        }
        stack.push(b);
        Ok(())
    }

    fn combine(
        &self,
        kind: BinKind,
        at: Token,
        a: Parsed,
        b: Parsed,
    ) -> Result<Parsed, ParseError> {
        let fail = |message: String| ParseError {
            message,
            pos: at.start,
        };
        let both_const = matches!(a.node, Node::Const(_)) && matches!(b.node, Node::Const(_));
        let depths = [a.depth, b.depth];
        let node = match kind {
            BinKind::Infix(op) => Node::Infix(op, Box::new(a.node), Box::new(b.node)),
            BinKind::Regex { negate } => {
                let pattern = match b.node {
                    Node::Const(v) => Pattern::Compiled(
                        kadmit_go::regexp::compile(&v.format())
                            .map_err(|e| fail(format!("invalid regular expression: {e}")))?,
                    ),
                    other => Pattern::Dynamic(Box::new(other)),
                };
                Node::Regex {
                    negate,
                    lhs: Box::new(a.node),
                    pattern,
                }
            }
        };
        let parsed = self.node(node, &depths)?;
        if both_const {
            let value = eval_detached(&parsed.node).map_err(fail)?;
            return Ok(Parsed::leaf(Node::Const(value)));
        }
        Ok(parsed)
    }

    fn operator(&self, name: &str) -> Operator {
        use InfixOp::*;
        let infix = |op, precedence| Operator::Binary(BinKind::Infix(op), precedence);
        if self.dialect != Dialect::KubeMod {
            return match name {
                "==" => infix(DeepEq, 40),
                "!=" => infix(DeepNe, 40),
                _ => Operator::Unknown,
            };
        }
        match name {
            "??" => infix(Coalesce, 0),
            "||" => infix(Or, 20),
            "&&" => infix(And, 21),
            "==" => infix(Eq, 40),
            "!=" => infix(Ne, 40),
            ">" => infix(Gt, 40),
            ">=" => infix(Ge, 40),
            "<" => infix(Lt, 40),
            "<=" => infix(Le, 40),
            "in" => infix(In, 40),
            "=~" => Operator::Binary(BinKind::Regex { negate: false }, 40),
            "!~" => Operator::Binary(BinKind::Regex { negate: true }, 40),
            "^" => infix(BitXor, 60),
            "&" => infix(BitAnd, 60),
            "|" => infix(BitOr, 60),
            "<<" => infix(Shl, 90),
            ">>" => infix(Shr, 90),
            "+" => infix(Add, 120),
            "-" => infix(Sub, 120),
            "*" => infix(Mul, 150),
            "/" => infix(Div, 150),
            "%" => infix(Mod, 150),
            "**" => infix(Pow, 200),
            "?" => Operator::Postfix,
            _ => Operator::Unknown,
        }
    }

    /// gval `parseOperator` (v1.0.1: greedy gluing of operator characters).
    fn parse_operator(
        &mut self,
        stack: &mut Vec<Stage>,
        operand: Parsed,
    ) -> Result<Stage, ParseError> {
        let mut operand = operand;
        loop {
            let token = self.scan();
            let mut name = String::new();
            let mut must_op = false;
            match token.tok {
                Tok::Punct(c) if is_symbol(c) => {
                    name.push(c);
                    while let Some(next) = self.lexer.peek_char().filter(|n| is_symbol(*n)) {
                        must_op = true;
                        name.push(next);
                        self.lexer.next_char();
                    }
                }
                Tok::Ident => name.push_str(self.text(token)),
                _ => {
                    self.camouflage();
                    return Ok(Stage {
                        operand,
                        op: None,
                        precedence: 0,
                    });
                }
            }
            match self.operator(&name) {
                Operator::Binary(kind, precedence) => {
                    return Ok(Stage {
                        operand,
                        op: Some((kind, token)),
                        precedence,
                    })
                }
                Operator::Postfix => {
                    let stage = Stage {
                        operand,
                        op: None,
                        precedence: 0,
                    };
                    self.push(stack, stage)?;
                    let condition = stack.pop().expect("just pushed").operand;
                    operand = self.parse_if(condition)?;
                }
                Operator::Unknown if !must_op => {
                    self.camouflage();
                    return Ok(Stage {
                        operand,
                        op: None,
                        precedence: 0,
                    });
                }
                Operator::Unknown => {
                    return Err(ParseError {
                        message: format!("unknown operator {name}"),
                        pos: token.start,
                    })
                }
            }
        }
    }

    /// KubeMod `parseIf`: `c ? a : b`, or `c ? a` up to the end.
    fn parse_if(&mut self, condition: Parsed) -> Result<Parsed, ParseError> {
        let then = self.parse_expression()?;
        let token = self.scan();
        let otherwise = match token.tok {
            Tok::Punct(':') => Some(self.parse_expression()?),
            Tok::Eof => None,
            _ => return Err(self.expected("<> ? <> : <>", &["':'", "end of expression"])),
        };
        let depths = [
            condition.depth,
            then.depth,
            otherwise.as_ref().map_or(0, |o| o.depth),
        ];
        let node = Node::If(
            Box::new(condition.node),
            Box::new(then.node),
            otherwise.map(|o| Box::new(o.node)),
        );
        self.node(node, &depths)
    }

    /// gval `ParseNextExpression`: one operand, without the operators that follow.
    pub(super) fn parse_next_expression(&mut self) -> Result<Parsed, ParseError> {
        self.enter()?;
        let token = self.scan();
        let kubemod = self.dialect == Dialect::KubeMod;
        let objects = self.dialect != Dialect::JsonPath;
        let parsed = match token.tok {
            Tok::Int | Tok::Float => {
                let text = self.text(token);
                let n = parse_float(text, FloatSyntax::Text).ok_or_else(|| {
                    self.error(format!(
                        "strconv.ParseFloat: parsing {text:?}: invalid syntax"
                    ))
                })?;
                Parsed::leaf(Node::Const(Val::Num(n)))
            }
            Tok::Str | Tok::RawStr | Tok::Char => {
                let s = unquote(self.text(token))
                    .ok_or_else(|| self.error("could not parse string: invalid syntax"))?;
                Parsed::leaf(Node::Const(Val::Str(s)))
            }
            Tok::Punct('-') => self.parse_prefix(PrefixOp::Neg)?,
            Tok::Punct('!') if kubemod => self.parse_prefix(PrefixOp::Not)?,
            Tok::Punct('~') if kubemod => self.parse_prefix(PrefixOp::BitNot)?,
            Tok::Punct('(') => {
                let inner = self.parse_expression()?;
                if self.scan().tok != Tok::Punct(')') {
                    return Err(self.expected("parentheses", &["')'"]));
                }
                inner
            }
            Tok::Punct('[') if kubemod => self.parse_array()?,
            Tok::Punct('{') if objects => self.parse_object()?,
            Tok::Punct('#') if objects => self.parse_placeholder()?,
            Tok::Punct('$') => self.parse_path(Root::Doc)?,
            Tok::Punct('@') => self.parse_path(Root::Current)?,
            Tok::Ident => self.parse_ident(token)?,
            _ => return Err(self.expected("extensions", &[])),
        };
        self.leave();
        Ok(parsed)
    }

    fn parse_prefix(&mut self, op: PrefixOp) -> Result<Parsed, ParseError> {
        let at = self.last;
        let operand = self.parse_next_expression()?;
        let folded = matches!(operand.node, Node::Const(_));
        let parsed = self.node(Node::Prefix(op, Box::new(operand.node)), &[operand.depth])?;
        if folded {
            let value = eval_detached(&parsed.node).map_err(|message| ParseError {
                message,
                pos: at.start,
            })?;
            return Ok(Parsed::leaf(Node::Const(value)));
        }
        Ok(parsed)
    }

    fn parse_ident(&mut self, token: Token) -> Result<Parsed, ParseError> {
        let name = self.text(token);
        match name {
            "true" => return Ok(Parsed::leaf(Node::Const(Val::Bool(true)))),
            "false" => return Ok(Parsed::leaf(Node::Const(Val::Bool(false)))),
            _ => {}
        }
        if let Some(func) = Func::from_name(name).filter(|_| self.dialect == Dialect::KubeMod) {
            let args = if self.scan().tok == Tok::Punct('(') {
                self.parse_arguments()?
            } else {
                self.camouflage();
                Vec::new()
            };
            let depths: Vec<usize> = args.iter().map(|a| a.depth).collect();
            return self.node(
                Node::Func(func, args.into_iter().map(|a| a.node).collect()),
                &depths,
            );
        }
        // gval `parseIdent`: a variable path `a.b["c"]`, or a call of one.
        let mut keys = vec![Parsed::leaf(Node::Const(Val::Str(name.to_string())))];
        loop {
            match self.scan().tok {
                Tok::Punct('.') => {
                    let field = self.scan();
                    if field.tok != Tok::Ident {
                        return Err(self.expected("field", &["identifier"]));
                    }
                    keys.push(Parsed::leaf(Node::Const(Val::Str(self.text(field).into()))));
                }
                Tok::Punct('(') => {
                    let args = self.parse_arguments()?;
                    let depths: Vec<usize> = keys.iter().chain(&args).map(|p| p.depth).collect();
                    let node = Node::CallVar {
                        name: name.to_string(),
                        var: keys.into_iter().map(|k| k.node).collect(),
                    };
                    return self.node(node, &depths);
                }
                Tok::Punct('[') => {
                    let key = self.parse_expression()?;
                    if self.scan().tok != Tok::Punct(']') {
                        return Err(self.expected("array key", &["']'"]));
                    }
                    keys.push(key);
                }
                _ => {
                    self.camouflage();
                    let depths: Vec<usize> = keys.iter().map(|k| k.depth).collect();
                    return self.node(
                        Node::Var(keys.into_iter().map(|k| k.node).collect()),
                        &depths,
                    );
                }
            }
        }
    }

    fn parse_arguments(&mut self) -> Result<Vec<Parsed>, ParseError> {
        let mut args = Vec::new();
        if self.scan().tok == Tok::Punct(')') {
            return Ok(args);
        }
        self.camouflage();
        loop {
            args.push(self.parse_expression()?);
            match self.scan().tok {
                Tok::Punct(')') => return Ok(args),
                Tok::Punct(',') => {}
                _ => return Err(self.expected("arguments", &["')'", "','"])),
            }
        }
    }

    fn parse_array(&mut self) -> Result<Parsed, ParseError> {
        let mut items = Vec::new();
        loop {
            match self.scan().tok {
                Tok::Punct(',') => {}
                Tok::Punct(']') => {
                    let depths: Vec<usize> = items.iter().map(|i: &Parsed| i.depth).collect();
                    return self.node(
                        Node::Array(items.into_iter().map(|i| i.node).collect()),
                        &depths,
                    );
                }
                _ => {
                    self.camouflage();
                    items.push(self.parse_expression()?);
                }
            }
        }
    }

    /// The JSONPath fork's `parseJSONObject`: `{key: value, …}`, where a key that uses
    /// `#`/`#N` makes its value a JSONPath expanded over its matches.
    fn parse_object(&mut self) -> Result<Parsed, ParseError> {
        let mut entries = Vec::new();
        let mut depths = Vec::new();
        loop {
            match self.scan().tok {
                Tok::Punct(',') => {}
                Tok::Punct('}') => return self.node(Node::Object(entries), &depths),
                _ => {
                    self.camouflage();
                    let saved = self.placeholder_ctx;
                    self.placeholder_flags.push(false);
                    let flag = self.placeholder_flags.len() - 1;
                    self.placeholder_ctx = Some(flag);
                    let key = self.parse_expression()?;
                    self.placeholder_ctx = saved;
                    let has_placeholder = self.placeholder_flags[flag];
                    // gval tests for ':' here but never reports it: whatever token
                    // follows the key is skipped.
                    self.scan();
                    depths.push(key.depth);
                    if has_placeholder {
                        let root = match self.scan().tok {
                            Tok::Punct('$') => Root::Doc,
                            Tok::Punct('@') => Root::Current,
                            _ => return Err(self.expected("JSONPath key and value", &[])),
                        };
                        let path = self.parse_path_only(root)?;
                        depths.push(path.1);
                        entries.push(Entry::Matcher {
                            key: key.node,
                            path: path.0,
                        });
                    } else {
                        let value = self.parse_expression()?;
                        depths.push(value.depth);
                        entries.push(Entry::Pair {
                            key: key.node,
                            value: value.node,
                        });
                    }
                }
            }
        }
    }

    /// `#` (all wildcard keys, as `$["k1"]["k2"]…`) or `#N` (the N-th).
    fn parse_placeholder(&mut self) -> Result<Parsed, ParseError> {
        let Some(flag) = self.placeholder_ctx else {
            return Err(self.error("JSONPath placeholder must only be used in an JSON object key"));
        };
        self.placeholder_flags[flag] = true;
        let token = self.scan();
        if token.tok != Tok::Int {
            self.camouflage();
            return Ok(Parsed::leaf(Node::Placeholder(None)));
        }
        let text = self.text(token);
        let n = atoi(text)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| self.error(format!("strconv.Atoi: parsing {text:?}: invalid syntax")))?;
        Ok(Parsed::leaf(Node::Placeholder(Some(n))))
    }
}
