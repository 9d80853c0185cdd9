//! Built-in kinds in the admission pipeline, as kube-apiserver handles them on create
//! (`../shared/reference/kubernetes-builtins.md` §1): the decode half (strict decoding
//! against the kind's schema, then the native defaults) in the defaulting stage — before
//! the mutating phase and again after it, as the server decodes a mutated object again —
//! and native validation in the schema-validation stage. The schemas come from
//! `kadmit_schema::builtin` (embedded, 1.30–1.35), the defaults and validation from
//! `kadmit_native`.

mod decode;
mod validate;

use crate::core::config::{Family, SETTINGS_KIND};
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;
use crate::core::resource::Resource;
use kadmit_schema::admission::FieldValidation;
use kadmit_schema::builtin::{lookup, KindSchema, UnknownKind, MINORS, NEWEST};
use serde_json::Value;

/// What the engine is handed: its own settings only.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The Kubernetes minor version (33 for 1.33), as [`kubernetes_minor`] resolved it.
    pub minor: u32,
    pub field_validation: FieldValidation,
    /// Write the native defaults into the output (`--no-defaults` turns it off; validation
    /// still sees the defaulted object, as the server validates it).
    pub write_defaults: bool,
}

pub struct Builtins {
    pub settings: Settings,
}

impl Engine for Builtins {
    fn compile(&mut self, _: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let stage = Stage {
            minor: self.settings.minor,
            field_validation: self.settings.field_validation,
            write_defaults: self.settings.write_defaults,
        };
        pipeline.defaulting.push(Box::new(decode::Decode(stage)));
        pipeline
            .schema_validation
            .push(Box::new(validate::Validate(stage)));
        Vec::new()
    }
}

/// The Kubernetes minor version of the run: `--kubernetes-version` (`flag`), else the one a
/// `kadmit.dev` `Settings` document of the configuration pins, else the newest; with the
/// problems of the `Settings` documents. Every engine that reads built-in schemas uses it.
pub fn kubernetes_minor(flag: Option<u32>, config: &Configuration<'_>) -> (u32, Vec<Diagnostic>) {
    let (pinned, problems) = pinned_version(config);
    (flag.or(pinned).unwrap_or(NEWEST), problems)
}

/// The settings both stages share, resolved.
#[derive(Debug, Clone, Copy)]
struct Stage {
    minor: u32,
    field_validation: FieldValidation,
    write_defaults: bool,
}

impl Stage {
    /// The kind's schema when it is built in; `Err` for a kind a built-in group-version
    /// does not have.
    fn kind_of(&self, resource: &Resource) -> Result<Option<KindSchema>, UnknownKind> {
        let id = &resource.id;
        lookup(self.minor, &id.group, &id.version, &id.kind)
    }

    fn native_kind<'a>(&self, resource: &'a Resource) -> kadmit_native::Kind<'a> {
        kadmit_native::Kind {
            group: &resource.id.group,
            version: &resource.id.version,
            kind: &resource.id.kind,
        }
    }
}

/// Reads `1.33` (or `v1.33`, `1.33.4`) as the minor 33, when kadmit has that version.
pub fn parse_version(text: &str) -> Result<u32, String> {
    let trimmed = text.trim().trim_start_matches('v');
    let mut parts = trimmed.split('.');
    let minor = match (parts.next(), parts.next()) {
        (Some("1"), Some(minor)) => minor.parse::<u32>().ok(),
        _ => None,
    };
    match minor {
        Some(minor) if MINORS.contains(&minor) => Ok(minor),
        _ => Err(format!(
            "Kubernetes version {text:?} is not one kadmit has the built-in kinds of (1.{} to 1.{})",
            MINORS[0],
            MINORS[MINORS.len() - 1]
        )),
    }
}

/// The version a `kadmit.dev` `Settings` document pins; two that disagree are an error.
fn pinned_version(config: &Configuration<'_>) -> (Option<u32>, Vec<Diagnostic>) {
    let mut pinned: Option<(u32, String)> = None;
    let mut problems = Vec::new();
    for item in config.of(Family::Kadmit) {
        let resource = &item.resource;
        if resource.id.kind != SETTINGS_KIND {
            continue;
        }
        let Some(text) = resource
            .value
            .pointer("/spec/kubernetesVersion")
            .and_then(Value::as_str)
        else {
            continue;
        };
        let report = |message: String| {
            Diagnostic::config(message)
                .with_rule(resource.id.to_string())
                .with_origin(&resource.origin)
        };
        match (parse_version(text), &pinned) {
            (Err(message), _) => {
                problems.push(report(format!("spec.kubernetesVersion: {message}")))
            }
            (Ok(minor), Some((earlier, by))) if *earlier != minor => {
                problems.push(report(format!(
                    "spec.kubernetesVersion: 1.{minor} disagrees with 1.{earlier} pinned by {by}"
                )))
            }
            (Ok(minor), _) => pinned = Some((minor, resource.id.to_string())),
        }
    }
    (pinned.map(|(minor, _)| minor), problems)
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions_read_as_kubectl_prints_them() {
        assert_eq!(parse_version("1.33"), Ok(33));
        assert_eq!(parse_version("v1.30.2"), Ok(30));
        assert!(parse_version("1.29").unwrap_err().contains("1.30 to 1.35"));
        assert!(parse_version("2.0").is_err());
        assert!(parse_version("1.x").is_err());
    }
}
