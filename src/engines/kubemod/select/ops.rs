//! Operator and function semantics, as gval v1.0.1 composes them for KubeMod's language.
//!
//! gval builds each infix operator from typed parts and tries them in a fixed order:
//! both operands float64 → the number part; both strings → the text part; both
//! *convertible* to float64 (ints, numeric strings, Undefined as NaN) → the number part;
//! both non-nil → the text part on their `%v` forms; otherwise the arbitrary part or an
//! error. Which parts exist decides the operator's behaviour (see `binary`).

use std::cmp::Ordering;

use super::ast::{Func, InfixOp, PrefixOp};
use super::date;
use super::value::{deep_equal, Val, View};
use kadmit_go::convert::{float_to_int, float_to_uint};

type R<'a> = Result<Val<'a>, String>;

fn invalid(a: &Val<'_>, op: &str, b: &Val<'_>) -> String {
    format!("invalid operation ({}) {op} ({})", a.go_type(), b.go_type())
}

/// The number part, with and without conversion.
fn numeric<'a>(a: &Val<'a>, b: &Val<'a>) -> Option<(f64, f64)> {
    if let (Some(x), Some(y)) = (a.strict_float(), b.strict_float()) {
        return Some((x, y));
    }
    Some((a.to_float()?, b.to_float()?))
}

/// An operator with number and text parts (`+ < <= > >=`).
fn number_or_text<'a, N, T>(a: &Val<'a>, b: &Val<'a>, op: &str, num: N, text: T) -> R<'a>
where
    N: Fn(f64, f64) -> Val<'a>,
    T: Fn(&str, &str) -> Val<'a>,
{
    if let (Some(x), Some(y)) = (a.strict_float(), b.strict_float()) {
        return Ok(num(x, y));
    }
    if let (Some(x), Some(y)) = (a.strict_str(), b.strict_str()) {
        return Ok(text(x, y));
    }
    if let (Some(x), Some(y)) = (a.to_float(), b.to_float()) {
        return Ok(num(x, y));
    }
    if !a.is_nil() && !b.is_nil() {
        return Ok(text(&a.format(), &b.format()));
    }
    Err(invalid(a, op, b))
}

fn number_only<'a>(a: &Val<'a>, b: &Val<'a>, op: &str, num: impl Fn(f64, f64) -> f64) -> R<'a> {
    numeric(a, b)
        .map(|(x, y)| Val::Num(num(x, y)))
        .ok_or_else(|| invalid(a, op, b))
}

fn compare<'a>(a: &Val<'a>, b: &Val<'a>, op: &str, want: fn(Option<Ordering>) -> bool) -> R<'a> {
    number_or_text(
        a,
        b,
        op,
        |x, y| Val::Bool(want(x.partial_cmp(&y))),
        |x, y| Val::Bool(want(Some(x.cmp(y)))),
    )
}

fn bool_only<'a>(a: &Val<'a>, b: &Val<'a>, f: fn(bool, bool) -> bool) -> R<'a> {
    match (a.view(), b.view()) {
        (View::Bool(x), View::Bool(y)) => Ok(Val::Bool(f(x, y))),
        (View::Bool(_), _) => Err(format!(
            "unexpected operand type {}; expected bool",
            b.go_type()
        )),
        _ => Err(format!(
            "unexpected operand type {}; expected bool",
            a.go_type()
        )),
    }
}

fn bits(x: f64) -> i64 {
    float_to_int(x)
}

/// Go `int64 << uint64` / `>>`: shifts of 64 or more give 0 (or -1 for a negative `>>`).
fn shift(x: f64, s: f64, left: bool) -> f64 {
    let (x, s) = (bits(x), float_to_uint(s));
    let r = match (left, s >= 64) {
        (true, true) => 0,
        (true, false) => x << s,
        (false, true) => x >> 63,
        (false, false) => x >> s,
    };
    r as f64
}

/// The short-circuit check of `&&`, `||` and `??`: `Some(result)` skips the right side.
pub(crate) fn short_circuit<'a>(op: InfixOp, a: &Val<'a>) -> Option<Val<'a>> {
    match op {
        InfixOp::And if a.is_false() => Some(Val::Bool(false)),
        InfixOp::Or if matches!(a.view(), View::Bool(true)) => Some(Val::Bool(true)),
        InfixOp::Coalesce if !a.is_false() && !a.is_nil() => Some(a.clone()),
        _ => None,
    }
}

