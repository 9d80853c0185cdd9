//! Executing a parsed template: Go 1.18's `walk` functions (text, actions, if/with,
//! range with break/continue, template calls), error locations, and the limits that
//! keep a hostile template from running forever or filling memory.

use super::funcs::Ctx;
use super::node::{At, Branch, Node};
use super::parse::TreeSet;
use super::value::{Slot, Value};
use super::{MAX_OUTPUT, MAX_STEPS, MAX_TEMPLATE_DEPTH};
use kadmit_go::strconv::quote;

/// Why a walk stopped early.
pub(crate) enum Flow {
    Err(String),
    Break,
    Continue,
}

pub(crate) type R<T> = Result<T, Flow>;

pub(crate) struct State<'t> {
    trees: &'t TreeSet,
    parse_name: &'t str,
    text: &'t str,
    /// The template being executed (changes inside `{{template}}`).
    name: &'t str,
    pub(crate) vars: Vec<(&'t str, Slot)>,
    depth: usize,
    pub(crate) at: Option<At<'t>>,
    out: String,
    pub(crate) ctx: Ctx,
}

/// Runs the template `name` with `root` as dot; the error text is Go's.
pub(crate) fn execute(
    name: &str,
    text: &str,
    trees: &TreeSet,
    root: Value,
) -> Result<String, String> {
    let dot = match root {
        Value::Nil => Slot::MISSING,
        v => Slot::plain(v),
    };
    let mut s = State {
        trees,
        parse_name: name,
        text,
        name,
        vars: vec![("$", dot.clone())],
        depth: 0,
        at: None,
        out: String::new(),
        ctx: Ctx::default(),
    };
    let Some(root) = trees.get(name) else {
        return Err(format!(
            "template: {name}: {} is an incomplete or empty template",
            quote(name, false)
        ));
    };
    match s.walk_list(&dot, root) {
        Ok(()) => Ok(s.out),
        Err(Flow::Err(e)) => Err(e),
        Err(Flow::Break | Flow::Continue) => Ok(s.out),
    }
}

impl<'t> State<'t> {
    /// Go's `errorf`: the message with the location of the current node.
    pub(crate) fn errorf(&self, msg: impl std::fmt::Display) -> Flow {
        let name = quote(self.name, false);
        Flow::Err(match self.at {
            None => format!("template: {}: {msg}", self.name),
            Some(at) => {
                let pos = at.pos().min(self.text.len());
                let before = &self.text[..pos];
                let col = match before.rfind('\n') {
                    Some(nl) => pos - nl - 1,
                    None => pos,
                };
                let line = 1 + before.matches('\n').count();
                format!(
                    "template: {}:{line}:{col}: executing {name} at <{at}>: {msg}",
                    self.parse_name
                )
            }
        })
    }

    /// Counts one step of work against [`MAX_STEPS`].
    pub(crate) fn step(&mut self, n: u64) -> R<()> {
        self.ctx.steps += n;
        if self.ctx.steps > MAX_STEPS {
            return Err(self.errorf(format!("template execution exceeded {MAX_STEPS} steps")));
        }
        Ok(())
    }

    fn write(&mut self, s: &str) -> R<()> {
        if self.out.len() + s.len() > MAX_OUTPUT {
            return Err(self.errorf(format!("template output exceeds {MAX_OUTPUT} bytes")));
        }
        self.out.push_str(s);
        Ok(())
    }

    pub(crate) fn walk_list(&mut self, dot: &Slot, list: &'t [Node]) -> R<()> {
        for node in list {
            self.walk(dot, node)?;
        }
        Ok(())
    }

