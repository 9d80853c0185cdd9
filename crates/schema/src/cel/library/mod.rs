//! The Kubernetes CEL libraries CRD rules may use, beyond cel-rust's standard library and
//! its strings and lists extensions.

pub mod format;
pub mod lists;
pub mod net;
pub mod quantity;
pub mod regex;
pub mod time;
pub mod url;

use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError, Value};

/// Registers every library on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    lists::register(env)?;
    regex::register(env)?;
    url::register(env)?;
    net::register(env)?;
    quantity::register(env)?;
    format::register(env)?;
    Ok(())
}

/// The result type of every overload.
pub type Out<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

/// An owned value as an overload's result.
pub fn out<'b, 'v>(value: Value) -> Out<'b, 'v> {
    Ok(CowVal::Owned(Box::<dyn Val>::try_from(value)?))
}

/// The string argument `i`.
pub fn str_arg<'a>(args: &'a [CowVal<'_, '_>], i: usize) -> Result<&'a str, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<cel::common::types::CelString>())
        .map(|s| s.inner())
        .ok_or_else(|| {
            ExecutionError::function_error("argument", format!("argument {i} must be a string"))
        })
}

/// The int argument `i`.
pub fn int_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<i64, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<cel::common::types::CelInt>())
        .map(|n| *n.inner())
        .ok_or_else(|| {
            ExecutionError::function_error("argument", format!("argument {i} must be an int"))
        })
}

/// A function overload.
pub type Overload = for<'b, 'v> fn(Vec<CowVal<'b, 'v>>) -> Out<'b, 'v>;
