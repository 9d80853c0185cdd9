//! Kubernetes' `library.Quantity` (type `kubernetes.Quantity`) with the exact decimal
//! semantics of `resource.Quantity`: values are kept as `mantissa × 10^exponent`.

use super::{int_arg, out, str_arg, Out};
use cel::common::types::{Type, INT_TYPE, STRING_TYPE};
use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::cmp::Ordering;
use std::sync::Arc;

const TYPE_NAME: &str = "kubernetes.Quantity";

/// An exact quantity, normalized (no trailing zeros in the mantissa) so that equal values
/// are equal structs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
}

impl Opaque for Quantity {
    fn runtime_type_name(&self) -> &str {
        TYPE_NAME
    }
}

use super::Overload;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let q = || Type::new_opaque_type(TYPE_NAME);
    env.add_type(q())?;
    env.add_overload(
        "quantity",
        "string_to_quantity",
        vec![STRING_TYPE],
        to_quantity,
    )?;
    env.add_overload(
        "isQuantity",
        "is_quantity_string",
        vec![STRING_TYPE],
        is_quantity,
    )?;
    let unary: [(&str, Overload); 4] = [
        ("isInteger", is_integer),
        ("asInteger", as_integer),
        ("asApproximateFloat", as_float),
        ("sign", sign),
    ];
    for (name, f) in unary {
        env.add_member_overload(name, &format!("quantity_{name}"), q(), vec![], f)?;
    }
    let binary: [(&str, Overload); 5] = [
        ("add", add),
        ("sub", sub),
        ("isGreaterThan", is_greater_than),
        ("isLessThan", is_less_than),
        ("compareTo", compare_to),
    ];
    for (name, f) in binary {
        env.add_member_overload(
            name,
            &format!("quantity_{name}_quantity"),
            q(),
            vec![q()],
            f,
        )?;
    }
    env.add_member_overload("add", "quantity_add_int", q(), vec![INT_TYPE], add)?;
    env.add_member_overload("sub", "quantity_sub_int", q(), vec![INT_TYPE], sub)?;
    Ok(())
}

impl Quantity {
    fn new(mut mantissa: i128, mut exponent: i32) -> Quantity {
        if mantissa == 0 {
            return Quantity {
                mantissa: 0,
                exponent: 0,
            };
        }
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exponent += 1;
        }
        Quantity { mantissa, exponent }
    }

    /// `resource.ParseQuantity` (the one parser of `crate::quantity`: Go's grammar, its
    /// error text, nanoscale precision rounded up).
    pub fn parse(s: &str) -> Result<Quantity, String> {
        let q = crate::quantity::Quantity::parse(s)?;
        Ok(Quantity::new(q.mantissa(), q.exponent()))
    }

    /// Both mantissas at the smaller exponent, if that fits.
    fn aligned(self, other: Quantity) -> Option<(i128, i128, i32)> {
        let exponent = self.exponent.min(other.exponent);
        let scale = |q: Quantity| -> Option<i128> {
            let shift = u32::try_from(q.exponent - exponent).ok()?;
            q.mantissa.checked_mul(10i128.checked_pow(shift)?)
        };
        Some((scale(self)?, scale(other)?, exponent))
    }

    fn as_f64(self) -> f64 {
        self.mantissa as f64 * 10f64.powi(self.exponent)
    }

    fn cmp(self, other: Quantity) -> Ordering {
        match self.aligned(other) {
            Some((a, b, _)) => a.cmp(&b),
            None => self.as_f64().total_cmp(&other.as_f64()),
        }
    }

    fn plus(self, other: Quantity) -> Result<Quantity, ExecutionError> {
        let overflow = || ExecutionError::function_error("quantity", "quantity overflow");
        let (a, b, exponent) = self.aligned(other).ok_or_else(overflow)?;
        Ok(Quantity::new(
            a.checked_add(b).ok_or_else(overflow)?,
            exponent,
        ))
    }

    fn integer(self) -> Option<i128> {
        if self.exponent >= 0 {
            self.mantissa
                .checked_mul(10i128.checked_pow(self.exponent as u32)?)
        } else {
            None
        }
    }
}

fn this(args: &[CowVal<'_, '_>], i: usize) -> Result<Quantity, ExecutionError> {
    match args.get(i).map(|a| Value::try_from(a.as_ref())) {
        Some(Ok(Value::Opaque(o))) => o
            .downcast_ref::<Quantity>()
            .copied()
            .ok_or_else(|| ExecutionError::function_error("quantity", "not a quantity")),
        Some(Ok(Value::Int(i))) => Ok(Quantity::new(i128::from(i), 0)),
        _ => Err(ExecutionError::function_error("quantity", "not a quantity")),
    }
}

fn quantity<'b, 'v>(q: Quantity) -> Out<'b, 'v> {
    out(Value::Opaque(Arc::new(q)))
}

fn to_quantity<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let q = Quantity::parse(str_arg(&args, 0)?)
        .map_err(|e| ExecutionError::function_error("quantity", e))?;
    quantity(q)
}

fn is_quantity<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Bool(Quantity::parse(str_arg(&args, 0)?).is_ok()))
}

fn is_integer<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let fits = this(&args, 0)?
        .integer()
        .is_some_and(|i| i64::try_from(i).is_ok());
    out(Value::Bool(fits))
}

fn as_integer<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let value = this(&args, 0)?
        .integer()
        .and_then(|i| i64::try_from(i).ok())
        .ok_or_else(|| {
            ExecutionError::function_error("asInteger", "cannot convert value to integer")
        })?;
    out(Value::Int(value))
}

fn as_float<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Float(this(&args, 0)?.as_f64()))
}

fn sign<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Int(this(&args, 0)?.mantissa.signum() as i64))
}

fn add<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    quantity(this(&args, 0)?.plus(this(&args, 1)?)?)
}

fn sub<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let rhs = match int_arg(&args, 1) {
        Ok(i) => Quantity::new(-i128::from(i), 0),
        Err(_) => {
            let q = this(&args, 1)?;
            Quantity::new(-q.mantissa, q.exponent)
        }
    };
    quantity(this(&args, 0)?.plus(rhs)?)
}

fn is_greater_than<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Bool(
        this(&args, 0)?.cmp(this(&args, 1)?) == Ordering::Greater,
    ))
}

fn is_less_than<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Bool(
        this(&args, 0)?.cmp(this(&args, 1)?) == Ordering::Less,
    ))
}

fn compare_to<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Int(this(&args, 0)?.cmp(this(&args, 1)?) as i64))
}

#[cfg(test)]
mod tests {
    use super::Quantity;

    #[test]
    fn parsing_and_equality() {
        assert_eq!(Quantity::parse("0.2G"), Quantity::parse("200M"));
        assert_eq!(Quantity::parse("2000k"), Quantity::parse("2M"));
        assert_eq!(Quantity::parse("1Ki"), Quantity::parse("1024"));
        assert!(Quantity::parse("200K").is_err());
        assert!(Quantity::parse("1.2.3").is_err());
    }
}
