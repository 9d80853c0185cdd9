//! KubeMod ModRules, client-side: the `select` language, matching, patches with `#N`
//! placeholders and Go templates, Reject rules, tiers and scope.

pub mod engine;
pub mod matching;
pub mod patching;
pub mod rule;
pub mod select;
pub mod store;
pub mod value;
