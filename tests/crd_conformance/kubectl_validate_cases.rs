//! The kubectl-validate corpus (`../shared/peer-fixtures/kubectl-validate/`): every
//! document of `testcases/manifests/*.yaml` that is a custom resource of the corpus's CRDs
//! (`testcases/crds/`), or a CustomResourceDefinition itself, must give the
//! `metav1.Status` in its leading comment. Documents of built-in kinds are out of scope
//! (kadmit does not carry the built-in OpenAPI schemas) and are not checked.

use crate::common::conformance::{fixtures, load_yaml};
use crate::Check;
use kadmit_schema::admission::{create, Definition, FieldValidation, Settings};
use kadmit_schema::definition::Crd;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

fn corpus() -> std::path::PathBuf {
    fixtures("kubectl-validate").join("testcases")
}

/// The CRDs of `testcases/crds` (non-CRD documents there are ignored, as upstream does).
fn definitions() -> Vec<Definition> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(corpus().join("crds"))
        .expect("testcases/crds")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    for file in files {
        for doc in load_yaml(&file) {
            if doc["kind"] == "CustomResourceDefinition" {
                let crd = Crd::from_value(&doc).expect("the corpus CRDs load");
                out.push(Definition::new(crd));
            }
        }
    }
    out
}

/// A manifest split as `YAMLReader` splits it, each document with its expected Status.
fn documents(file: &Path) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(file).expect("manifest");
    let mut docs = vec![String::new()];
    for line in text.lines() {
        if line.starts_with("---") {
            docs.push(String::new());
        } else {
            let last = docs.last_mut().expect("one document");
            last.push_str(line);
            last.push('\n');
        }
    }
    docs.into_iter()
        .filter_map(|doc| {
            let meaningful = doc
                .lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
            if !meaningful {
                return None;
            }
            let comment: String = doc
                .lines()
                .skip_while(|l| l.trim().is_empty())
                .take_while(|l| l.starts_with('#'))
                .map(|l| &l[1..])
                .collect::<Vec<_>>()
                .join("\n");
            let status = serde_json::from_str(&comment).unwrap_or(json!({"status": "Success"}));
            Some((doc, status))
        })
        .collect()
}

fn status_of(doc: &str, definitions: &[Definition]) -> Option<Value> {
    let (values, problems) =
        kadmit::testing::core::decode::decode_all(doc.as_bytes(), &Arc::from("doc"));
    if !problems.is_empty() {
        return None;
    }
    let object = values.into_iter().next()?.value;
    if object["kind"] == "CustomResourceDefinition" {
        return Some(match Crd::from_value(&object) {
            Ok(_) => json!({"status": "Success"}),
            Err(refused) => refused.status(),
        });
    }
    let api_version = object["apiVersion"].as_str().unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let definition = definitions
        .iter()
        .find(|d| d.crd.group == group && object["kind"] == d.crd.kind.as_str())?;
    let settings = Settings {
        field_validation: FieldValidation::Strict,
        write_defaults: true,
    };
    Some(match create(definition, &object, settings) {
        Ok(_) => json!({"status": "Success"}),
        Err(refused) => refused.status(),
    })
}

pub fn checks() -> Vec<(String, Check)> {
    let definitions = Arc::new(definitions());
    let mut files: Vec<_> = std::fs::read_dir(corpus().join("manifests"))
        .expect("testcases/manifests")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    let mut out: Vec<(String, Check)> = Vec::new();
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        for (i, (doc, expected)) in documents(&file).into_iter().enumerate() {
            let definitions = definitions.clone();
            let Some(got) = status_of(&doc, &definitions) else {
                continue;
            };
            out.push((
                format!("{name}#{i}"),
                Box::new(move || {
                    // kubectl-validate writes a success as `{"status": "Success", "message": ""}`.
                    let both_succeed =
                        got["status"] == "Success" && expected["status"] == "Success";
                    if both_succeed || got == expected {
                        Ok(())
                    } else {
                        Err(format!("Status differs\n  got:  {got}\n  want: {expected}"))
                    }
                }),
            ));
        }
    }
    out
}
