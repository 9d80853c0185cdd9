//! The filters and functions templates may use besides Tera's own, all deterministic:
//! `to_yaml`, `to_json`, `quote`, `b64encode`, `b64decode`, `sha256`, `content_hash`,
//! `merge(with=…)`, `file(path=…, from="config"|"plugin")` and `files(paths=[…], from=…)`. Clock, random and environment functions are
//! registered only to refuse: generated output must depend on the input alone. Filters
//! whose result may be larger than their input refuse an input above `MAX_VALUE`, so that
//! chaining them cannot grow a value without bound.

use super::budget::{check_value, MAX_VALUE};
use super::definition::read_confined;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tera::{Error, Kwargs, State, Tera, TeraResult, Value};

/// Functions a template may not call, and why.
pub const DISABLED_FUNCTIONS: &[&str] = &["now", "get_random", "get_env"];

/// Where `file()` may read during one render.
#[derive(Debug, Clone, Default)]
pub struct FileRoots {
    /// The virtual resource's directory and configuration root (`from="config"`, the default).
    pub config: Option<(PathBuf, PathBuf)>,
    /// The generator definition's directory and plugin root (`from="plugin"`).
    pub plugin: Option<(PathBuf, PathBuf)>,
    pub allow_outside_root: bool,
}

/// The roots of the render in progress, shared with the registered `file` function.
pub type SharedRoots = Arc<Mutex<FileRoots>>;

pub fn register(tera: &mut Tera, roots: SharedRoots) {
    tera.register_filter("to_yaml", to_yaml);
    tera.register_filter("to_json", to_json);
    tera.register_filter("quote", quote);
    tera.register_filter("b64encode", |s: &str, _: Kwargs, _: &State| {
        check_value(&Value::from(s))?;
        Ok::<_, Error>(base64::engine::general_purpose::STANDARD.encode(s))
    });
    tera.register_filter("b64decode", b64decode);
    tera.register_filter("sha256", |s: &str, _: Kwargs, _: &State| {
        hex(&Sha256::digest(s.as_bytes()))
    });
    tera.register_filter("content_hash", content_hash_filter);
    tera.register_filter("merge", merge);
    let file_roots = roots.clone();
    tera.register_function("file", move |kwargs: Kwargs, _: &State| {
        let path = kwargs.must_get::<&str>("path")?;
        read_file(path, &kwargs, &file_roots)
    });
    tera.register_function("files", move |kwargs: Kwargs, _: &State| {
        read_files(&kwargs, &roots)
    });
    for name in DISABLED_FUNCTIONS {
        tera.register_function(*name, move |_: Kwargs, _: &State| -> TeraResult<Value> {
            Err(Error::message(format!(
                "{name}() is disabled: generated output must be the same for the same input \
                 (kadmit turns off Tera's clock, random and environment functions)"
            )))
        });
    }
}

fn json_of(value: &Value) -> TeraResult<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| Error::message(format!("not a JSON value: {e}")))
}

/// Block YAML as kadmit writes it, without the final newline (so `indent` can follow).
fn to_yaml(value: &Value, _: Kwargs, _: &State) -> TeraResult<String> {
    check_value(value)?;
    let mut out = String::new();
    kadmit_yaml::emit::write_document(&mut out, &json_of(value)?);
    out.truncate(out.trim_end_matches('\n').len());
    Ok(out)
}

/// Compact JSON, or indented with `pretty=true`.
fn to_json(value: &Value, kwargs: Kwargs, _: &State) -> TeraResult<String> {
    check_value(value)?;
    let value = json_of(value)?;
    let text = if kwargs.get::<bool>("pretty")?.unwrap_or(false) {
        serde_json::to_string_pretty(&value)
    } else {
        serde_json::to_string(&value)
    };
    text.map_err(|e| Error::message(e.to_string()))
}

