//! What kube-apiserver (1.30–1.35) does to a built-in object that no schema says: the
//! native defaults (`SetDefaults_*` of `pkg/apis/<group>/<version>/defaults.go`, run in
//! the generated order, parent first) and the native validation (`pkg/apis/<group>/
//! validation`), rendered as the server renders its field errors
//! (`kadmit_schema::field_error`). `../shared/reference/kubernetes-builtins.md` §3–§4 is
//! the transcription both follow.

pub mod defaults;
pub mod validation;

/// A built-in kind as the server routes it: group ("" for core), version, kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
}

/// The Kubernetes minor version the rules follow (30 for 1.30 … 35 for 1.35): defaults and
/// validation differ between releases (feature gates graduating with their defaults).
pub type Minor = u32;
