//! The MutatingAdmissionPolicy additions to the CEL environment (reference
//! admission-policies.md §5, §9.2, §9.3): the `Object` type family (`Object{...}`,
//! `Object.spec{...}`, `Object.spec.template.spec.containers{...}`: any dotted name under
//! `Object`, whose type name is the field path from the root), `JSONPatch{op, path, from,
//! value}`, and `jsonpatch.escapeKey` (which, unlike the types, every environment holds:
//! the Kubernetes base environment has the library since 1.32).
//!
//! The `cel` crate constructs only struct types registered by their exact name, and the
//! `Object` family is open-ended, so struct literals are rewritten after compilation into
//! a call of the internal function `@struct(name, [field, value, ...])` (a name CEL source
//! cannot spell), which builds a [`CelStruct`] of that name: field selection, `has()` and
//! `==` are the crate's struct semantics (same type name, equal fields). The checker of
//! `expression` refuses struct literals unless the declarations ask for the mutation
//! types, and only their environment holds `@struct`.

use super::ast::for_each_child_mut;
use super::cost;
use super::sorted::entries_in_order;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue};
use cel::common::types::{CelList, CelMap, CelString, CelStruct, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{Env, ExecutionError, Value as CelValue};
use serde_json::{Map, Value};

/// The internal constructor struct literals are rewritten into.
pub const STRUCT: &str = "@struct";
/// The root of the `Object` type family.
pub const OBJECT: &str = "Object";
/// The JSON Patch operation type.
pub const JSON_PATCH: &str = "JSONPatch";
/// The fields of `JSONPatch`.
pub const JSON_PATCH_FIELDS: [&str; 4] = ["op", "path", "from", "value"];
/// cel-go's charge for creating a struct (`StructCreateBaseCost`).
const STRUCT_CREATE_COST: u64 = 40;

/// Whether `name` is a struct type of the MAP environment.
pub fn is_object_type(name: &str) -> bool {
    name == OBJECT
        || name
            .strip_prefix("Object.")
            .is_some_and(|rest| !rest.is_empty())
}

/// `jsonpatch.escapeKey(k)` (AP `pkg/cel/library/jsonpatch.go`): `~` becomes `~0` and `/`
/// becomes `~1`, so that `k` can be one token of a JSON Pointer.
pub fn escape_key(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Registers `@struct`.
pub(crate) fn register(env: &mut Env) -> Result<(), cel::DeclarationError> {
    use cel::common::types::DYN_TYPE;
    env.add_overload(STRUCT, STRUCT, vec![DYN_TYPE, DYN_TYPE], construct)
}

/// Registers `jsonpatch.escapeKey(string)`.
pub(crate) fn register_escape_key(env: &mut Env) -> Result<(), cel::DeclarationError> {
    env.add_overload(
        "jsonpatch.escapeKey",
        "jsonpatch_escape_key_string",
        vec![STRING_TYPE],
        escape_key_fn,
    )?;
    Ok(())
}

fn escape_key_fn<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let key = args
        .first()
        .and_then(|a| a.downcast_ref::<CelString>())
        .ok_or_else(|| {
            ExecutionError::no_such_overload(
                "jsonpatch.escapeKey",
                args.iter()
                    .map(|a| a.get_type().name().to_owned())
                    .collect(),
            )
        })?;
    cost::charge(cost::scaled(
        key.inner().chars().count() as u64,
        cost::TRAVERSAL,
    ))?;
    Ok(CowVal::owned(CelString::from(escape_key(key.inner()))))
}

/// `@struct(name, [field1, value1, field2, value2, ...])`.
fn construct<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let bad = || ExecutionError::function_error(STRUCT, "malformed struct literal");
    let name = args
        .first()
        .and_then(|a| a.downcast_ref::<CelString>())
        .ok_or_else(bad)?
        .inner()
        .to_owned();
    cost::charge(STRUCT_CREATE_COST)?;
    let mut out = CelStruct::new(name.clone());
    let mut items = args
        .get(1)
        .and_then(|a| a.as_iterable())
        .ok_or_else(bad)?
        .iter();
    while let Some(field) = items.next() {
        let field = field
            .downcast_ref::<CelString>()
            .ok_or_else(bad)?
            .inner()
            .to_owned();
        let value = items.next().ok_or_else(bad)?;
        if name == JSON_PATCH && !JSON_PATCH_FIELDS.contains(&field.as_str()) {
            return Err(ExecutionError::NoSuchKey(
                format!("field `{field}` on struct `{JSON_PATCH}`").into(),
            ));
        }
        out.add_field_value(field, CowVal::Owned(value.clone_as_boxed()));
    }
    Ok(CowVal::owned(out))
}

