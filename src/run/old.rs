//! `--old`: the previous state of the objects (a render of the base branch, or
//! `kubectl get -o yaml` of the cluster), read like the stream's `-f` inputs and kept as
//! compact JSON until admission, where each resource of the stream is matched to its old
//! object by identity (group, kind, namespace, name) and admitted as an UPDATE against
//! it; an old object no resource matched is admitted as a DELETE (docs/update.md).

use super::intake::{manifest_files, read_compact, text_digest, TextDigest};
use crate::core::config::classify;
use crate::core::decode::decode_stream_with_texts;
use crate::core::diagnostic::Diagnostic;
use crate::core::kinds::Scope;
use crate::core::lists::flatten_document;
use crate::core::origins::declared_by_annotations;
use crate::core::pipeline::Context;
use crate::core::resource::{Identity, Origin, Resource, STDIN};
use kadmit_yaml::compose::compose_with;
use kadmit_yaml::Limits;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// What an object is matched by: group, kind, namespace (none for cluster-scoped kinds),
/// name. The version is left out: the server stores one object whatever the version.
type Key = (String, String, Option<String>, String);

/// One old object, as compact JSON until it is matched or deleted.
struct OldObject {
    id: Identity,
    origin: Origin,
    /// Compact JSON; or, for an object whose text is a document of the stream, that
    /// text (read only if it is deleted after all).
    body: Box<str>,
    /// The object's text is that of the stream's document of its identity: it is that
    /// document as read. (Two stream documents of one identity, the first with other
    /// text, would take it wrongly; the API server refuses such a stream anyway.)
    same_text: bool,
    matched: bool,
}

/// Every old object of the run, indexed by identity once the kinds are known.
#[derive(Default)]
pub(super) struct OldObjects {
    objects: Vec<OldObject>,
    index: HashMap<Key, usize>,
    limits: Limits,
}

impl OldObjects {
    /// Reads the inputs of `--old` as `-f` reads its own: files, directories (`-R`: with
    /// their subdirectories), `-` for stdin; YAML or JSON streams, Lists flattened. Old
    /// documents of the kinds kadmit reads as configuration (rules, policies) are left
    /// out: they are not objects admission sees. A document whose text is one of the
    /// stream's (`known`: digests of the stream's documents) is not read again.
    pub fn read(
        inputs: &[PathBuf],
        recursive: bool,
        stdin: &[u8],
        limits: &Limits,
        known: &HashMap<TextDigest, Identity>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> OldObjects {
        let mut old = OldObjects {
            limits: *limits,
            ..OldObjects::default()
        };
        for file in manifest_files(inputs, recursive, "--old", diagnostics) {
            if file.as_os_str() == "-" {
                old.read_input(STDIN, stdin, known, diagnostics);
                continue;
            }
            match std::fs::read(&file) {
                Ok(bytes) => {
                    old.read_input(&file.display().to_string(), &bytes, known, diagnostics)
                }
                Err(e) => diagnostics.push(Diagnostic::input(format!(
                    "cannot read --old {}: {e}",
                    file.display()
                ))),
            }
        }
        old
    }

    fn read_input(
        &mut self,
        name: &str,
        bytes: &[u8],
        known: &HashMap<TextDigest, Identity>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let source: Arc<str> = Arc::from(name);
        let limits = self.limits;
        // Both callbacks add objects, in input order.
        let objects = RefCell::new(std::mem::take(&mut self.objects));
        let same_as_stream = |text: &str, origin: Origin| {
            if known.is_empty() {
                return false;
            }
            let Some(id) = known.get(&text_digest(text)) else {
                return false;
            };
            objects.borrow_mut().push(OldObject {
                id: id.clone(),
                origin,
                body: text.into(),
                same_text: true,
                matched: false,
            });
            true
        };
        decode_stream_with_texts(bytes, &source, &limits, same_as_stream, |doc| {
            let doc = match doc {
                Ok(doc) => doc,
                Err(problem) => return diagnostics.push(problem),
            };
            flatten_document(doc, &mut |mut doc| {
                if let Some(declared) = declared_by_annotations(&doc.value) {
                    doc.origin.declared = Some(Arc::new(declared));
                }
                let origin = doc.origin.clone();
                let resource = match Resource::new(doc.value, doc.origin) {
                    Ok(resource) => resource,
                    Err(message) => {
                        return diagnostics.push(
                            Diagnostic::input(format!("--old: {message}")).with_origin(&origin),
                        )
                    }
                };
                if resource.id.generated_name {
                    return diagnostics.push(
                        Diagnostic::input(
                            "--old: an old object needs a metadata.name (generateName names no object)",
                        )
                        .with_resource(&resource.id)
                        .with_origin(&resource.origin),
                    );
                }
                if classify(&resource).is_some() {
                    return;
                }
                objects.borrow_mut().push(OldObject {
                    body: serde_json::to_string(&resource.value)
                        .expect("a Value always serializes")
                        .into_boxed_str(),
                    id: resource.id,
                    origin: resource.origin,
                    same_text: false,
                    matched: false,
                });
            });
        });
        self.objects = objects.into_inner();
    }

    /// Indexes the old objects by identity, the run's kinds known (a namespaced object
    /// naming no namespace is in `--namespace`). Two old objects with one identity are
    /// bad input: the previous state holds each object once.
    pub fn index(&mut self, cx: &Context) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        for (i, object) in self.objects.iter().enumerate() {
            let key = key(&object.id, cx);
            if let Some(&first) = self.index.get(&key) {
                problems.push(
                    Diagnostic::input(format!(
                        "--old holds {} twice: at {} and at {}",
                        object.id, self.objects[first].origin, object.origin
                    ))
                    .with_resource(&object.id)
                    .with_origin(&object.origin),
                );
                continue;
            }
            self.index.insert(key, i);
        }
        problems
    }

