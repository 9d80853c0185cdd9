//! The params of a (policy, binding) pair: AP `generic/policy_dispatcher.go`
//! `CollectParams`, reference §4. The caller answers which param kinds exist, their scope
//! and their objects through [`ParamSource`].

use crate::compiled::{Binding, ParamKind, PolicyCore};
use kadmit_match::selector::{labels_of, Selector};
use kadmit_schema::cel::expression::ActivationValue;
use serde_json::Value;
use std::borrow::Cow;

/// Whether a param kind's objects live in namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamScope {
    Namespaced,
    Cluster,
}

/// The objects a policy's `paramKind` can refer to (the apiserver's param informers).
pub trait ParamSource {
    /// The scope of the kind; `None` when the kind is not known (no such resource).
    fn scope(&self, api_version: &str, kind: &str) -> Option<ParamScope>;
    /// Every object of the kind (any namespace, any order).
    fn objects(&self, api_version: &str, kind: &str) -> Vec<&Value>;

    /// The first object of the kind (in the order of [`Self::objects`]) named `name`, in
    /// `namespace` (any namespace when `None`). A source with many objects answers this
    /// from an index; the default scans [`Self::objects`].
    fn named(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Value> {
        self.objects(api_version, kind).into_iter().find(|o| {
            namespace.is_none_or(|ns| meta(o, "namespace") == ns) && meta(o, "name") == name
        })
    }

    /// `object`, one of this source's, as CEL's `params`, converted once for every
    /// evaluation that binds it (a run admits many resources against the same params);
    /// `None` when the source keeps no such conversion, or `object` is not one of its own
    /// (a copy [`typed`] made), and `object` is then bound as it is read.
    fn bound(&self, _object: &Value) -> Option<ActivationValue<'static>> {
        None
    }

    /// The objects of the kind in `namespace` (all when `None`), in the order of
    /// [`Self::objects`]. The default filters [`Self::objects`].
    fn in_namespace(&self, api_version: &str, kind: &str, namespace: Option<&str>) -> Vec<&Value> {
        let mut objects = self.objects(api_version, kind);
        if let Some(ns) = namespace {
            objects.retain(|o| meta(o, "namespace") == ns);
        }
        objects
    }
}

/// A configuration error (`failed to configure binding: <this>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn meta<'a>(object: &'a Value, key: &str) -> &'a str {
    object["metadata"]
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The param as the policy sees it: a native object without `apiVersion`/`kind` gets the
/// `paramKind`'s, so `params.kind == "ConfigMap"` holds.
/// Borrowed when the object has both already.
fn typed<'s>(object: &'s Value, kind: &ParamKind) -> Cow<'s, Value> {
    let empty = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
    };
    if !object.is_object() || !(empty("apiVersion") || empty("kind")) {
        return Cow::Borrowed(object);
    }
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut() {
        map.insert("apiVersion".into(), Value::from(kind.api_version.as_str()));
        map.insert("kind".into(), Value::from(kind.kind.as_str()));
    }
    Cow::Owned(object)
}

/// `CollectParams`: one entry per invocation. `[None]` when the policy has no `paramKind`
/// or the binding no `paramRef` (`params` is null); one `Some` per param found otherwise
/// (selector matches ordered by namespace, then name); empty when nothing was found and
/// `parameterNotFoundAction` is `Allow`. `request_namespace` is `request.namespace` (empty
/// for cluster-scoped requests, Namespace objects included).
pub fn collect_params<'s>(
    policy: &PolicyCore,
    binding: &Binding,
    request_namespace: &str,
    source: &'s dyn ParamSource,
) -> Result<Vec<Option<Cow<'s, Value>>>, ConfigError> {
    collect_params_in(policy, binding, request_namespace, source, &mut |kind| {
        source.scope(&kind.api_version, &kind.kind)
    })
}