/// Rewrites every struct literal of `expr` into a `@struct` call (see the module doc);
/// new nodes take ids from `next_id` upwards.
pub(crate) fn rewrite_structs(expr: &mut IdedExpr, next_id: &mut u64) {
    fn node(next_id: &mut u64, e: Expr) -> IdedExpr {
        *next_id += 1;
        IdedExpr {
            id: *next_id,
            expr: e,
        }
    }
    match &mut expr.expr {
        Expr::Struct(s) => {
            let name = node(
                next_id,
                Expr::Literal(LiteralValue::String(s.type_name.clone().into())),
            );
            let mut elements = Vec::with_capacity(s.entries.len() * 2);
            for entry in std::mem::take(&mut s.entries) {
                if let EntryExpr::StructField(f) = entry.expr {
                    elements.push(node(
                        next_id,
                        Expr::Literal(LiteralValue::String(f.field.into())),
                    ));
                    let mut value = f.value;
                    rewrite_structs(&mut value, next_id);
                    elements.push(value);
                }
            }
            let fields = node(next_id, Expr::List(ListExpr::new(elements)));
            expr.expr = Expr::Call(cel::common::ast::CallExpr {
                func_name: STRUCT.to_owned(),
                target: None,
                args: vec![name, fields],
            });
        }
        other => for_each_child_mut(other, |child| rewrite_structs(child, next_id)),
    }
}

/// cel-go's name of a value's type, as the MAP messages print it.
pub(crate) fn type_name(value: &CelValue) -> String {
    match value {
        CelValue::Struct(s) => s.name().to_owned(),
        CelValue::List(_) => "list".into(),
        CelValue::Map(_) => "map".into(),
        CelValue::Int(_) => "int".into(),
        CelValue::UInt(_) => "uint".into(),
        CelValue::Float(_) => "double".into(),
        CelValue::String(_) => "string".into(),
        CelValue::Bytes(_) => "bytes".into(),
        CelValue::Bool(_) => "bool".into(),
        CelValue::Null => "null_type".into(),
        CelValue::Duration(_) => "google.protobuf.Duration".into(),
        CelValue::Timestamp(_) => "google.protobuf.Timestamp".into(),
        other => format!("{:?}", other.type_of()).to_lowercase(),
    }
}

