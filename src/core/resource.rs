//! A resource: its JSON-shaped body, what it is (identity) and where it came from (origin).

use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// Where a document was read: the input's name, the document's 0-based index in that
/// input, the 1-based line it starts on, and its position inside a flattened `List`; and
/// the file the document says it was written in, when the tool that made the stream said
/// so (docs/cli.md, "Origins").
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub source: Arc<str>,
    pub index: usize,
    pub line: usize,
    pub list_item: Option<usize>,
    pub declared: Option<Arc<Declared>>,
}

/// The file a document of the stream comes from, as the tool that wrote the stream
/// records it: kustomize's `config.kubernetes.io/origin` annotation, kpt's path and index
/// annotations, Helm's `# Source:` comment.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// The file (`base/app.yaml`; `https://github.com/org/repo//base/app.yaml?ref=v1` for
    /// a remote kustomize base).
    pub file: String,
    /// The document's 0-based index in that file, when the tool says (kpt).
    pub index: Option<usize>,
}

/// The names kadmit gives inputs that are not files.
pub const STDIN: &str = "stdin";
pub const FUNCTION_CONFIG: &str = "functionConfig";

impl Origin {
    /// Whether the origin names a file (KRM results carry `file` only then).
    pub fn is_file(&self) -> bool {
        self.declared.is_some() || !matches!(self.source.as_ref(), STDIN | FUNCTION_CONFIG)
    }

    /// The file a person edits to change the document: the declared one, else the input.
    pub fn file(&self) -> &str {
        match &self.declared {
            Some(declared) => &declared.file,
            None => &self.source,
        }
    }

    /// The document's 0-based index in [`Origin::file`], when known.
    pub fn file_index(&self) -> Option<usize> {
        match &self.declared {
            Some(declared) => declared.index,
            None => Some(self.index),
        }
    }

    /// The document's first line in [`Origin::file`], 0 when not known (no tool that
    /// declares a file gives a line in it).
    pub fn file_line(&self) -> usize {
        if self.declared.is_some() {
            0
        } else {
            self.line
        }
    }

    /// Where the document is in the input kadmit read: `stdin, document 4, line 31`.
    pub fn position(&self) -> Position<'_> {
        Position(self)
    }
}

/// [`Origin::position`]'s text.
pub struct Position<'a>(&'a Origin);

impl fmt::Display for Position<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = self.0;
        write!(f, "{}, document {}", origin.source, origin.index + 1)?;
        if origin.line > 0 {
            write!(f, ", line {}", origin.line)?;
        }
        if let Some(item) = origin.list_item {
            write!(f, ", list item {}", item + 1)?;
        }
        Ok(())
    }
}

impl fmt::Display for Origin {
    /// `stdin, document 2, line 14`; with a declared file, that file first and the position
    /// in the input after it: `base/app.yaml (via stdin, document 2, line 14)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(declared) = &self.declared else {
            return write!(f, "{}", self.position());
        };
        write!(f, "{}", declared.file)?;
        if let Some(index) = declared.index {
            write!(f, ", document {}", index + 1)?;
        }
        write!(f, " (via {})", self.position())
    }
}

/// What the API server would call the object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespace: Option<String>,
    /// `metadata.name`, or `metadata.generateName` when there is no name.
    pub name: String,
    pub generated_name: bool,
}

impl Identity {
    /// Reads apiVersion, kind and metadata.name/generateName, or says what is missing.
    pub fn of(value: &Value) -> Result<Identity, String> {
        let Value::Object(map) = value else {
            return Err(format!(
                "a resource must be a mapping, not {}",
                type_name(value)
            ));
        };
        let api_version = required_string(map, "apiVersion")?;
        let kind = required_string(map, "kind")?;
        let metadata = match map.get("metadata") {
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(format!(
                    "metadata must be a mapping, not {}",
                    type_name(other)
                ))
            }
            None => return Err("resource has no metadata (metadata.name is required)".into()),
        };
        let (name, generated_name) = match (metadata.get("name"), metadata.get("generateName")) {
            (Some(Value::String(n)), _) if !n.is_empty() => (n.clone(), false),
            (_, Some(Value::String(g))) if !g.is_empty() => (g.clone(), true),
            (Some(other), _) if !other.is_string() => {
                return Err(format!(
                    "metadata.name must be a string, not {}",
                    type_name(other)
                ))
            }
            _ => return Err("resource has no metadata.name (or metadata.generateName)".into()),
        };
        let namespace = match metadata.get("namespace") {
            Some(Value::String(ns)) if !ns.is_empty() => Some(ns.clone()),
            None | Some(Value::Null) | Some(Value::String(_)) => None,
            Some(other) => {
                return Err(format!(
                    "metadata.namespace must be a string, not {}",
                    type_name(other)
                ))
            }
        };
        let (group, version) = split_api_version(&api_version);
        Ok(Identity {
            group,
            version,
            kind,
            namespace,
            name,
            generated_name,
        })
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl fmt::Display for Identity {
    /// `Deployment team-a/web`, `Namespace team-a`, `Pod team-a/web-*` for generateName.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.kind)?;
        if let Some(ns) = &self.namespace {
            write!(f, "{ns}/")?;
        }
        write!(f, "{}", self.name)?;
        if self.generated_name {
            write!(f, "*")?;
        }
        Ok(())
    }
}

