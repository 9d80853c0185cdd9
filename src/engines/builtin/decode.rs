//! The decode half of create for a built-in kind: strict decoding (a type mismatch always,
//! unknown and duplicate fields under `Strict`, refuse the object: the server's 400), the
//! unknown fields dropped otherwise, then the native defaults, recorded as changes.

use super::Stage;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Change, Context, Mutation, Mutator};
use crate::core::resource::Resource;
use kadmit_jsonpatch::diff::changed_paths;
use kadmit_schema::builtin::strict_decode;
use serde_json::Value;

pub(super) struct Decode(pub Stage);

impl Mutator for Decode {
    fn mutate(&self, resource: &mut Resource, _: &Context) -> Mutation {
        let stage = &self.0;
        let kind = match stage.kind_of(resource) {
            Ok(Some(kind)) => kind,
            Ok(None) => return Mutation::default(),
            Err(unknown) => return refused(resource, no_mapping(resource, &unknown.to_string())),
        };
        let decoded = strict_decode(&kind, &resource.value, stage.field_validation);
        if let Some(message) = &decoded.message {
            return refused(resource, message.clone());
        }
        let mut mutation = Mutation::default();
        for text in &decoded.warnings {
            mutation.diagnostics.push(
                Diagnostic::warning(text.clone())
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin),
            );
        }
        decoded.apply(&mut resource.value);
        // The fields dropped are told as warnings (or refused), not as changes.
        mutation.unrecorded = !decoded.drop.is_empty();
        if stage.write_defaults && kadmit_native::defaults::applies_to(stage.native_kind(resource))
        {
            let before = resource.value.clone();
            let id = resource.id.clone();
            let kind = kadmit_native::Kind {
                group: &id.group,
                version: &id.version,
                kind: &id.kind,
            };
            let had_status = resource.value.get("status").is_some();
            kadmit_native::defaults::run(kind, &mut resource.value, stage.minor);
            // `status` is the server's to fill (a Namespace's `phase: Active`, a claim's
            // `Pending`): what kadmit writes is what the server stores minus that.
            if !had_status {
                if let Some(map) = resource.value.as_object_mut() {
                    map.shift_remove("status");
                }
            }
            // The diff is the comparison: no path when nothing changed (a second walk of
            // both trees to compare them first cost half as much as the diff itself).
            let mut paths = Vec::new();
            changed_paths(&mut String::new(), &before, &resource.value, &mut paths);
            if !paths.is_empty() {
                let rule = format!(
                    "defaults {} {}",
                    resource.id.api_version(),
                    resource.id.kind
                );
                mutation.changes = paths
                    .into_iter()
                    .map(|path| Change {
                        path,
                        rule: rule.clone(),
                    })
                    .collect();
            }
        }
        mutation
    }
}

/// kubectl's refusal of a kind its group-version does not serve (it never reaches the
/// server): `resource mapping not found for name: … no matches for kind …`.
fn no_mapping(resource: &Resource, no_matches: &str) -> String {
    let namespace = resource
        .value
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    format!(
        "resource mapping not found for name: {:?} namespace: {namespace:?} from {:?}: {no_matches}\nensure CRDs are installed first",
        resource.id.name,
        resource.origin.source.as_ref(),
    )
}

fn refused(resource: &Resource, message: String) -> Mutation {
    Mutation {
        changes: Vec::new(),
        diagnostics: vec![Diagnostic::rejected(message)
            .with_resource(&resource.id)
            .with_origin(&resource.origin)],
        unrecorded: false,
    }
}
