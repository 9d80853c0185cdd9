//! `x-kubernetes-validations`: CEL rules compiled once per CRD version and evaluated on
//! create the way `apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go` does
//! (reference §7). The interpreter is the `cel` crate; kadmit adds the Kubernetes value
//! model (`value`, `klist`), libraries (`library`), two-variable comprehensions and cost
//! charges (`compile`, `cost`), and cel-go's type conversions (`convert`) and error texts
//! (`errors`). `expression` reuses them for the expressions of admission policies.

mod ast;
mod checker;
mod compile;
mod convert;
mod cost;
mod env;
mod errors;
pub mod expression;
#[cfg(test)]
mod expression_tests;
mod klist;
mod lazy;
mod library;
pub mod mutation;
#[cfg(test)]
mod mutation_tests;
mod rules;
mod sorted;
#[cfg(test)]
mod tests;
mod validate;
mod value;

pub use cost::{PER_CALL_LIMIT, VALIDATION_BUDGET};
pub use rules::{compile, compile_unchecked, CelOutcome, CompiledRules};
// Admission-policy expressions: `expression::compile`, `expression::Invocation`, ...
pub use value::{escape, is_identifier};