    fn walk(&mut self, dot: &Slot, node: &'t Node) -> R<()> {
        self.at = Some(At::Node(node));
        self.step(1)?;
        match node {
            Node::Text(_, text) => self.write(text),
            Node::Action(_, pipe) => {
                let val = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    self.at = Some(At::Node(node));
                    self.print_value(&val)?;
                }
                Ok(())
            }
            Node::If(b) => self.walk_if_or_with(false, dot, b),
            Node::With(b) => self.walk_if_or_with(true, dot, b),
            Node::Range(b) => self.walk_range(dot, node, b),
            Node::Template(_, name, pipe) => self.walk_template(dot, node, name, pipe.as_ref()),
            Node::Break(_) => Err(Flow::Break),
            Node::Continue(_) => Err(Flow::Continue),
        }
    }

    fn print_value(&mut self, val: &Slot) -> R<()> {
        match &val.v {
            None => self.write("<no value>"),
            Some(v) => {
                let text = super::fmt::sprint_one(v).map_err(|e| self.errorf(e))?;
                self.write(&text)
            }
        }
    }

    fn walk_if_or_with(&mut self, with: bool, dot: &Slot, b: &'t Branch) -> R<()> {
        let mark = self.vars.len();
        let result = self.if_or_with_body(with, dot, b);
        self.vars.truncate(mark);
        result
    }

    fn if_or_with_body(&mut self, with: bool, dot: &Slot, b: &'t Branch) -> R<()> {
        let val = self.eval_pipeline(dot, &b.pipe)?;
        let truth = val.concrete().map(Value::truth).unwrap_or(false);
        if truth {
            if with {
                self.walk_list(&val, &b.list)
            } else {
                self.walk_list(dot, &b.list)
            }
        } else if let Some(e) = &b.else_list {
            self.walk_list(dot, e)
        } else {
            Ok(())
        }
    }

    fn walk_range(&mut self, dot: &Slot, node: &'t Node, b: &'t Branch) -> R<()> {
        self.at = Some(At::Node(node));
        let outer = self.vars.len();
        let result = self.range_body(dot, node, b);
        self.vars.truncate(outer);
        match result {
            Err(Flow::Break) => Ok(()),
            other => other,
        }
    }

    fn range_body(&mut self, dot: &Slot, node: &'t Node, b: &'t Branch) -> R<()> {
        let val = self.eval_pipeline(dot, &b.pipe)?;
        let mark = self.vars.len();
        let items: Vec<(Slot, Slot)> = match &val.v {
            Some(Value::List(items, _)) => {
                let container = val.v.clone().unwrap_or(Value::Nil);
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        (
                            Slot::plain(Value::Int(i as i64)),
                            Slot::elem_of(&container, v.clone()),
                        )
                    })
                    .collect()
            }
            Some(m @ Value::Map(..)) => m
                .map_entries()
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (Slot::plain(Value::str(k)), Slot::elem_of(m, v)))
                .collect(),
            None | Some(Value::Nil) => Vec::new(),
            Some(other) => {
                self.at = Some(At::Node(node));
                let shown = super::fmt::sprint_one(other).unwrap_or_default();
                return Err(self.errorf(format!("range can't iterate over {shown}")));
            }
        };
        if items.is_empty() {
            if let Some(e) = &b.else_list {
                return self.walk_list(dot, e);
            }
            return Ok(());
        }
        let decls = b.pipe.decl.len();
        for (index, elem) in items {
            self.step(1)?;
            let n = self.vars.len();
            if decls > 0 {
                self.vars[n - 1].1 = elem.clone();
            }
            if decls > 1 {
                self.vars[n - 2].1 = index;
            }
            let r = self.walk_list(&elem, &b.list);
            self.vars.truncate(mark);
            match r {
                Ok(()) | Err(Flow::Continue) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(())
    }

    fn walk_template(
        &mut self,
        dot: &Slot,
        node: &'t Node,
        name: &'t str,
        pipe: Option<&'t super::node::Pipe>,
    ) -> R<()> {
        self.at = Some(At::Node(node));
        let Some((tmpl_name, tree)) = self.trees.get_key_value(name) else {
            return Err(self.errorf(format!("template {} not defined", quote(name, false))));
        };
        if self.depth >= MAX_TEMPLATE_DEPTH {
            return Err(self.errorf(format!(
                "exceeded maximum template depth ({MAX_TEMPLATE_DEPTH})"
            )));
        }
        let new_dot = match pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Slot::MISSING,
        };
        let vars = std::mem::replace(&mut self.vars, vec![("$", new_dot.clone())]);
        let saved_name = std::mem::replace(&mut self.name, tmpl_name.as_str());
        self.depth += 1;
        let result = self.walk_list(&new_dot, tree);
        self.depth -= 1;
        self.name = saved_name;
        self.vars = vars;
        result
    }

    /// The value of a variable.
    pub(crate) fn var_value(&self, name: &str) -> R<Slot> {
        match self.vars.iter().rev().find(|(n, _)| *n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(self.errorf(format!("undefined variable: {name}"))),
        }
    }

    /// Assigns to the innermost variable of that name.
    pub(crate) fn set_var(&mut self, name: &str, value: Slot) -> R<()> {
        match self.vars.iter_mut().rev().find(|(n, _)| *n == name) {
            Some(slot) => {
                slot.1 = value;
                Ok(())
            }
            None => Err(self.errorf(format!("undefined variable: {name}"))),
        }
    }
}