    /// The old object of `resource`, when there is one; its stored text is freed.
    /// Whether there is no old object to match (no `--old`, or nothing in it).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    pub fn take(&mut self, resource: &Resource, cx: &Context) -> Option<Value> {
        if self.index.is_empty() || resource.id.generated_name {
            return None;
        }
        let &i = self.index.get(&key(&resource.id, cx))?;
        let object = &mut self.objects[i];
        if object.matched {
            // A second resource with one identity: the first was the UPDATE.
            return None;
        }
        object.matched = true;
        let body = std::mem::take(&mut object.body);
        if object.same_text {
            return Some(resource.value.clone());
        }
        Some(read_compact(&body))
    }

    /// The DELETEs: every old object no resource of the stream matched, in `--old` order,
    /// each as `stored` makes it.
    pub fn deletions<'a>(
        &'a mut self,
        mut stored: impl FnMut(Value, &Identity, &Origin) -> Value + 'a,
    ) -> impl Iterator<Item = Resource> + 'a {
        let limits = self.limits;
        self.objects
            .iter_mut()
            .filter(|o| !o.matched)
            .map(move |object| {
                object.matched = true;
                let body = std::mem::take(&mut object.body);
                let value = match object.same_text {
                    // The stream read this very text: it reads again.
                    true => compose_with(&body, &limits)
                        .ok()
                        .and_then(|docs| docs.into_iter().next())
                        .map_or(Value::Null, |doc| doc.value),
                    false => read_compact(&body),
                };
                let value = stored(value, &object.id, &object.origin);
                Resource::deletion(Arc::new(value), object.id.clone(), object.origin.clone())
            })
    }
}

fn key(id: &Identity, cx: &Context) -> Key {
    let namespace = match cx.kinds.scope_of(&id.group, &id.kind) {
        Scope::Cluster => None,
        Scope::Namespaced => Some(
            id.namespace
                .clone()
                .unwrap_or_else(|| cx.default_namespace.clone()),
        ),
    };
    (
        id.group.clone(),
        id.kind.clone(),
        namespace,
        id.name.clone(),
    )
}
