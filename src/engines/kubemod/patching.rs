//! One rule's JSON Patch, computed on the document as it is before the rule applies:
//! each patch item gives one op, or one op per `select` result with its `#N` placeholders
//! filled; `value` templates render with KubeMod's context and are typed as YAML 1.1.

use super::rule::{ModRule, PatchItem, PatchOpKind};
use super::select::{path_from_key_parts, KeyPart};
use super::value::typed_value;
use kadmit_gotmpl::Data;
use kadmit_jsonpatch::patch::Op;
use serde_json::Value;
use std::rc::Rc;

/// The ops of `rule` for `doc`, or why the rule cannot be applied to it. `levels` is at
/// least the document's [`kadmit_gotmpl::nesting`].
pub fn calculate_patch(
    rule: &ModRule,
    doc: &Rc<Value>,
    levels: usize,
    namespace: &str,
) -> Result<Vec<Op>, String> {
    let target = Target { doc, levels };
    let mut ops = Vec::new();
    for (i, item) in rule.patches.iter().enumerate() {
        let field = |suffix: &str, e: String| format!("spec.patch[{i}]{suffix}: {e}");
        match &item.select {
            None => ops.push(
                build_op(item, &item.path, &target, namespace, Value::Null, &[])
                    .map_err(|e| field("", e))?,
            ),
            Some(select) => {
                let selected = select.select(doc).map_err(|e| field(".select", e))?;
                for (parts, value) in selected {
                    let path =
                        path_from_key_parts(&item.path, &parts).map_err(|e| field(".path", e))?;
                    ops.push(
                        build_op(item, &path, &target, namespace, value, &parts)
                            .map_err(|e| field("", e))?,
                    );
                }
            }
        }
    }
    Ok(ops)
}

struct Target<'a> {
    doc: &'a Rc<Value>,
    levels: usize,
}

fn build_op(
    item: &PatchItem,
    path: &str,
    target: &Target,
    namespace: &str,
    selected: Value,
    parts: &[KeyPart],
) -> Result<Op, String> {
    let value = match (&item.value, item.op) {
        (_, PatchOpKind::Remove) => Value::Null,
        (None, _) => Value::Null,
        (Some(template), _) => {
            let key_parts = parts
                .iter()
                .map(|p| match p {
                    KeyPart::Index(i) => Data::Int(*i),
                    KeyPart::Key(k) => Data::String(k.clone()),
                })
                .collect();
            let selected = match selected {
                Value::Null => Data::Nil,
                value => {
                    let levels = kadmit_gotmpl::nesting(&value);
                    Data::Shared(Rc::new(value), levels)
                }
            };
            // Go's context: numbers in the document are float64, key parts are int.
            let context = Data::Map(vec![
                (
                    "Target".into(),
                    Data::Shared(target.doc.clone(), target.levels),
                ),
                ("Namespace".into(), Data::String(namespace.to_owned())),
                ("SelectedItem".into(), selected),
                ("SelectKeyParts".into(), Data::List(key_parts)),
            ]);
            let text = template.execute_data(&context).map_err(|e| e.to_string())?;
            typed_value(&text).map_err(|e| format!("value: {e}"))?
        }
    };
    let path = path.to_owned();
    Ok(match item.op {
        PatchOpKind::Add => Op::Add { path, value },
        PatchOpKind::Replace => Op::Replace { path, value },
        PatchOpKind::Remove => Op::Remove { path },
    })
}
