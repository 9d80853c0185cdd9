//! The parser of Go 1.18 `text/template/parse`, function for function, so that what parses
//! and the error text (`template: <name>:<line>: <message>`) are Go's. Functions are
//! checked at parse time as Go does; kadmit adds its refusal of functions that would make
//! output depend on the clock, randomness, the environment or the network.

use super::funcs;
use super::lex::{lex, Item, T};
use super::node::{Arg, Branch, Command, Node, Number, Pipe};
use super::MAX_NESTING;
use kadmit_go::strconv::{quote, unquote};
use std::collections::BTreeMap;

/// Every template defined by one text: the top-level one and its `define`s and `block`s.
pub(crate) type TreeSet = BTreeMap<String, Vec<Node>>;

/// The parse error text, already in Go's format.
pub(crate) type ParseError = String;

type R<T> = Result<T, ParseError>;

/// What `itemList` stops at besides nodes.
enum Parsed {
    Node(Node),
    End,
    Else,
}

struct Parser<'a> {
    name: &'a str,
    items: Vec<Item>,
    cursor: usize,
    token: [Item; 3],
    peek_count: usize,
    vars: Vec<String>,
    range_depth: usize,
    action_line: usize,
    depth: usize,
    trees: TreeSet,
}

/// Parses `text` as the template `name`, returning every tree it defines.
pub(crate) fn parse(name: &str, text: &str) -> R<TreeSet> {
    let items = lex(text);
    let blank = Item {
        typ: T::Eof,
        pos: 0,
        val: String::new(),
        line: 1,
    };
    let mut p = Parser {
        name,
        items,
        cursor: 0,
        token: [blank.clone(), blank.clone(), blank],
        peek_count: 0,
        vars: vec!["$".into()],
        range_depth: 0,
        action_line: 0,
        depth: 0,
        trees: TreeSet::new(),
    };
    let root = p.parse_top()?;
    p.add(name.to_string(), root)?;
    Ok(p.trees)
}

fn is_empty_tree(list: &[Node]) -> bool {
    list.iter().all(|n| match n {
        Node::Text(_, t) => t.trim().is_empty(),
        _ => false,
    })
}

