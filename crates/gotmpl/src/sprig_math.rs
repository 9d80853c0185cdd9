//! Sprig v3.2.2 numbers: conversions with `spf13/cast` v1.3 semantics (errors become 0),
//! `int64` arithmetic that wraps as Go's does, sequences, and the float functions whose
//! `…f` forms go through `shopspring/decimal` (exact decimal arithmetic, division
//! rounded to 16 places).

use super::fmt::sprint_one;
use super::funcs::{f, fv, Args, Ctx, Table, P};
use super::value::{Elem, Value};
use kadmit_go::convert::float_to_int;
use kadmit_go::strconv::{atoi, parse_float, parse_int, FloatSyntax};
use std::rc::Rc;

type Res = Result<Value, String>;

pub(crate) const FUNCS: Table = &[
    (
        "atoi",
        f(&[P::Str], |_, a| Ok(Value::Int(atoi(&a.s(0)).unwrap_or(0)))),
    ),
    (
        "int64",
        f(&[P::Any], |_, a| Ok(Value::Int64(to_i64(&a.v(0))))),
    ),
    ("int", f(&[P::Any], |_, a| Ok(Value::Int(to_i64(&a.v(0)))))),
    (
        "float64",
        f(&[P::Any], |_, a| Ok(Value::Float(to_f64(&a.v(0))))),
    ),
    ("toDecimal", f(&[P::Any], to_decimal)),
    ("seq", fv(&[], P::Int, seq)),
    (
        "until",
        f(&[P::Int], |c, a| {
            let n = a.i(0);
            until_step(c, 0, n, if n < 0 { -1 } else { 1 })
        }),
    ),
    (
        "untilStep",
        f(&[P::Int, P::Int, P::Int], |c, a| {
            until_step(c, a.i(0), a.i(1), a.i(2))
        }),
    ),
    (
        "add1",
        f(&[P::Any], |_, a| {
            Ok(Value::Int64(to_i64(&a.v(0)).wrapping_add(1)))
        }),
    ),
    (
        "add",
        fv(&[], P::Any, |_, a| {
            Ok(Value::Int64(
                a.rest(0)
                    .iter()
                    .fold(0i64, |acc, v| acc.wrapping_add(to_i64(v))),
            ))
        }),
    ),
    (
        "sub",
        f(&[P::Any, P::Any], |_, a| {
            Ok(Value::Int64(to_i64(&a.v(0)).wrapping_sub(to_i64(&a.v(1)))))
        }),
    ),
    ("div", f(&[P::Any, P::Any], |_, a| int_div(a, false))),
    ("mod", f(&[P::Any, P::Any], |_, a| int_div(a, true))),
    (
        "mul",
        fv(&[P::Any], P::Any, |_, a| {
            Ok(Value::Int64(
                a.rest(0)
                    .iter()
                    .fold(1i64, |acc, v| acc.wrapping_mul(to_i64(v))),
            ))
        }),
    ),
    (
        "max",
        fv(&[P::Any], P::Any, |_, a| {
            Ok(Value::Int64(
                a.rest(0).iter().map(to_i64).max().unwrap_or(0),
            ))
        }),
    ),
    (
        "biggest",
        fv(&[P::Any], P::Any, |_, a| {
            Ok(Value::Int64(
                a.rest(0).iter().map(to_i64).max().unwrap_or(0),
            ))
        }),
    ),
    (
        "min",
        fv(&[P::Any], P::Any, |_, a| {
            Ok(Value::Int64(
                a.rest(0).iter().map(to_i64).min().unwrap_or(0),
            ))
        }),
    ),
    (
        "maxf",
        fv(&[P::Any], P::Any, |_, a| {
            Ok(Value::Float(fold_f(a, go_max)))
        }),
    ),
    (
        "minf",
        fv(&[P::Any], P::Any, |_, a| {
            Ok(Value::Float(fold_f(a, go_min)))
        }),
    ),
    (
        "floor",
        f(&[P::Any], |_, a| Ok(Value::Float(to_f64(&a.v(0)).floor()))),
    ),
    (
        "ceil",
        f(&[P::Any], |_, a| Ok(Value::Float(to_f64(&a.v(0)).ceil()))),
    ),
    ("round", fv(&[P::Any, P::Int], P::Float, round)),
    (
        "add1f",
        f(&[P::Any], |_, a| {
            decimal_op(to_f64(&a.v(0)), &[1.0], Op::Add)
        }),
    ),
    (
        "addf",
        fv(&[], P::Any, |_, a| {
            let rest: Vec<f64> = a.rest(0).iter().map(to_f64).collect();
            decimal_op(0.0, &rest, Op::Add)
        }),
    ),
    ("subf", fv(&[P::Any], P::Any, |_, a| float_op(a, Op::Sub))),
    ("mulf", fv(&[P::Any], P::Any, |_, a| float_op(a, Op::Mul))),
    ("divf", fv(&[P::Any], P::Any, |_, a| float_op(a, Op::Div))),
];