/// The fields of a struct value, converted.
fn fields(s: &CelStruct<'static>) -> Result<Vec<(String, CelValue)>, String> {
    s.field_values()
        .into_iter()
        .map(|(k, v)| {
            CelValue::try_from(v.as_ref())
                .map(|v| (k, v))
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// `CheckTypeNamesMatchFieldPathNames`: every struct nested in the fields of `root` (directly,
/// or as an element of a list or a value of a map) must be named by its field path from
/// `root`'s name (`Object.spec.template` under `Object.spec`'s field `template`).
pub fn check_type_names(root: &CelValue) -> Result<(), String> {
    let CelValue::Struct(s) = root else {
        return Ok(());
    };
    check_fields(s)
}

/// The fields of a struct checked as the struct holds them. Converting each field to a
/// `CelValue` first (as [`fields`] does) would copy every nested struct again at every
/// level; and it cannot fail here: the struct is a converted one (`Struct::to_static`),
/// whose fields all came from `CelValue`s.
fn check_fields(s: &CelStruct<'_>) -> Result<(), String> {
    for (field, value) in s.field_values() {
        check_nested(value.as_ref(), &format!("{}.{field}", s.name()))?;
    }
    Ok(())
}

fn check_nested(value: &dyn Val, expected: &str) -> Result<(), String> {
    if let Some(s) = value.downcast_ref::<CelStruct>() {
        if s.name() != expected {
            return Err(format!(
                "unexpected type name \"{}\", expected \"{expected}\", which matches field name path from root Object type",
                s.name()
            ));
        }
        return check_fields(s);
    }
    if let Some(list) = value.downcast_ref::<CelList>() {
        return list
            .inner()
            .iter()
            .try_for_each(|v| check_nested(v.as_ref(), expected));
    }
    if let Some(map) = value.downcast_ref::<CelMap>() {
        // In key order (struct fields are already): of two wrong names, the same one is
        // reported in every run.
        return entries_in_order(map)
            .into_iter()
            .try_for_each(|(_, v)| check_nested(v, expected));
    }
    Ok(())
}

/// Structs (of the `Object` family anywhere in `value`) checked from the outermost one.
fn check_all_type_names(value: &CelValue) -> Result<(), String> {
    match value {
        CelValue::Struct(_) => check_type_names(value),
        CelValue::List(items) => items.iter().try_for_each(check_all_type_names),
        CelValue::Map(map) => map.map.values().try_for_each(check_all_type_names),
        _ => Ok(()),
    }
}

/// A struct value as the JSON object of its fields. A field that is a struct is read in
/// place, as [`check_fields`] reads it: converting it to a `CelValue` first would copy
/// every struct under it, again at each level (an ApplyConfiguration five levels deep was
/// copied fifteen times).
pub(crate) fn struct_to_json(
    s: &CelStruct<'_>,
    to_json: &dyn Fn(&CelValue) -> Result<Value, String>,
) -> Result<Value, String> {
    let mut out = Map::new();
    for (field, value) in s.field_values() {
        let json = match value.downcast_ref::<CelStruct>() {
            Some(nested) => struct_to_json(nested, to_json)?,
            None => to_json(&CelValue::try_from(value.as_ref()).map_err(|e| e.to_string())?)?,
        };
        out.insert(field, json);
    }
    Ok(Value::Object(out))
}

/// The result of an ApplyConfiguration expression as the JSON object it describes (smd.go):
/// an `Object{...}` whose nested type names match their field paths.
pub(crate) fn apply_configuration(
    value: &CelValue,
    to_json: &dyn Fn(&CelValue) -> Result<Value, String>,
) -> Result<Value, String> {
    match value {
        CelValue::Struct(s) if s.name() == OBJECT => {
            check_type_names(value).map_err(|e| format!("type mismatch: {e}"))?;
            to_json(value)
        }
        other => Err(format!(
            "must evaluate to Object but got {}",
            type_name(other)
        )),
    }
}

/// The result of a JSONPatch expression as RFC 6902 operations (json_patch.go): each
/// `JSONPatch` element as `{op, path, from?, value?}`; `from` only when not empty, as the
/// server leaves an empty one out.
pub(crate) fn json_patch(
    value: &CelValue,
    to_json: &dyn Fn(&CelValue) -> Result<Value, String>,
) -> Result<Vec<Value>, String> {
    let CelValue::List(items) = value else {
        return Err(format!(
            "type mismatch: JSONPatchType.expression should evaluate to array, got {}",
            type_name(value)
        ));
    };
    let mut ops = Vec::with_capacity(items.len());
    for item in items.iter() {
        let CelValue::Struct(s) = item else {
            return Err(format!(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch types, got element of {}",
                type_name(item)
            ));
        };
        if s.name() != JSON_PATCH {
            return Err(format!(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch types, got element of {}",
                s.name()
            ));
        }
        let mut op = Map::new();
        for (field, v) in fields(s)? {
            match field.as_str() {
                "op" | "path" | "from" => {
                    let CelValue::String(text) = &v else {
                        return Err(format!(
                            "type mismatch: JSONPatch field '{field}' must be a string, got {}",
                            type_name(&v)
                        ));
                    };
                    if field == "from" && text.is_empty() {
                        continue;
                    }
                    op.insert(field, Value::String(text.to_string()));
                }
                _ => {
                    check_all_type_names(&v).map_err(|e| format!("type mismatch: {e}"))?;
                    let json = to_json(&v).map_err(|e| {
                        format!("JSONPath valueExpression evaluated to a type that could not marshal to JSON: {e}")
                    })?;
                    op.insert(field, json);
                }
            }
        }
        for required in ["op", "path"] {
            op.entry(required)
                .or_insert_with(|| Value::String(String::new()));
        }
        ops.push(Value::Object(op));
    }
    Ok(ops)
}