/// A double-quoted scalar every YAML reader takes as exactly this string (JSON string
/// syntax is valid YAML). Numbers and booleans are quoted as their text; none as `""`.
fn quote(value: &Value, _: Kwargs, _: &State) -> TeraResult<String> {
    check_value(value)?;
    let text = match json_of(value)? {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    Ok(serde_json::Value::String(text).to_string())
}

fn b64decode(s: &str, _: Kwargs, _: &State) -> TeraResult<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s.trim())
        .map_err(|e| Error::message(format!("b64decode: {e}")))?;
    String::from_utf8(bytes).map_err(|_| Error::message("b64decode: the text is not UTF-8"))
}

fn content_hash_filter(value: &Value, _: Kwargs, _: &State) -> TeraResult<String> {
    Ok(content_hash(&json_of(value)?))
}

/// kustomize's name-suffix hash: SHA-256 of the value as Go's `json.Marshal` writes it
/// (keys sorted, `<`, `>`, `&` escaped), its first ten hex digits with `0 1 3 a e` replaced
/// by `g h k m t`. For `{"kind": "ConfigMap", "name": "", "data": …}` this is the suffix
/// kustomize's configMapGenerator appends: kustomize's `encodeConfigMap` looks the name up
/// with `yaml.Lookup("metadata/name")`, one field literally named so, and always hashes
/// an empty name.
pub fn content_hash(value: &serde_json::Value) -> String {
    let text = kadmit_go::json::marshal(value);
    let digest = hex(&Sha256::digest(text.as_bytes()));
    digest[..10]
        .chars()
        .map(|c| match c {
            '0' => 'g',
            '1' => 'h',
            '3' => 'k',
            'a' => 'm',
            'e' => 't',
            c => c,
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A map's keys and values with `with`'s added (replacing equal keys).
fn merge(value: &Value, kwargs: Kwargs, _: &State) -> TeraResult<Value> {
    let (serde_json::Value::Object(mut base), serde_json::Value::Object(with)) = (
        json_of(value)?,
        json_of(&kwargs.must_get::<Value>("with")?)?,
    ) else {
        return Err(Error::message(
            "merge: both the value and `with` must be maps",
        ));
    };
    base.extend(with);
    Value::try_from_serializable(&base)
}

/// `files(paths=[…])`: each file's content keyed by its file name, in the order given.
fn read_files(kwargs: &Kwargs, roots: &SharedRoots) -> TeraResult<Value> {
    let paths = kwargs.must_get::<Vec<String>>("paths")?;
    let mut out = serde_json::Map::new();
    for path in paths {
        let key = path.rsplit('/').next().unwrap_or(&path).to_owned();
        let text = read_file(&path, kwargs, roots)?;
        if out
            .insert(key.clone(), serde_json::Value::String(text))
            .is_some()
        {
            return Err(Error::message(format!(
                "files(): two files are named {key:?}"
            )));
        }
    }
    Value::try_from_serializable(&out)
}

fn read_file(path: &str, kwargs: &Kwargs, roots: &SharedRoots) -> TeraResult<String> {
    let from = kwargs.get::<&str>("from")?.unwrap_or("config");
    let roots = roots
        .lock()
        .map_err(|_| Error::message("file(): the render state is unavailable"))?
        .clone();
    let base = match from {
        "config" => roots.config,
        "plugin" => roots.plugin,
        other => {
            return Err(Error::message(format!(
                "file(): from must be \"config\" or \"plugin\", not {other:?}"
            )))
        }
    };
    let (base_dir, root) =
        base.ok_or_else(|| Error::message(format!("file(): no {from} directory in this run")))?;
    let text = read_confined(path, &base_dir, &root, roots.allow_outside_root)
        .map_err(|message| Error::message(format!("file(): {message}")))?;
    if text.len() > MAX_VALUE {
        return Err(Error::message(format!(
            "file(): {path} is larger than {MAX_VALUE} bytes"
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_hash_uses_kustomize_encoding() {
        let hash = content_hash(&json!({"kind": "ConfigMap", "name": "app", "data": {"a": "<b>"}}));
        assert_eq!(hash.len(), 10);
        assert!(!hash.contains(['0', '1', '3', 'a', 'e']), "{hash}");
        assert_eq!(
            hash,
            content_hash(&json!({"name": "app", "data": {"a": "<b>"}, "kind": "ConfigMap"})),
            "key order does not matter"
        );
    }
}