pub fn split_api_version(api_version: &str) -> (String, String) {
    match api_version.split_once('/') {
        Some((g, v)) => (g.to_owned(), v.to_owned()),
        None => (String::new(), api_version.to_owned()),
    }
}

fn required_string(map: &Map<String, Value>, field: &str) -> Result<String, String> {
    match map.get(field) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            Err(format!("resource has no {field}"))
        }
        Some(other) => Err(format!(
            "{field} must be a string, not {}",
            type_name(other)
        )),
    }
}

/// How a value's kind reads in a message ("a mapping", "a string", …).
pub use kadmit_jsonpatch::patch::type_name;

/// One object in the stream.
#[derive(Debug, Clone)]
pub struct Resource {
    pub value: Value,
    pub id: Identity,
    pub origin: Origin,
    /// The previous state of this resource (`--old`): when set, it is admitted as an
    /// UPDATE against it ([`crate::core::pipeline::Context::operation_of`]); with `value`
    /// null, as a DELETE of it ([`Resource::deletion`]).
    pub old: Option<std::sync::Arc<Value>>,
}

impl Resource {
    pub fn new(value: Value, origin: Origin) -> Result<Resource, String> {
        let id = Identity::of(&value)?;
        Ok(Resource {
            value,
            id,
            origin,
            old: None,
        })
    }

    /// The DELETE of an old object that has no counterpart in the stream: the object is
    /// absent (null, as the request's `object`), `old` is what is deleted.
    pub fn deletion(old: Arc<Value>, id: Identity, origin: Origin) -> Resource {
        Resource {
            value: Value::Null,
            id,
            origin,
            old: Some(old),
        }
    }

    /// Whether this is the DELETE of its old object ([`Resource::deletion`]).
    pub fn is_deletion(&self) -> bool {
        self.value.is_null() && self.old.is_some()
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        annotation(&self.value, key)
    }

    /// kustomize's rule: local-config unless the annotation is absent or exactly "false".
    pub fn is_local_config(&self) -> bool {
        is_local_config(&self.value)
    }

    /// Sets an annotation, creating `metadata.annotations` when needed.
    pub fn set_annotation(&mut self, key: &str, value: String) {
        let Some(metadata) = self
            .value
            .get_mut("metadata")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        let annotations = metadata
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if !annotations.is_object() {
            *annotations = Value::Object(Map::new());
        }
        if let Value::Object(map) = annotations {
            map.insert(key.to_owned(), Value::String(value));
        }
    }
}

pub const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";
pub const FUNCTION_ANNOTATION: &str = "config.kubernetes.io/function";

/// [`Resource::is_local_config`] of a document's value.
pub fn is_local_config(value: &Value) -> bool {
    matches!(annotation(value, LOCAL_CONFIG), Some(v) if v != "false")
}

pub fn annotation<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value
        .get("metadata")?
        .get("annotations")?
        .get(key)?
        .as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identity_reads_group_version_and_names() {
        let id = Identity::of(&json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "team-a"}}))
        .unwrap();
        assert_eq!((id.group.as_str(), id.version.as_str()), ("apps", "v1"));
        assert_eq!(id.to_string(), "Deployment team-a/web");
        let id = Identity::of(&json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": "web-"}}))
        .unwrap();
        assert_eq!(id.to_string(), "Pod web-*");
        assert_eq!(id.api_version(), "v1");
    }

    #[test]
    fn identity_names_what_is_missing() {
        let e = Identity::of(&json!({"kind": "Pod", "metadata": {"name": "x"}})).unwrap_err();
        assert!(e.contains("apiVersion"), "{e}");
        let e =
            Identity::of(&json!({"apiVersion": "v1", "kind": "Pod", "metadata": {}})).unwrap_err();
        assert!(e.contains("metadata.name"), "{e}");
        assert!(Identity::of(&json!([1])).unwrap_err().contains("mapping"));
    }
}