impl Parser<'_> {
    fn lex_next(&mut self) -> Item {
        let i = self.cursor.min(self.items.len().saturating_sub(1));
        self.cursor += 1;
        self.items.get(i).cloned().unwrap_or(Item {
            typ: T::Eof,
            pos: 0,
            val: String::new(),
            line: 1,
        })
    }

    fn next(&mut self) -> Item {
        if self.peek_count > 0 {
            self.peek_count -= 1;
        } else {
            self.token[0] = self.lex_next();
        }
        self.token[self.peek_count].clone()
    }

    fn backup(&mut self) {
        self.peek_count += 1;
    }

    fn backup2(&mut self, t1: Item) {
        self.token[1] = t1;
        self.peek_count = 2;
    }

    fn backup3(&mut self, t2: Item, t1: Item) {
        self.token[1] = t1;
        self.token[2] = t2;
        self.peek_count = 3;
    }

    fn peek(&mut self) -> Item {
        if self.peek_count > 0 {
            return self.token[self.peek_count - 1].clone();
        }
        self.peek_count = 1;
        self.token[0] = self.lex_next();
        self.token[0].clone()
    }

    fn next_non_space(&mut self) -> Item {
        loop {
            let t = self.next();
            if t.typ != T::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item {
        let t = self.next_non_space();
        self.backup();
        t
    }

    fn errorf<X>(&self, msg: impl std::fmt::Display) -> R<X> {
        Err(format!(
            "template: {}:{}: {msg}",
            self.name, self.token[0].line
        ))
    }

    fn expect(&mut self, expected: T, context: &str) -> R<Item> {
        let t = self.next_non_space();
        if t.typ != expected {
            return self.unexpected(&t, context);
        }
        Ok(t)
    }

    fn unexpected<X>(&self, token: &Item, context: &str) -> R<X> {
        if token.typ == T::Error {
            let mut extra = String::new();
            if self.action_line != 0 && self.action_line != token.line {
                extra = format!(" in action started at {}:{}", self.name, self.action_line);
                if token.val.ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.errorf(format!("{token}{extra}"));
        }
        self.errorf(format!("unexpected {token} in {context}"))
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.errorf(format!(
                "template is nested more than {MAX_NESTING} levels deep"
            ));
        }
        Ok(())
    }

    fn add(&mut self, name: String, list: Vec<Node>) -> R<()> {
        match self.trees.get(&name) {
            Some(existing) if !is_empty_tree(existing) => {
                if !is_empty_tree(&list) {
                    return self.errorf(format!(
                        "template: multiple definition of template {}",
                        quote(&name, false)
                    ));
                }
            }
            _ => {
                self.trees.insert(name, list);
            }
        }
        Ok(())
    }

    fn parse_top(&mut self) -> R<Vec<Node>> {
        let mut root = Vec::new();
        while self.peek().typ != T::Eof {
            if self.peek().typ == T::LeftDelim {
                let delim = self.next();
                if self.next_non_space().typ == T::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.backup2(delim);
            }
            match self.text_or_action()? {
                Parsed::Node(n) => root.push(n),
                Parsed::End => return self.errorf("unexpected {{end}}"),
                Parsed::Else => return self.errorf("unexpected {{else}}"),
            }
        }
        Ok(root)
    }

    /// Runs `f` as a separate tree (a `define` or `block` body): its own variables.
    fn in_new_tree<X>(&mut self, f: impl FnOnce(&mut Self) -> R<X>) -> R<X> {
        let vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let range_depth = std::mem::take(&mut self.range_depth);
        let result = f(self);
        self.vars = vars;
        self.range_depth = range_depth;
        result
    }

    fn parse_definition(&mut self) -> R<()> {
        const CONTEXT: &str = "define clause";
        let t = self.next_non_space();
        if !matches!(t.typ, T::String | T::RawString) {
            return self.unexpected(&t, CONTEXT);
        }
        let Some(name) = unquote(&t.val) else {
            return self.errorf("invalid syntax");
        };
        self.expect(T::RightDelim, CONTEXT)?;
        self.in_new_tree(|p| {
            let (list, end) = p.item_list()?;
            if let Parsed::Else = end {
                return p.errorf(format!("unexpected {{{{else}}}} in {CONTEXT}"));
            }
            p.add(name, list)
        })
    }

    fn item_list(&mut self) -> R<(Vec<Node>, Parsed)> {
        let mut list = Vec::new();
        while self.peek_non_space().typ != T::Eof {
            match self.text_or_action()? {
                Parsed::Node(n) => list.push(n),
                other => return Ok((list, other)),
            }
        }
        self.errorf("unexpected EOF")
    }

    fn text_or_action(&mut self) -> R<Parsed> {
        let t = self.next_non_space();
        match t.typ {
            T::Text => Ok(Parsed::Node(Node::Text(t.pos, t.val))),
            T::LeftDelim => {
                self.action_line = t.line;
                let r = self.action();
                self.action_line = 0;
                r
            }
            _ => self.unexpected(&t, "input"),
        }
    }

    fn action(&mut self) -> R<Parsed> {
        let t = self.next_non_space();
        match t.typ {
            T::Block => return self.block_control().map(Parsed::Node),
            T::Break | T::Continue => {
                let what = if t.typ == T::Break {
                    "break"
                } else {
                    "continue"
                };
                let next = self.next_non_space();
                if next.typ != T::RightDelim {
                    return self.unexpected(&next, &format!("{{{{{what}}}}}"));
                }
                if self.range_depth == 0 {
                    return self.errorf(format!("{{{{{what}}}}} outside {{{{range}}}}"));
                }
                return Ok(Parsed::Node(if t.typ == T::Break {
                    Node::Break(t.pos)
                } else {
                    Node::Continue(t.pos)
                }));
            }
            T::Else => {
                let peek = self.peek_non_space();
                if peek.typ == T::If {
                    return Ok(Parsed::Else);
                }
                self.expect(T::RightDelim, "else")?;
                return Ok(Parsed::Else);
            }
            T::End => {
                self.expect(T::RightDelim, "end")?;
                return Ok(Parsed::End);
            }
            T::If => return self.control("if").map(|b| Parsed::Node(Node::If(b))),
            T::Range => return self.control("range").map(|b| Parsed::Node(Node::Range(b))),
            T::With => return self.control("with").map(|b| Parsed::Node(Node::With(b))),
            T::Template => return self.template_control().map(Parsed::Node),
            _ => {}
        }
        self.backup();
        let t = self.peek();
        let pipe = self.pipeline("command", T::RightDelim)?;
        Ok(Parsed::Node(Node::Action(t.pos, pipe)))
    }

    fn pipeline(&mut self, context: &str, end: T) -> R<Pipe> {
        self.enter()?;
        let t = self.peek_non_space();
        let mut pipe = Pipe {
            pos: t.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        loop {
            let v = self.peek_non_space();
            if v.typ != T::Variable {
                break;
            }
            self.next();
            let after = self.peek();
            let next = self.peek_non_space();
            if next.typ == T::Assign || next.typ == T::Declare {
                pipe.is_assign = next.typ == T::Assign;
                self.next_non_space();
                pipe.decl.push(v.val.clone());
                self.vars.push(v.val);
            } else if next.typ == T::Char && next.val == "," {
                self.next_non_space();
                pipe.decl.push(v.val.clone());
                self.vars.push(v.val);
                if context == "range" && pipe.decl.len() < 2 {
                    match self.peek_non_space().typ {
                        T::Variable | T::RightDelim | T::RightParen => continue,
                        _ => return self.errorf("range can only initialize variables"),
                    }
                }
                return self.errorf(format!("too many declarations in {context}"));
            } else if after.typ == T::Space {
                self.backup3(v, after);
            } else {
                self.backup2(v);
            }
            break;
        }
        loop {
            let t = self.next_non_space();
            match t.typ {
                x if x == end => {
                    self.check_pipeline(&pipe, context)?;
                    self.depth -= 1;
                    return Ok(pipe);
                }
                T::Bool
                | T::CharConstant
                | T::Complex
                | T::Dot
                | T::Field
                | T::Identifier
                | T::Number
                | T::Nil
                | T::RawString
                | T::String
                | T::Variable
                | T::LeftParen => {
                    self.backup();
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                }
                _ => return self.unexpected(&t, context),
            }
        }
    }

    fn check_pipeline(&self, pipe: &Pipe, context: &str) -> R<()> {
        if pipe.cmds.is_empty() {
            return self.errorf(format!("missing value for {context}"));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if let Some(
                Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(..) | Arg::String(..),
            ) = c.args.first()
            {
                return self.errorf(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                ));
            }
        }
        Ok(())
    }

    fn control(&mut self, context: &str) -> R<Branch> {
        self.enter()?;
        let mark = self.vars.len();
        let result = self.control_body(context);
        self.vars.truncate(mark);
        self.depth -= 1;
        result
    }

    fn control_body(&mut self, context: &str) -> R<Branch> {
        let pipe = self.pipeline(context, T::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let listed = self.item_list();
        if context == "range" {
            self.range_depth -= 1;
        }
        let (list, next) = listed?;
        let mut else_list = None;
        if let Parsed::Else = next {
            if context == "if" && self.peek().typ == T::If {
                self.next();
                let inner = self.control("if")?;
                else_list = Some(vec![Node::If(inner)]);
            } else {
                let (list, next) = self.item_list()?;
                if let Parsed::Else = next {
                    return self.errorf("expected end; found {{else}}");
                }
                else_list = Some(list);
            }
        }
        Ok(Branch {
            pos: pipe.pos,
            pipe,
            list,
            else_list,
        })
    }

    fn template_name(&mut self, t: &Item, context: &str) -> R<String> {
        match t.typ {
            T::String | T::RawString => match unquote(&t.val) {
                Some(s) => Ok(s),
                None => self.errorf("invalid syntax"),
            },
            _ => self.unexpected(t, context),
        }
    }

    fn template_control(&mut self) -> R<Node> {
        const CONTEXT: &str = "template clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, CONTEXT)?;
        let mut pipe = None;
        if self.next_non_space().typ != T::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(CONTEXT, T::RightDelim)?);
        }
        Ok(Node::Template(t.pos, name, pipe))
    }

    fn block_control(&mut self) -> R<Node> {
        const CONTEXT: &str = "block clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, T::RightDelim)?;
        let block_name = name.clone();
        self.in_new_tree(|p| {
            let (list, end) = p.item_list()?;
            if let Parsed::Else = end {
                return p.errorf(format!("unexpected {{{{else}}}} in {CONTEXT}"));
            }
            p.add(block_name, list)
        })?;
        Ok(Node::Template(t.pos, name, Some(pipe)))
    }

    fn command(&mut self) -> R<Command> {
        let mut cmd = Command {
            pos: self.peek_non_space().pos,
            args: Vec::new(),
        };
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                cmd.args.push(op);
            }
            let t = self.next();
            match t.typ {
                T::Space => continue,
                T::RightDelim | T::RightParen => self.backup(),
                T::Pipe => {}
                _ => return self.unexpected(&t, "operand"),
            }
            break;
        }
        if cmd.args.is_empty() {
            return self.errorf("empty command");
        }
        Ok(cmd)
    }

    fn operand(&mut self) -> R<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().typ != T::Field {
            return Ok(Some(node));
        }
        let pos = self.peek().pos;
        let mut fields = Vec::new();
        while self.peek().typ == T::Field {
            fields.push(self.next().val[1..].to_string());
        }
        Ok(Some(match node {
            Arg::Field(_, mut idents) => {
                idents.extend(fields);
                Arg::Field(pos, idents)
            }
            Arg::Variable(_, mut idents) => {
                idents.extend(fields);
                Arg::Variable(pos, idents)
            }
            Arg::Bool(..) | Arg::String(..) | Arg::Number(..) | Arg::Nil(_) | Arg::Dot(_) => {
                let shown = quote(&node.to_string(), false);
                return self.errorf(format!("unexpected . after term {shown}"));
            }
            other => Arg::Chain(pos, Box::new(other), fields),
        }))
    }

    fn term(&mut self) -> R<Option<Arg>> {
        let t = self.next_non_space();
        Ok(Some(match t.typ {
            T::Identifier => {
                if let Some(reason) = funcs::refusal(&t.val) {
                    return self.errorf(format!("function {} {reason}", quote(&t.val, false)));
                }
                if funcs::lookup(&t.val).is_none() {
                    return self.errorf(format!("function {} not defined", quote(&t.val, false)));
                }
                Arg::Func(t.pos, t.val)
            }
            T::Dot => Arg::Dot(t.pos),
            T::Nil => Arg::Nil(t.pos),
            T::Variable => {
                if !self.vars.contains(&t.val) {
                    return self.errorf(format!("undefined variable {}", quote(&t.val, false)));
                }
                Arg::Variable(t.pos, vec![t.val])
            }
            T::Field => Arg::Field(t.pos, vec![t.val[1..].to_string()]),
            T::Bool => Arg::Bool(t.pos, t.val == "true"),
            T::CharConstant | T::Complex | T::Number => {
                let n = self.number(&t)?;
                Arg::Number(t.pos, n)
            }
            T::LeftParen => {
                let pipe = self.pipeline("parenthesized pipeline", T::RightParen)?;
                Arg::Pipe(t.pos, Box::new(pipe))
            }
            T::String | T::RawString => match unquote(&t.val) {
                Some(s) => Arg::String(t.pos, t.val, s),
                None => return self.errorf("invalid syntax"),
            },
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }

    /// Go's `newNumber`, with the parser's error format.
    fn number(&self, t: &Item) -> R<Number> {
        Number::parse(&t.val, t.typ == T::CharConstant, t.typ == T::Complex)
            .or_else(|msg| self.errorf(msg))
    }
}