/// [`collect_params`], with the scope of the param kind from `scope_of` (the dispatch
/// asks the source once per kind and request, not once per binding).
pub fn collect_params_in<'s>(
    policy: &PolicyCore,
    binding: &Binding,
    request_namespace: &str,
    source: &'s dyn ParamSource,
    scope_of: &mut dyn FnMut(&ParamKind) -> Option<ParamScope>,
) -> Result<Vec<Option<Cow<'s, Value>>>, ConfigError> {
    let err = |s: &str| Err(ConfigError(s.to_owned()));
    let (Some(kind), Some(param_ref)) = (&policy.param_kind, &binding.param_ref) else {
        return Ok(vec![None]);
    };
    let Some(scope) = scope_of(kind) else {
        return Err(ConfigError(format!(
            "paramKind kind `{}` not known",
            kind.gvk_string()
        )));
    };
    let namespace = match scope {
        ParamScope::Namespaced if !param_ref.namespace.is_empty() => Some(&*param_ref.namespace),
        ParamScope::Namespaced if request_namespace.is_empty() => {
            return err("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
        }
        ParamScope::Namespaced => Some(request_namespace),
        ParamScope::Cluster if !param_ref.namespace.is_empty() => {
            return err("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
        }
        ParamScope::Cluster => None,
    };
    let mut found: Vec<&Value> = if !param_ref.name.is_empty() {
        if param_ref.selector.is_some() {
            return err("paramRef.name and paramRef.selector are mutually exclusive");
        }
        source
            .named(&kind.api_version, &kind.kind, namespace, &param_ref.name)
            .into_iter()
            .collect()
    } else if let Some(selector) = &param_ref.selector {
        let selector = Selector::parse(selector).map_err(ConfigError)?;
        let mut candidates = source.in_namespace(&kind.api_version, &kind.kind, namespace);
        candidates.retain(|o| selector.matches(labels_of(o)));
        candidates
    } else {
        return err("one of name or selector must be provided");
    };
    found.sort_by(|a, b| {
        (meta(a, "namespace"), meta(a, "name")).cmp(&(meta(b, "namespace"), meta(b, "name")))
    });
    if found.is_empty() && param_ref.parameter_not_found_action == "Deny" {
        return err("no params found for policy binding with `Deny` parameterNotFoundAction");
    }
    Ok(found.into_iter().map(|o| Some(typed(o, kind))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiled::ValidatingPolicy;
    use serde_json::json;

    struct Source(Vec<Value>);

    impl ParamSource for Source {
        fn scope(&self, _: &str, kind: &str) -> Option<ParamScope> {
            match kind {
                "ConfigMap" => Some(ParamScope::Namespaced),
                "Panda" => Some(ParamScope::Cluster),
                _ => None,
            }
        }
        fn objects(&self, api_version: &str, kind: &str) -> Vec<&Value> {
            self.0
                .iter()
                .filter(|o| {
                    o["kind"] == kind
                        && (o["apiVersion"] == api_version || o["apiVersion"].is_null())
                })
                .collect()
        }
    }

    fn policy(kind: &str, api_version: &str) -> PolicyCore {
        ValidatingPolicy::from_object(&json!({"metadata": {"name": "p"}, "spec": {
            "paramKind": {"apiVersion": api_version, "kind": kind}}}))
        .core
    }

    fn binding(param_ref: Value) -> Binding {
        Binding::from_object(
            &json!({"metadata": {"name": "b"}, "spec": {"policyName": "p", "paramRef": param_ref}}),
        )
    }

    fn source() -> Source {
        Source(vec![
            json!({"kind": "ConfigMap", "metadata": {"name": "b", "namespace": "ns", "labels": {"x": "1"}}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns", "labels": {"x": "1"}}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "a", "namespace": "other"}}),
            json!({"apiVersion": "b.io/v1", "kind": "Panda", "metadata": {"name": "p1"}}),
        ])
    }

    fn names(r: &[Option<Cow<Value>>]) -> Vec<String> {
        r.iter()
            .map(|p| {
                let p = p.as_ref().unwrap();
                format!("{}/{}", meta(p, "namespace"), meta(p, "name"))
            })
            .collect()
    }

    #[test]
    fn selector_all_in_request_namespace_sorted_and_typed() {
        let s = source();
        let r = collect_params(
            &policy("ConfigMap", "v1"),
            &binding(json!({"selector": {}})),
            "ns",
            &s,
        )
        .unwrap();
        assert_eq!(names(&r), ["ns/a", "ns/b"]);
        assert_eq!(r[0].as_ref().unwrap()["apiVersion"], "v1");
    }

    #[test]
    fn errors_of_section_4() {
        let s = source();
        let cm = policy("ConfigMap", "v1");
        let e = |r: Result<Vec<Option<Cow<Value>>>, ConfigError>| r.unwrap_err().0;
        assert_eq!(
            e(collect_params(&cm, &binding(json!({"name": "a"})), "", &s)),
            "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
        );
        assert_eq!(
            e(collect_params(
                &cm,
                &binding(json!({"name": "zz"})),
                "ns",
                &s
            )),
            "no params found for policy binding with `Deny` parameterNotFoundAction"
        );
        assert!(collect_params(
            &cm,
            &binding(json!({"name": "zz", "parameterNotFoundAction": "Allow"})),
            "ns",
            &s
        )
        .unwrap()
        .is_empty());
        assert_eq!(
            e(collect_params(
                &policy("Panda", "b.io/v1"),
                &binding(json!({"name": "p1", "namespace": "ns"})),
                "ns",
                &s
            )),
            "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
        );
        assert_eq!(
            e(collect_params(
                &policy("Nope", "x.io/v1"),
                &binding(json!({"name": "a"})),
                "ns",
                &s
            )),
            "paramKind kind `x.io/v1, Kind=Nope` not known"
        );
        let cluster = collect_params(
            &policy("Panda", "b.io/v1"),
            &binding(json!({"name": "p1"})),
            "",
            &s,
        )
        .unwrap();
        assert_eq!(names(&cluster), ["/p1"]);
        let with_ns = collect_params(
            &cm,
            &binding(json!({"selector": {"matchLabels": {"x": "1"}}, "namespace": "other"})),
            "ns",
            &s,
        );
        assert!(e(with_ns).contains("`Deny`"));
    }

    #[test]
    fn no_param_kind_or_ref_gives_null_params() {
        let s = source();
        let none = ValidatingPolicy::from_object(&json!({"metadata": {"name": "p"}, "spec": {}}));
        assert_eq!(
            collect_params(&none.core, &binding(json!({"name": "a"})), "ns", &s).unwrap(),
            [None]
        );
        let b = Binding::from_object(&json!({"metadata": {"name": "b"}, "spec": {}}));
        assert_eq!(
            collect_params(&policy("ConfigMap", "v1"), &b, "ns", &s).unwrap(),
            [None]
        );
    }
}
