//! KubeMod ModRules, client-side.

pub mod select;