/// Applies an infix operator to two evaluated operands.
pub(crate) fn binary<'a>(op: InfixOp, a: Val<'a>, b: Val<'a>) -> R<'a> {
    use InfixOp::*;
    let (a, b) = (&a, &b);
    match op {
        Add => number_or_text(
            a,
            b,
            "+",
            |x, y| Val::Num(x + y),
            |x, y| Val::Str(format!("{x}{y}")),
        ),
        Sub => number_only(a, b, "-", |x, y| x - y),
        Mul => number_only(a, b, "*", |x, y| x * y),
        Div => number_only(a, b, "/", |x, y| x / y),
        Mod => number_only(a, b, "%", |x, y| x % y),
        Pow => number_only(a, b, "**", go_pow),
        Gt => compare(a, b, ">", |o| o == Some(Ordering::Greater)),
        Ge => compare(a, b, ">=", |o| {
            matches!(o, Some(Ordering::Greater | Ordering::Equal))
        }),
        Lt => compare(a, b, "<", |o| o == Some(Ordering::Less)),
        Le => compare(a, b, "<=", |o| {
            matches!(o, Some(Ordering::Less | Ordering::Equal))
        }),
        Eq => Ok(Val::Bool(match numeric(a, b) {
            Some((x, y)) => x == y,
            None => deep_equal(a, b),
        })),
        Ne => Ok(Val::Bool(match numeric(a, b) {
            Some((x, y)) => x != y,
            None => !deep_equal(a, b),
        })),
        DeepEq => Ok(Val::Bool(deep_equal(a, b))),
        DeepNe => Ok(Val::Bool(!deep_equal(a, b))),
        BitXor => number_only(a, b, "^", |x, y| (bits(x) ^ bits(y)) as f64),
        BitAnd => number_only(a, b, "&", |x, y| (bits(x) & bits(y)) as f64),
        BitOr => number_only(a, b, "|", |x, y| (bits(x) | bits(y)) as f64),
        Shl => number_only(a, b, "<<", |x, y| shift(x, y, true)),
        Shr => number_only(a, b, ">>", |x, y| shift(x, y, false)),
        And => bool_only(a, b, |x, y| x && y),
        Or => bool_only(a, b, |x, y| x || y),
        In => match b.view() {
            View::Arr(items) => Ok(Val::Bool(items.items().iter().any(|v| deep_equal(a, v)))),
            _ => Err(format!(
                "expected type []interface{{}} for in operator but got {}",
                b.go_type()
            )),
        },
        Coalesce => Ok(if a.is_false() || a.is_nil() {
            b.clone()
        } else {
            a.clone()
        }),
    }
}

/// Go `math.Pow` special cases that differ from `powf`.
fn go_pow(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        1.0
    } else {
        x.powf(y)
    }
}

pub(crate) fn prefix<'a>(op: PrefixOp, v: Val<'a>) -> R<'a> {
    match op {
        PrefixOp::Neg => v
            .to_float()
            .map(|f| Val::Num(-f))
            .ok_or_else(|| format!("unexpected {}({}) expected number", v.format(), v.go_type())),
        PrefixOp::BitNot => v
            .to_float()
            .map(|f| Val::Num(!bits(f) as f64))
            .ok_or_else(|| format!("unexpected {} expected number", v.go_type())),
        PrefixOp::Not => match v.view() {
            View::Bool(b) => Ok(Val::Bool(!b)),
            _ => Err(format!(
                "unexpected operand type {}; expected bool",
                v.go_type()
            )),
        },
    }
}

/// KubeMod `valLength`: Go `len` of a slice, map or string (bytes); 0 for nil and
/// Undefined.
fn length(v: &Val<'_>) -> Result<i64, String> {
    let n = match v.view() {
        View::Null | View::Undefined => 0,
        View::Arr(a) => a.len(),
        View::Obj(o) => o.len(),
        View::Str(s) => s.len(),
        _ => return Err("expected exactly one array, string or object argument".into()),
    };
    i64::try_from(n).map_err(|e| e.to_string())
}

