//! KubeMod's `select` language: gval expressions with KubeMod's JSONPath fork.
