//! MutatingAdmissionPolicy (reference admission-policies.md §9): the compiled policy
//! ([`policy`]), the dispatch with its reinvocation round ([`dispatch`]) and the JSONPatch
//! application ([`json_patch`]); the change record of a merge done in place ([`touched`]).

pub mod dispatch;
pub mod json_patch;
pub mod policy;
pub mod touched;

pub use dispatch::{
    mutate, reinvoke, Change, MutatingError, MutatingOutcome, MutationContext, Reinvocation,
};
pub use policy::{MutatingPolicy, Mutation, PatchType, ReinvocationPolicy};