/// Calls one of KubeMod's functions with evaluated arguments.
pub(crate) fn call<'a>(func: Func, args: Vec<Val<'a>>) -> R<'a> {
    let one = |what: &str| match args.as_slice() {
        [arg] => Ok(arg),
        _ => Err(what.to_string()),
    };
    match func {
        Func::Length => Ok(Val::Int(length(one(
            "length() expects exactly one array, string or object argument",
        )?)?)),
        Func::IsDefined => Ok(Val::Bool(
            !one("isDefined() expects exactly one argument")?.is_undefined(),
        )),
        Func::IsUndefined => Ok(Val::Bool(
            one("isUndefined() expects exactly one argument")?.is_undefined(),
        )),
        Func::IsEmpty => Ok(Val::Bool(
            length(one("isEmpty() expects exactly one argument")?)? == 0,
        )),
        Func::IsNotEmpty => Ok(Val::Bool(
            length(one("isNotEmpty() expects exactly one argument")?)? != 0,
        )),
        Func::Date => {
            let arg = one("date() expects exactly one string argument")?;
            let s = arg
                .strict_str()
                .ok_or("date() expects exactly one string argument")?;
            date::parse_date(s).map(Val::Time)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b<'a>(op: InfixOp, x: Val<'a>, y: Val<'a>) -> String {
        match binary(op, x, y) {
            Ok(v) => v.format(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn equality_coerces_numbers_like_kubemod() {
        let doc = json!({"port": 80});
        let port = || Val::Json(&doc["port"]);
        assert_eq!(b(InfixOp::Eq, Val::Str("80".into()), port()), "true");
        assert_eq!(
            b(InfixOp::Eq, Val::Str("1".into()), Val::Str("1.0".into())),
            "true"
        );
        assert_eq!(
            b(InfixOp::Eq, Val::Bool(true), Val::Str("true".into())),
            "false"
        );
        assert_eq!(b(InfixOp::Eq, Val::Undefined, Val::Num(12.0)), "false");
        assert_eq!(b(InfixOp::Ne, Val::Undefined, Val::Num(12.0)), "true");
        assert_eq!(b(InfixOp::Ne, Val::Undefined, Val::Str("x".into())), "true");
        assert_eq!(b(InfixOp::Eq, Val::Int(1), port()), "false");
        assert_eq!(b(InfixOp::DeepEq, Val::Str("80".into()), port()), "false");
    }

    #[test]
    fn ordering_is_lexicographic_on_strings() {
        assert_eq!(
            b(InfixOp::Gt, Val::Str("10".into()), Val::Str("9".into())),
            "false"
        );
        assert_eq!(b(InfixOp::Gt, Val::Str("10".into()), Val::Num(9.0)), "true");
        assert_eq!(b(InfixOp::Lt, Val::Undefined, Val::Str("a".into())), "true");
        assert!(b(InfixOp::Lt, Val::Null, Val::Num(1.0)).starts_with("error"));
    }

    #[test]
    fn plus_adds_or_concatenates() {
        assert_eq!(b(InfixOp::Add, Val::Num(1.0), Val::Str("2".into())), "3");
        assert_eq!(b(InfixOp::Add, Val::Num(1.0), Val::Str("a".into())), "1a");
        assert_eq!(
            b(InfixOp::Add, Val::Str("a".into()), Val::Str("b".into())),
            "ab"
        );
        assert_eq!(
            b(InfixOp::Add, Val::Null, Val::Num(1.0)),
            "error: invalid operation (<nil>) + (float64)"
        );
    }

    #[test]
    fn logic_is_bool_only() {
        assert_eq!(b(InfixOp::And, Val::Bool(true), Val::Bool(false)), "false");
        assert!(b(InfixOp::And, Val::Bool(true), Val::Undefined).starts_with("error"));
        assert_eq!(
            short_circuit(InfixOp::And, &Val::Bool(false)).map(|v| v.format()),
            Some("false".into())
        );
        assert!(short_circuit(InfixOp::And, &Val::Undefined).is_none());
    }

    #[test]
    fn functions_follow_kubemod() {
        let doc = json!({"a": [1, 2], "s": "héllo"});
        assert_eq!(
            call(Func::Length, vec![Val::Json(&doc["a"])])
                .unwrap()
                .format(),
            "2"
        );
        assert_eq!(
            call(Func::Length, vec![Val::Json(&doc["s"])])
                .unwrap()
                .format(),
            "6"
        );
        assert_eq!(
            call(Func::Length, vec![Val::Undefined]).unwrap().format(),
            "0"
        );
        assert!(call(Func::IsEmpty, vec![Val::Num(5.0)]).is_err());
        assert!(call(Func::Length, vec![]).is_err());
        assert_eq!(
            call(Func::IsDefined, vec![Val::Null]).unwrap().format(),
            "true"
        );
    }
}