/// `cast.ToInt64`.
pub(crate) fn to_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        Value::Uint(u, _) => *u as i64,
        Value::Float(f) => float_to_int(*f),
        Value::Str(s) => parse_int(s, 0).unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

/// `cast.ToFloat64`.
pub(crate) fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i as f64,
        Value::Uint(u, _) => *u as f64,
        Value::Float(f) => *f,
        Value::Str(s) => {
            let lower = s.to_ascii_lowercase();
            let special = matches!(
                lower.trim_start_matches(['+', '-']),
                "inf" | "infinity" | "nan"
            );
            match s.parse::<f64>() {
                Ok(f) if f.is_finite() || special => f,
                Ok(_) => 0.0,
                Err(_) => parse_float(s, FloatSyntax::Literal).unwrap_or(0.0),
            }
        }
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

fn to_decimal(_: &mut Ctx, a: &Args) -> Res {
    let text = sprint_one(&a.v(0))?;
    Ok(Value::Int64(parse_int(&text, 8).unwrap_or(0)))
}

fn int_div(a: &Args, rem: bool) -> Res {
    let (x, y) = (to_i64(&a.v(0)), to_i64(&a.v(1)));
    if y == 0 {
        return Err("runtime error: integer divide by zero".into());
    }
    Ok(Value::Int64(if rem {
        x.wrapping_rem(y)
    } else {
        x.wrapping_div(y)
    }))
}

fn go_max(a: f64, b: f64) -> f64 {
    if a.is_infinite() && a > 0.0 || b.is_infinite() && b > 0.0 {
        return f64::INFINITY;
    }
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}

fn go_min(a: f64, b: f64) -> f64 {
    if a.is_infinite() && a < 0.0 || b.is_infinite() && b < 0.0 {
        return f64::NEG_INFINITY;
    }
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}

fn fold_f(a: &Args, op: fn(f64, f64) -> f64) -> f64 {
    let vals: Vec<f64> = a.rest(0).iter().map(to_f64).collect();
    let first = vals.first().copied().unwrap_or(0.0);
    vals.iter().skip(1).fold(first, |acc, &v| op(acc, v))
}

fn round(_: &mut Ctx, a: &Args) -> Res {
    let round_on = if a.len() > 2 { a.f(2) } else { 0.5 };
    let val = to_f64(&a.v(0));
    let pow = 10f64.powf(a.i(1) as f64);
    let digit = pow * val;
    let frac = digit - digit.trunc();
    let r = if frac >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    Ok(Value::Float(r / pow))
}

fn until_step(c: &mut Ctx, start: i64, stop: i64, step: i64) -> Res {
    let count: i128 = if stop < start {
        if step >= 0 {
            0
        } else {
            (i128::from(start) - i128::from(stop) + i128::from(-step) - 1) / i128::from(-step)
        }
    } else if step <= 0 {
        0
    } else {
        (i128::from(stop) - i128::from(start) + i128::from(step) - 1) / i128::from(step)
    };
    c.charge(count.min(u64::MAX as i128) as u64)?;
    let mut v = Vec::with_capacity(count as usize);
    let mut i = start;
    for _ in 0..count {
        v.push(Value::Int(i));
        i = i.wrapping_add(step);
    }
    Ok(Value::List(Rc::new(v), Elem::Int))
}

