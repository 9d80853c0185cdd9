//! Evaluating pipelines, commands, field chains and function calls: Go 1.18's `eval*`
//! functions, including its argument type checks (`validateType`, `evalArg`), which
//! decide both what works and the error text when it does not.

use super::exec::{State, R};
use super::funcs::{self, Args, FuncDef, Imp, P};
use super::node::{Arg, At, Command, Number, Pipe};
use super::value::{Slot, Value};
use super::MAX_OUTPUT;

impl<'t> State<'t> {
    pub(crate) fn eval_pipeline(&mut self, dot: &Slot, pipe: &'t Pipe) -> R<Slot> {
        self.at = Some(At::Pipe(pipe));
        let mut value: Option<Slot> = None;
        for cmd in &pipe.cmds {
            let v = self.eval_command(dot, cmd, value.take())?;
            value = Some(v.unbox());
        }
        let value = value.unwrap_or(Slot::MISSING);
        for var in &pipe.decl {
            if pipe.is_assign {
                self.set_var(var, value.clone())?;
            } else {
                self.vars.push((var.as_str(), value.clone()));
            }
        }
        Ok(value)
    }

    fn not_a_function(&self, args: &'t [Arg], fin: &Option<Slot>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            let first = args.first().map(ToString::to_string).unwrap_or_default();
            return Err(self.errorf(format!("can't give argument to non-function {first}")));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Slot, cmd: &'t Command, fin: Option<Slot>) -> R<Slot> {
        self.step(1)?;
        let first = &cmd.args[0];
        match first {
            Arg::Field(..) => return self.eval_field_node(dot, first, &cmd.args, fin),
            Arg::Chain(..) => return self.eval_chain_node(dot, first, &cmd.args, fin),
            Arg::Func(_, name) => {
                return self.eval_function(dot, first, name, At::Command(cmd), &cmd.args, fin)
            }
            Arg::Pipe(_, p) => {
                self.not_a_function(&cmd.args, &fin)?;
                return self.eval_pipeline(dot, p);
            }
            Arg::Variable(..) => return self.eval_variable_node(dot, first, &cmd.args, fin),
            _ => {}
        }
        self.at = Some(At::Arg(first));
        self.not_a_function(&cmd.args, &fin)?;
        match first {
            Arg::Bool(_, b) => Ok(Slot::plain(Value::Bool(*b))),
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Err(self.errorf("nil is not a command")),
            Arg::Number(_, n) => self.ideal_constant(first, n),
            Arg::String(_, _, s) => Ok(Slot::plain(Value::str(s.as_str()))),
            _ => Err(self.errorf(format!("can't evaluate command {first}"))),
        }
    }

