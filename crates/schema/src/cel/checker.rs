//! A partial type checker: the errors cel-go's checker reports at CRD creation that follow
//! from the schema's types alone (undefined fields, `==` between types that cannot be
//! equal, indexing an object). Whatever it cannot type is `dyn` and passes.

use super::value::escape;
use crate::schema::Schema;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use std::rc::Rc;

/// The declared type of a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Box<Ty>),
    Map(Box<Ty>),
    Object(Rc<Vec<(String, Ty)>>),
}

impl Ty {
    /// The type of values under `schema`; `resource` adds what every resource exposes.
    pub fn of(schema: &Schema, resource: bool) -> Ty {
        if schema.int_or_string {
            return Ty::Dyn;
        }
        match schema.type_.as_deref() {
            Some("integer") => Ty::Int,
            Some("number") => Ty::Double,
            Some("boolean") => Ty::Bool,
            Some("string") => match schema.format.as_deref() {
                Some("byte") => Ty::Bytes,
                Some("duration") => Ty::Duration,
                Some("date" | "date-time") => Ty::Timestamp,
                _ => Ty::String,
            },
            Some("array") => Ty::List(Box::new(
                schema
                    .items
                    .as_deref()
                    .map_or(Ty::Dyn, |i| Ty::of(i, false)),
            )),
            Some("object") | None => object(schema, resource || schema.embedded_resource),
            Some(_) => Ty::Dyn,
        }
    }

    fn name(&self) -> String {
        match self {
            Ty::Dyn => "dyn".into(),
            Ty::Null => "null".into(),
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Uint => "uint".into(),
            Ty::Double => "double".into(),
            Ty::String => "string".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Duration => "google.protobuf.Duration".into(),
            Ty::Timestamp => "google.protobuf.Timestamp".into(),
            Ty::List(e) => format!("list({})", e.name()),
            Ty::Map(v) => format!("map(string, {})", v.name()),
            Ty::Object(_) => "object".into(),
        }
    }
}

fn object(schema: &Schema, resource: bool) -> Ty {
    if let Some(additional) = schema.additional_schema() {
        return Ty::Map(Box::new(Ty::of(additional, false)));
    }
    if schema.preserve_unknown_fields || (schema.properties.is_empty() && !resource) {
        return if schema.items.is_some() && schema.type_.is_none() {
            Ty::List(Box::new(
                schema
                    .items
                    .as_deref()
                    .map_or(Ty::Dyn, |i| Ty::of(i, false)),
            ))
        } else {
            Ty::Dyn
        };
    }
    let mut fields: Vec<(String, Ty)> = schema
        .properties
        .iter()
        .filter(|(name, _)| !(resource && name == "metadata"))
        .filter(|(_, p)| !(p.type_.is_none() && p.preserve_unknown_fields && !p.int_or_string))
        .filter_map(|(name, p)| Some((escape(name)?, Ty::of(p, false))))
        .collect();
    if resource {
        fields.retain(|(n, _)| n != "apiVersion" && n != "kind");
        fields.push(("apiVersion".into(), Ty::String));
        fields.push(("kind".into(), Ty::String));
        let metadata = vec![
            ("name".into(), Ty::String),
            ("generateName".into(), Ty::String),
        ];
        fields.push(("metadata".into(), Ty::Object(Rc::new(metadata))));
    }
    Ty::Object(Rc::new(fields))
}

fn compatible(a: &Ty, b: &Ty) -> bool {
    let numeric = |t: &Ty| matches!(t, Ty::Int | Ty::Uint | Ty::Double);
    match (a, b) {
        (Ty::Dyn, _) | (_, Ty::Dyn) => true,
        (Ty::List(x), Ty::List(y)) | (Ty::Map(x), Ty::Map(y)) => compatible(x, y),
        _ if numeric(a) && numeric(b) => true,
        _ => a == b,
    }
}

/// A type error: the node it is about and cel-go's message.
pub type Problem = (u64, String);

