//! KubeMod ModRules, client-side.

pub mod matching;
pub mod select;
