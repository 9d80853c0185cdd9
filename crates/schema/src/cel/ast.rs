//! Walking the parsed expression tree: the rewrites kadmit makes after parsing
//! (`cel.bind`, MAP struct literals) each handle one kind of node and recurse into the
//! others the same way.

use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// Calls `f` on every direct child of `expr`, in source order.
pub(crate) fn for_each_child_mut(expr: &mut Expr, mut f: impl FnMut(&mut IdedExpr)) {
    match expr {
        Expr::Call(call) => {
            if let Some(target) = call.target.as_deref_mut() {
                f(target);
            }
            call.args.iter_mut().for_each(f);
        }
        Expr::Comprehension(c) => {
            for e in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                f(e);
            }
        }
        Expr::List(list) => list.elements.iter_mut().for_each(f),
        Expr::Map(map) => {
            for entry in map.entries.iter_mut() {
                match &mut entry.expr {
                    EntryExpr::MapEntry(e) => {
                        f(&mut e.key);
                        f(&mut e.value);
                    }
                    EntryExpr::StructField(field) => f(&mut field.value),
                }
            }
        }
        Expr::Struct(s) => {
            for entry in s.entries.iter_mut() {
                if let EntryExpr::StructField(field) = &mut entry.expr {
                    f(&mut field.value);
                }
            }
        }
        Expr::Select(select) => f(&mut select.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}
