//! The file a stream document says it comes from, when the tool that wrote the stream
//! recorded it (docs/cli.md, "Origins"): kustomize's `config.kubernetes.io/origin`
//! annotation (`buildMetadata: [originAnnotations]`), kpt's path and index annotations,
//! Helm's `# Source:` comment. What is read here only names the file in messages and
//! reports; the document itself, annotations included, is left as it is.

use crate::core::resource::{annotation, Declared};
use kadmit_yaml::compose::compose_with;
use kadmit_yaml::Limits;
use serde_json::Value;

/// kustomize's origin annotation: YAML with `path` (plus `repo` and `ref` for a remote
/// base), or `configuredIn` for a generated resource.
pub const KUSTOMIZE_ORIGIN: &str = "config.kubernetes.io/origin";
/// kpt's path and index annotations, and their legacy spellings.
pub const KPT_PATH: &str = "internal.config.kubernetes.io/path";
pub const KPT_INDEX: &str = "internal.config.kubernetes.io/index";
pub const LEGACY_PATH: &str = "config.kubernetes.io/path";
pub const LEGACY_INDEX: &str = "config.kubernetes.io/index";

/// The most an origin annotation may hold, in nodes: it is a handful of keys.
const ORIGIN_NODES: usize = 64;

/// The file the document's annotations name: kustomize's origin first (the file the user
/// wrote), else kpt's path (where kpt keeps the document) with its index.
pub fn declared_by_annotations(value: &Value) -> Option<Declared> {
    if let Some(declared) = annotation(value, KUSTOMIZE_ORIGIN).and_then(kustomize_origin) {
        return Some(declared);
    }
    kpt_path(value).map(|(file, index)| Declared { file, index })
}

/// kpt's path annotation and its index (0-based), the current spelling before the legacy
/// one.
pub fn kpt_path(value: &Value) -> Option<(String, Option<usize>)> {
    let path = annotation(value, KPT_PATH)
        .or_else(|| annotation(value, LEGACY_PATH))
        .filter(|p| !p.trim().is_empty())?;
    let index = annotation(value, KPT_INDEX)
        .or_else(|| annotation(value, LEGACY_INDEX))
        .and_then(|i| i.trim().parse().ok());
    Some((path.to_owned(), index))
}

/// Reads kustomize's origin annotation: `path` (a local file, relative to the directory
/// kustomize built), `repo//path?ref=REF` for a remote base (kustomize's own URL form),
/// `configuredIn` (the kustomization whose generator made the resource).
pub fn kustomize_origin(text: &str) -> Option<Declared> {
    let limits = Limits {
        max_nodes: ORIGIN_NODES,
    };
    let documents = compose_with(text, &limits).ok()?;
    let origin = documents.first()?.value.as_object()?;
    let field = |key: &str| {
        origin
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let file = match (field("path"), field("repo"), field("configuredIn")) {
        (Some(path), Some(repo), _) => match field("ref") {
            Some(reference) => format!("{repo}//{path}?ref={reference}"),
            None => format!("{repo}//{path}"),
        },
        (Some(path), None, _) => path.to_owned(),
        (None, _, Some(kustomization)) => kustomization.to_owned(),
        (None, _, None) => return None,
    };
    Some(Declared { file, index: None })
}

/// Helm's `# Source: chart/templates/web.yaml`, when it is the first comment of a
/// document's text (as `helm template` writes it, after the `---`).
pub fn helm_source(document_text: &str) -> Option<Declared> {
    let first = document_text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())?;
    let file = first.strip_prefix("# Source:")?.trim();
    (!file.is_empty()).then(|| Declared {
        file: file.to_owned(),
        index: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn annotated(annotations: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "annotations": annotations}})
    }

    fn file(declared: Option<Declared>) -> Option<(String, Option<usize>)> {
        declared.map(|d| (d.file, d.index))
    }

    #[test]
    fn kustomize_origin_local_remote_and_generated() {
        let local = annotated(json!({KUSTOMIZE_ORIGIN: "path: base/app.yaml\n"}));
        assert_eq!(
            file(declared_by_annotations(&local)),
            Some(("base/app.yaml".into(), None))
        );
        let remote = kustomize_origin(
            "path: examples/base/pod.yaml\nrepo: https://github.com/org/repo\nref: v1.0.6\n",
        );
        assert_eq!(
            file(remote),
            Some((
                "https://github.com/org/repo//examples/base/pod.yaml?ref=v1.0.6".into(),
                None
            ))
        );
        let generated = kustomize_origin(
            "configuredIn: overlay/kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n",
        );
        assert_eq!(
            file(generated),
            Some(("overlay/kustomization.yaml".into(), None))
        );
        assert_eq!(file(kustomize_origin("just text")), None);
        assert_eq!(file(kustomize_origin("path: [")), None);
    }

    #[test]
    fn kpt_path_and_index_current_then_legacy() {
        let both = annotated(json!({
            KPT_PATH: "app/web.yaml", KPT_INDEX: "1",
            LEGACY_PATH: "old.yaml", LEGACY_INDEX: "5"}));
        assert_eq!(
            file(declared_by_annotations(&both)),
            Some(("app/web.yaml".into(), Some(1)))
        );
        let legacy = annotated(json!({LEGACY_PATH: "old.yaml"}));
        assert_eq!(
            file(declared_by_annotations(&legacy)),
            Some(("old.yaml".into(), None))
        );
        let kustomize_first = annotated(json!({
            KUSTOMIZE_ORIGIN: "path: base/a.yaml", KPT_PATH: "a.yaml"}));
        assert_eq!(
            file(declared_by_annotations(&kustomize_first)),
            Some(("base/a.yaml".into(), None))
        );
        assert_eq!(declared_by_annotations(&json!({"a": 1})), None);
    }

    #[test]
    fn helm_source_is_the_first_comment() {
        assert_eq!(
            file(helm_source(
                "\n# Source: web/templates/deploy.yaml\napiVersion: v1\n"
            )),
            Some(("web/templates/deploy.yaml".into(), None))
        );
        assert_eq!(
            file(helm_source("# a note\n# Source: x.yaml\na: 1\n")),
            None
        );
        assert_eq!(file(helm_source("a: 1\n# Source: x.yaml\n")), None);
    }
}