/// Checks `expr` with `self` of type `this`.
pub fn check(expr: &IdedExpr, this: &Ty) -> Result<(), Problem> {
    let mut scope = vec![("self".to_owned(), this.clone())];
    infer(expr, &mut scope).map(|_| ())
}

fn infer(expr: &IdedExpr, scope: &mut Vec<(String, Ty)>) -> Result<Ty, Problem> {
    Ok(match &expr.expr {
        Expr::Literal(literal) => match literal {
            LiteralValue::Boolean(_) => Ty::Bool,
            LiteralValue::Bytes(_) => Ty::Bytes,
            LiteralValue::Double(_) => Ty::Double,
            LiteralValue::Int(_) => Ty::Int,
            LiteralValue::Null => Ty::Null,
            LiteralValue::String(_) => Ty::String,
            LiteralValue::UInt(_) => Ty::Uint,
        },
        Expr::Ident(name) => scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(Ty::Dyn, |(_, t)| t.clone()),
        Expr::Select(select) => match infer(&select.operand, scope)? {
            Ty::Object(fields) => {
                let field = fields.iter().find(|(n, _)| *n == select.field);
                match field {
                    Some((_, t)) if !select.test => t.clone(),
                    Some(_) => Ty::Bool,
                    None => return Err((expr.id, format!("undefined field '{}'", select.field))),
                }
            }
            Ty::Map(v) if !select.test => *v,
            _ => Ty::Dyn,
        },
        Expr::Call(call) => {
            let mut args = Vec::with_capacity(call.args.len());
            if let Some(target) = &call.target {
                infer(target, scope)?;
            }
            for arg in &call.args {
                args.push(infer(arg, scope)?);
            }
            let mismatch = |args: &[Ty]| {
                let names: Vec<String> = args.iter().map(Ty::name).collect();
                (
                    expr.id,
                    format!(
                        "found no matching overload for '{}' applied to '({})'",
                        call.func_name,
                        names.join(", ")
                    ),
                )
            };
            match (call.func_name.as_str(), args.as_slice()) {
                ("_==_" | "_!=_", [a, b]) if !compatible(a, b) => return Err(mismatch(&args)),
                ("_[_]", [Ty::Object(_), _]) => return Err(mismatch(&args)),
                ("_[_]", [Ty::List(e), _]) => (**e).clone(),
                ("_[_]", [Ty::Map(v), _]) => (**v).clone(),
                ("size" | "int", _) => Ty::Int,
                ("string", _) => Ty::String,
                ("double", _) => Ty::Double,
                _ => Ty::Dyn,
            }
        }
        Expr::Comprehension(c) => {
            let element = match infer(&c.iter_range, scope)? {
                Ty::List(e) => *e,
                Ty::Map(_) => Ty::String,
                _ => Ty::Dyn,
            };
            infer(&c.accu_init, scope)?;
            scope.push((c.iter_var.clone(), element));
            scope.push((c.accu_var.clone(), Ty::Dyn));
            let body = [&c.loop_cond, &c.loop_step, &c.result]
                .into_iter()
                .try_for_each(|e| infer(e, scope).map(|_| ()));
            scope.truncate(scope.len() - 2);
            body?;
            Ty::Dyn
        }
        Expr::List(list) => {
            let mut element = Ty::Dyn;
            for (i, e) in list.elements.iter().enumerate() {
                let t = infer(e, scope)?;
                if i == 0 && !list.optional_indices.contains(&0) {
                    element = t;
                }
            }
            Ty::List(Box::new(element))
        }
        Expr::Map(map) => {
            let mut value = None;
            for entry in &map.entries {
                if let EntryExpr::MapEntry(e) = &entry.expr {
                    infer(&e.key, scope)?;
                    let t = infer(&e.value, scope)?;
                    value.get_or_insert(if e.optional { Ty::Dyn } else { t });
                }
            }
            Ty::Map(Box::new(value.unwrap_or(Ty::Dyn)))
        }
        Expr::Struct(_) | Expr::Unspecified => Ty::Dyn,
    })
}
