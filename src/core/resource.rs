//! A resource: its JSON-shaped body, what it is (identity) and where it came from (origin).

use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// Where a document was read: the input's name, the document's 0-based index in that
/// input, the 1-based line it starts on, and its position inside a flattened `List`.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub source: Arc<str>,
    pub index: usize,
    pub line: usize,
    pub list_item: Option<usize>,
}

/// The names kadmit gives inputs that are not files.
pub const STDIN: &str = "stdin";
pub const FUNCTION_CONFIG: &str = "functionConfig";

impl Origin {
    /// Whether the source names a file (KRM results carry `file` only then).
    pub fn is_file(&self) -> bool {
        !matches!(self.source.as_ref(), STDIN | FUNCTION_CONFIG)
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, document {}", self.source, self.index + 1)?;
        if self.line > 0 {
            write!(f, ", line {}", self.line)?;
        }
        if let Some(item) = self.list_item {
            write!(f, ", list item {}", item + 1)?;
        }
        Ok(())
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
}

impl Resource {
    pub fn new(value: Value, origin: Origin) -> Result<Resource, String> {
        let id = Identity::of(&value)?;
        Ok(Resource { value, id, origin })
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        annotation(&self.value, key)
    }

    /// kustomize's rule: local-config unless the annotation is absent or exactly "false".
    pub fn is_local_config(&self) -> bool {
        matches!(self.annotation(LOCAL_CONFIG), Some(v) if v != "false")
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