    fn ideal_constant(&mut self, node: &'t Arg, n: &Number) -> R<Slot> {
        self.at = Some(At::Arg(node));
        let t = n.text.as_str();
        let hex_int = t.len() > 2
            && t.starts_with('0')
            && matches!(t.as_bytes()[1], b'x' | b'X')
            && !t.contains(['p', 'P']);
        let rune_int = t.starts_with('\'');
        if n.is_float && !hex_int && !rune_int && t.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Slot::plain(Value::Float(n.float)));
        }
        if n.is_int {
            return Ok(Slot::plain(Value::Int(n.int)));
        }
        if n.is_uint {
            return Err(self.errorf(format!("{t} overflows int")));
        }
        Ok(Slot::MISSING)
    }

    fn eval_field_node(
        &mut self,
        dot: &Slot,
        node: &'t Arg,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = Some(At::Arg(node));
        let Arg::Field(_, idents) = node else {
            return Ok(Slot::MISSING);
        };
        self.eval_field_chain(dot, dot.clone(), node, idents, args, fin)
    }

    fn eval_chain_node(
        &mut self,
        dot: &Slot,
        node: &'t Arg,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = Some(At::Arg(node));
        let Arg::Chain(_, inner, fields) = node else {
            return Ok(Slot::MISSING);
        };
        if let Arg::Nil(_) = inner.as_ref() {
            return Err(self.errorf(format!("indirection through explicit nil in {node}")));
        }
        let recv = self.eval_arg(dot, None, inner)?;
        self.eval_field_chain(dot, recv, node, fields, args, fin)
    }

    fn eval_variable_node(
        &mut self,
        dot: &Slot,
        node: &'t Arg,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = Some(At::Arg(node));
        let Arg::Variable(_, idents) = node else {
            return Ok(Slot::MISSING);
        };
        let value = self.var_value(&idents[0])?;
        if idents.len() == 1 {
            self.not_a_function(args, &fin)?;
            return Ok(value);
        }
        self.eval_field_chain(dot, value, node, &idents[1..], args, fin)
    }

    fn eval_field_chain(
        &mut self,
        dot: &Slot,
        mut recv: Slot,
        node: &'t Arg,
        idents: &'t [String],
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        let n = idents.len();
        for ident in &idents[..n - 1] {
            recv = self.eval_field(dot, ident, node, &[], None, recv)?;
        }
        self.eval_field(dot, &idents[n - 1], node, args, fin, recv)
    }

    fn eval_field(
        &mut self,
        dot: &Slot,
        name: &str,
        node: &'t Arg,
        args: &'t [Arg],
        fin: Option<Slot>,
        recv: Slot,
    ) -> R<Slot> {
        let Some(value) = &recv.v else {
            return Ok(Slot::MISSING);
        };
        let typ = recv.static_type();
        match value {
            Value::Nil => {
                let typ = if recv.boxed { typ } else { "interface {}" };
                Err(self.errorf(format!("nil pointer evaluating {typ}.{name}")))
            }
            Value::Version(_) => match super::semver::method(name) {
                Some(def) => {
                    let recv_value = value.clone();
                    self.eval_call(dot, def, name, At::Arg(node), args, fin, Some(recv_value))
                }
                None => Err(self.errorf(format!("can't evaluate field {name} in type {typ}"))),
            },
            Value::Map(m, _) => {
                if args.len() > 1 || fin.is_some() {
                    return Err(self.errorf(format!("{name} is not a method but has arguments")));
                }
                let found = m.get(name);
                Ok(match found {
                    Some(v) => Slot::elem_of(value, v),
                    None => Slot::MISSING,
                })
            }
            _ => Err(self.errorf(format!("can't evaluate field {name} in type {typ}"))),
        }
    }

    fn eval_function(
        &mut self,
        dot: &Slot,
        ident: &'t Arg,
        name: &str,
        node: At<'t>,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = Some(At::Arg(ident));
        let Some(def) = funcs::lookup(name) else {
            return Err(self.errorf(format!(
                "{} is not a defined function",
                kadmit_go::strconv::quote(name, false)
            )));
        };
        self.eval_call(dot, def, name, node, args, fin, None)
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_call(
        &mut self,
        dot: &Slot,
        def: &'static FuncDef,
        name: &str,
        node: At<'t>,
        args: &'t [Arg],
        fin: Option<Slot>,
        recv: Option<Value>,
    ) -> R<Slot> {
        let args = if args.is_empty() { args } else { &args[1..] };
        let num_in = args.len() + usize::from(fin.is_some());
        let num_fixed = if def.variadic.is_some() {
            let fixed = def.params.len();
            if num_in < fixed {
                return Err(self.errorf(format!(
                    "wrong number of args for {name}: want at least {fixed} got {}",
                    args.len()
                )));
            }
            fixed
        } else {
            if num_in != def.params.len() {
                return Err(self.errorf(format!(
                    "wrong number of args for {name}: want {} got {num_in}",
                    def.params.len()
                )));
            }
            args.len()
        };
        if let Imp::AndOr(is_or) = def.imp {
            let mut v = Slot::MISSING;
            for arg in args {
                v = self.eval_arg(dot, Some(P::Rv), arg)?;
                if v.concrete().map(Value::truth).unwrap_or(false) == is_or {
                    return Ok(v);
                }
            }
            if let Some(f) = fin {
                v = self.validate_type(f, Some(P::Rv))?;
            }
            return Ok(v);
        }
        let mut argv = Vec::with_capacity(num_in + 1);
        if let Some(r) = recv {
            argv.push(Slot::plain(r));
        }
        let mut i = 0;
        while i < num_fixed && i < args.len() {
            argv.push(self.eval_arg(dot, Some(def.params[i]), &args[i])?);
            i += 1;
        }
        if let Some(vt) = def.variadic {
            while i < args.len() {
                argv.push(self.eval_arg(dot, Some(vt), &args[i])?);
                i += 1;
            }
        }
        if let Some(f) = fin {
            let t = match def.variadic {
                Some(vt) if num_in > num_fixed => vt,
                Some(_) => def.params[num_in - 1],
                None => def.params[def.params.len() - 1],
            };
            argv.push(self.validate_type(f, Some(t))?);
        }
        self.step(1)?;
        let args = Args(argv);
        let result = match def.imp {
            Imp::Val(f) => f(&mut self.ctx, &args).map(|v| {
                if def.boxed {
                    Slot::boxed(v)
                } else {
                    Slot::plain(v)
                }
            }),
            Imp::Slot(f) => f(&mut self.ctx, &args),
            Imp::AndOr(_) => Ok(Slot::MISSING),
        };
        let result = result.and_then(|s| self.account(&s).map(|()| s));
        match result {
            Ok(s) => Ok(s),
            Err(e) => {
                self.at = Some(node);
                Err(self.errorf(format!("error calling {name}: {e}")))
            }
        }
    }

    /// Charges what a function produced against the limits.
    fn account(&mut self, s: &Slot) -> Result<(), String> {
        match &s.v {
            Some(Value::Str(text)) => {
                if text.len() > MAX_OUTPUT {
                    return Err(format!("result is larger than {MAX_OUTPUT} bytes"));
                }
                self.ctx.charge_bytes(text.len())
            }
            Some(Value::List(items, _)) => self.ctx.charge(items.len() as u64),
            _ => Ok(()),
        }
    }

    fn eval_arg(&mut self, dot: &Slot, typ: Option<P>, n: &'t Arg) -> R<Slot> {
        self.at = Some(At::Arg(n));
        match n {
            Arg::Dot(_) => return self.validate_type(dot.clone(), typ),
            Arg::Nil(_) => {
                return match typ {
                    Some(t) if t.can_be_nil() => Ok(t.zero()),
                    Some(t) => Err(self.errorf(format!("cannot assign nil to {}", t.name()))),
                    None => Ok(Slot::MISSING),
                }
            }
            Arg::Field(..) => {
                let v = self.eval_field_node(dot, n, std::slice::from_ref(n), None)?;
                return self.validate_type(v, typ);
            }
            Arg::Variable(..) => {
                let v = self.eval_variable_node(dot, n, &[], None)?;
                return self.validate_type(v, typ);
            }
            Arg::Pipe(_, p) => {
                let v = self.eval_pipeline(dot, p)?;
                return self.validate_type(v, typ);
            }
            Arg::Func(_, name) => {
                let v = self.eval_function(dot, n, name, At::Arg(n), &[], None)?;
                return self.validate_type(v, typ);
            }
            Arg::Chain(..) => {
                let v = self.eval_chain_node(dot, n, &[], None)?;
                return self.validate_type(v, typ);
            }
            _ => {}
        }
        self.at = Some(At::Arg(n));
        match (typ, n) {
            (Some(P::Bool), Arg::Bool(_, b)) => Ok(Slot::plain(Value::Bool(*b))),
            (Some(P::Bool), _) => Err(self.errorf(format!("expected bool; found {n}"))),
            (Some(P::Float), Arg::Number(_, num)) if num.is_float => {
                Ok(Slot::plain(Value::Float(num.float)))
            }
            (Some(P::Float), _) => Err(self.errorf(format!("expected float; found {n}"))),
            (Some(P::Int), Arg::Number(_, num)) if num.is_int => {
                Ok(Slot::plain(Value::Int(num.int)))
            }
            (Some(P::Int), _) => Err(self.errorf(format!("expected integer; found {n}"))),
            (Some(P::Str), Arg::String(_, _, s)) => Ok(Slot::plain(Value::str(s.as_str()))),
            (Some(P::Str), _) => Err(self.errorf(format!("expected string; found {n}"))),
            (Some(t @ (P::Map | P::Version)), _) => {
                Err(self.errorf(format!("can't handle {n} for arg of type {}", t.name())))
            }
            (_, Arg::Bool(_, b)) => Ok(Slot::plain(Value::Bool(*b))),
            (_, Arg::Number(_, num)) => self.ideal_constant(n, num),
            (_, Arg::String(_, _, s)) => Ok(Slot::plain(Value::str(s.as_str()))),
            _ => Err(self.errorf(format!(
                "can't handle assignment of {n} to empty interface argument"
            ))),
        }
    }

    /// Go's `validateType`: is the value acceptable where a `typ` is wanted?
    fn validate_type(&mut self, value: Slot, typ: Option<P>) -> R<Slot> {
        let Some(t) = typ else {
            return Ok(value);
        };
        let Some(v) = &value.v else {
            if t.can_be_nil() {
                return Ok(t.zero());
            }
            return Err(self.errorf(format!("invalid value; expected {}", t.name())));
        };
        match t {
            P::Any | P::Rv => Ok(value),
            _ if t.accepts(v) => Ok(Slot::plain(v.clone())),
            _ => {
                let got = match v {
                    Value::Nil => "interface {}",
                    other => other.type_name(),
                };
                Err(self.errorf(format!(
                    "wrong type for value; expected {}; got {got}",
                    t.name()
                )))
            }
        }
    }
}