fn seq(c: &mut Ctx, a: &Args) -> Res {
    let p: Vec<i64> = (0..a.len()).map(|i| a.i(i)).collect();
    let list = match p.as_slice() {
        [end] => {
            let inc = if *end < 1 { -1 } else { 1 };
            until_step(c, 1, end + inc, inc)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(c, *start, end + step, step)?
        }
        [start, step, end] => {
            let mut inc = 1;
            if end < start {
                inc = -1;
                if *step > 0 {
                    return Ok(Value::str(""));
                }
            }
            until_step(c, *start, end + inc, *step)?
        }
        _ => return Ok(Value::str("")),
    };
    let items = list.list_items().unwrap_or_default();
    let text: Vec<String> = items
        .iter()
        .map(|v| v.as_i64().unwrap_or(0).to_string())
        .collect();
    Ok(Value::str(text.join(" ")))
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

fn float_op(a: &Args, op: Op) -> Res {
    let rest: Vec<f64> = a.rest(1).iter().map(to_f64).collect();
    decimal_op(to_f64(&a.v(0)), &rest, op)
}

/// An exact decimal `c × 10^e`, as `shopspring/decimal` computes.
#[derive(Clone, Copy, Debug)]
struct Dec {
    c: i128,
    e: i32,
}

fn pow10(n: i32) -> Option<i128> {
    10i128.checked_pow(u32::try_from(n).ok()?)
}

impl Dec {
    fn from_f64(f: f64) -> Result<Dec, String> {
        if !f.is_finite() {
            return Err(format!(
                "Cannot create a Decimal from {}",
                sprint_one(&Value::Float(f))?
            ));
        }
        if f == 0.0 {
            return Ok(Dec { c: 0, e: 0 });
        }
        let s = format!("{f:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let neg = mant.starts_with('-');
        let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
        let c: i128 = digits.parse().unwrap_or(0);
        Ok(Dec {
            c: if neg { -c } else { c },
            e: exp - (digits.len() as i32 - 1),
        })
    }

    fn align(self, other: Dec) -> Option<(i128, i128, i32)> {
        let e = self.e.min(other.e);
        let a = self.c.checked_mul(pow10(self.e - e)?)?;
        let b = other.c.checked_mul(pow10(other.e - e)?)?;
        Some((a, b, e))
    }

    fn op(self, other: Dec, op: Op) -> Result<Option<Dec>, String> {
        Ok(match op {
            Op::Add => self.align(other).and_then(|(a, b, e)| {
                Some(Dec {
                    c: a.checked_add(b)?,
                    e,
                })
            }),
            Op::Sub => self.align(other).and_then(|(a, b, e)| {
                Some(Dec {
                    c: a.checked_sub(b)?,
                    e,
                })
            }),
            Op::Mul => self.c.checked_mul(other.c).and_then(|c| {
                Some(Dec {
                    c,
                    e: self.e.checked_add(other.e)?,
                })
            }),
            Op::Div => {
                if other.c == 0 {
                    return Err("decimal division by zero".into());
                }
                let k = self.e - other.e + 16;
                let (num, den) = if k >= 0 {
                    match pow10(k).and_then(|p| self.c.checked_mul(p)) {
                        Some(n) => (n, other.c),
                        None => return Ok(None),
                    }
                } else {
                    match pow10(-k).and_then(|p| other.c.checked_mul(p)) {
                        Some(d) => (self.c, d),
                        None => return Ok(None),
                    }
                };
                let mut q = num / den;
                let r = num % den;
                if r.unsigned_abs().saturating_mul(2) >= den.unsigned_abs() {
                    q += if (num < 0) != (den < 0) { -1 } else { 1 };
                }
                Some(Dec { c: q, e: -16 })
            }
        })
    }

    fn to_f64(self) -> f64 {
        format!("{}e{}", self.c, self.e).parse().unwrap_or(f64::NAN)
    }
}

fn decimal_op(first: f64, rest: &[f64], op: Op) -> Res {
    let mut acc = Dec::from_f64(first)?;
    let mut approx = first;
    let mut exact = true;
    for &x in rest {
        let d = Dec::from_f64(x)?;
        approx = match op {
            Op::Add => approx + x,
            Op::Sub => approx - x,
            Op::Mul => approx * x,
            Op::Div => approx / x,
        };
        if exact {
            match acc.op(d, op)? {
                Some(next) => acc = next,
                None => exact = false,
            }
        }
    }
    Ok(Value::Float(if exact { acc.to_f64() } else { approx }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(first: f64, rest: &[f64], op: Op) -> f64 {
        match decimal_op(first, rest, op).unwrap() {
            Value::Float(f) => f,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decimal_arithmetic_is_exact() {
        assert_eq!(dec(0.0, &[1.1, 2.2], Op::Add), 3.3);
        assert_eq!(dec(0.3, &[0.1], Op::Sub), 0.2);
        assert_eq!(dec(1.1, &[3.0], Op::Mul), 3.3);
        assert_eq!(dec(10.0, &[3.0], Op::Div), 3.3333333333333335);
        assert_eq!(dec(2.0, &[3.0], Op::Div), 0.6666666666666667);
        assert!(decimal_op(1.0, &[0.0], Op::Div).is_err());
    }

    #[test]
    fn casts_like_spf13() {
        assert_eq!(to_i64(&Value::str("0x10")), 16);
        assert_eq!(to_i64(&Value::str("0755")), 493);
        assert_eq!(to_i64(&Value::str("1.5")), 0);
        assert_eq!(to_i64(&Value::Float(-2.7)), -2);
        assert_eq!(to_i64(&Value::Bool(true)), 1);
        assert_eq!(to_f64(&Value::str("1.5")), 1.5);
        assert_eq!(to_f64(&Value::str("x")), 0.0);
        assert_eq!(to_f64(&Value::Nil), 0.0);
    }
}
