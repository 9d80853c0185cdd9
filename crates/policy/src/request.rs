//! The CEL activation of an admission request (AP `plugin/cel/activation.go`,
//! `condition.go` `CreateAdmissionRequest` / `CreateNamespaceObject`; reference §5, §10):
//! `object`, `oldObject`, `request`, `params`, `namespaceObject`, `authorizer`.
//!
//! There is no authorizer offline: `authorizer` is declared (expressions using it compile)
//! and evaluates to null, so any check such as
//! `authorizer.group('').resource('pods').check('get').allowed()` fails at evaluation with
//! a CEL error (`no such overload` / `no such key`), which goes through the policy's
//! `failurePolicy` like any runtime error.

use crate::matching::{Matched, Request};
use crate::params::ParamSource;
use kadmit_schema::cel::expression::{Activation, ActivationValue};
use serde_json::{json, Map, Value};
use std::cell::OnceCell;
use std::sync::OnceLock;

/// `authenticationv1.UserInfo`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
    /// Extra attributes, in the order given.
    pub extra: Vec<(String, Vec<String>)>,
}

/// An admission request as the policy plugins see it: the matching attributes plus who
/// sends it and whether it is a dry run.
#[derive(Debug, Clone, Default)]
pub struct AdmissionRequest<'a> {
    pub attributes: Request<'a>,
    pub user_info: UserInfo,
    pub dry_run: bool,
}

fn gvk_json(group: &str, version: &str, kind: &str) -> Value {
    json!({"group": group, "version": version, "kind": kind})
}

fn gvr_json(group: &str, version: &str, resource: &str) -> Value {
    json!({"group": group, "version": version, "resource": resource})
}

impl<'a> AdmissionRequest<'a> {
    /// `request`: the `admission.k8s.io/v1` AdmissionRequest as JSON (fields with
    /// `omitempty` left out when empty; no `uid`, `object`, `oldObject`). `kind`/`resource`
    /// are the matched (equivalent) ones, `requestKind`/`requestResource` the request's.
    pub fn request_value(&self, matched: &Matched) -> Value {
        let a = &self.attributes;
        let mut r = Map::new();
        r.insert(
            "kind".into(),
            gvk_json(
                &matched.kind.group,
                &matched.kind.version,
                &matched.kind.kind,
            ),
        );
        r.insert(
            "resource".into(),
            gvr_json(
                &matched.resource.group,
                &matched.resource.version,
                &matched.resource.resource,
            ),
        );
        if !a.subresource.is_empty() {
            r.insert("subResource".into(), Value::from(a.subresource));
        }
        r.insert(
            "requestKind".into(),
            gvk_json(&a.kind.group, &a.kind.version, &a.kind.kind),
        );
        r.insert(
            "requestResource".into(),
            gvr_json(&a.resource.group, &a.resource.version, &a.resource.resource),
        );
        if !a.subresource.is_empty() {
            r.insert("requestSubResource".into(), Value::from(a.subresource));
        }
        if !a.name.is_empty() {
            r.insert("name".into(), Value::from(a.name));
        }
        if !a.namespace.is_empty() {
            r.insert("namespace".into(), Value::from(a.namespace));
        }
        r.insert("operation".into(), Value::from(a.operation));
        let u = &self.user_info;
        let mut user = Map::new();
        if !u.username.is_empty() {
            user.insert("username".into(), Value::from(u.username.as_str()));
        }
        if !u.uid.is_empty() {
            user.insert("uid".into(), Value::from(u.uid.as_str()));
        }
        if !u.groups.is_empty() {
            user.insert("groups".into(), Value::from(u.groups.clone()));
        }
        if !u.extra.is_empty() {
            let extra: Map<String, Value> = u
                .extra
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                .collect();
            user.insert("extra".into(), Value::Object(extra));
        }
        r.insert("userInfo".into(), Value::Object(user));
        r.insert("dryRun".into(), Value::Bool(self.dry_run));
        let options = match a.operation {
            "CREATE" => Some("CreateOptions"),
            "UPDATE" => Some("UpdateOptions"),
            "DELETE" => Some("DeleteOptions"),
            _ => None,
        };
        if let Some(kind) = options {
            r.insert(
                "options".into(),
                json!({"kind": kind, "apiVersion": "meta.k8s.io/v1"}),
            );
        }
        Value::Object(r)
    }

    /// Whether the request is for a core v1 Namespace (the dispatcher then gives no
    /// `namespaceObject`).
    fn is_namespace_kind(&self) -> bool {
        let k = &self.attributes.kind;
        k.group.is_empty() && k.version == "v1" && k.kind == "Namespace"
    }

    /// `namespaceObject`: null for cluster-scoped requests and Namespace objects; else the
    /// request's Namespace (the caller's document, or one carrying only its name and the
    /// `kubernetes.io/metadata.name` label), trimmed as `CreateNamespaceObject` trims it.
    pub fn namespace_object(&self) -> Value {
        let name = self.attributes.namespace;
        if name.is_empty() || self.is_namespace_kind() {
            return Value::Null;
        }
        match self.attributes.namespace_object {
            Some(ns) => trim_namespace(ns),
            None => json!({"metadata": {
                "name": name,
                "labels": {"kubernetes.io/metadata.name": name},
            }}),
        }
    }

    /// The activation of one invocation. `namespace_object` is [`Self::namespace_object`]
    /// for validations and mutations, null for matchConditions (the matcher passes none).
    /// A request with several invocations shares their common parts through
    /// [`RequestValues`].
    pub fn activation<'s>(
        &'s self,
        matched: &Matched,
        params: Option<&'s Value>,
        namespace_object: Value,
    ) -> Activation<'s> {
        let request = ActivationValue::from_json(&self.request_value(matched));
        bind(
            self.object_value(self.attributes.object),
            self.old_object_value(),
            request,
            params,
            ActivationValue::from_json(&namespace_object),
        )
    }

    /// `object` borrowing `object`: null on DELETE.
    fn object_value<'v>(&self, object: Option<&'v Value>) -> ActivationValue<'v> {
        match object {
            Some(o) if self.attributes.operation != "DELETE" => ActivationValue::borrowing(o),
            _ => ActivationValue::null(),
        }
    }

    /// `oldObject` borrowing the request's: null on CREATE whatever the caller passed.
    fn old_object_value(&self) -> ActivationValue<'a> {
        match self.attributes.old_object {
            Some(o) if self.attributes.operation != "CREATE" => ActivationValue::borrowing(o),
            _ => ActivationValue::null(),
        }
    }
}

/// The activation's bindings; no authorizer offline (null).
fn bind<'v>(
    object: ActivationValue<'v>,
    old_object: ActivationValue<'v>,
    request: ActivationValue<'v>,
    params: Option<&'v Value>,
    namespace_object: ActivationValue<'v>,
) -> Activation<'v> {
    Activation::new()
        .with_value("object", object)
        .with_value("oldObject", old_object)
        .with_value("request", request)
        .with_value(
            "params",
            params.map_or_else(ActivationValue::null, ActivationValue::borrowing),
        )
        .with_value("namespaceObject", namespace_object)
        .with_value("authorizer", ActivationValue::null())
}

/// What the activations of one request share, built when first used: the request's
/// `object` and `oldObject` (bound borrowing its JSON, [`ActivationValue::borrowing`]: what
/// one policy's expressions read of them is built once for all), the JSON of
/// `namespaceObject`, and of `request` for invocations matched as the request's own kind
/// and resource (bound deferred: built only when an expression reads them). An object
/// being mutated is bound afresh for each invocation ([`Self::activation_on`]), which
/// costs nothing until read. `params` are bound as their source converted them once for
/// the run where it does ([`Self::with_param_source`]): every resource reads the same few.
pub struct RequestValues<'r> {
    request: &'r AdmissionRequest<'r>,
    /// Where the params come from, for their conversions made once per run.
    params: Option<&'r dyn ParamSource>,
    object: OnceCell<ActivationValue<'r>>,
    old_object: OnceCell<ActivationValue<'r>>,
    namespace_object: OnceLock<Value>,
    own_request: OnceLock<Value>,
}

impl<'r> RequestValues<'r> {
    pub fn new(request: &'r AdmissionRequest<'r>) -> RequestValues<'r> {
        RequestValues {
            request,
            params: None,
            object: OnceCell::new(),
            old_object: OnceCell::new(),
            namespace_object: OnceLock::new(),
            own_request: OnceLock::new(),
        }
    }

    /// Params bound as `source` converted them once ([`ParamSource::bound`]) where it did.
    pub fn with_param_source(self, source: &'r dyn ParamSource) -> RequestValues<'r> {
        RequestValues {
            params: Some(source),
            ..self
        }
    }

    /// The activation of one invocation: `namespaceObject` is the request's
    /// ([`AdmissionRequest::namespace_object`]) with `namespace_object`, as for validations
    /// and mutations; null without, as for matchConditions (the matcher passes none).
    pub fn activation<'a>(
        &'a self,
        matched: &'a Matched,
        params: Option<&'a Value>,
        namespace_object: bool,
    ) -> Activation<'a> {
        let request = self.request;
        let object = self
            .object
            .get_or_init(|| request.object_value(request.attributes.object));
        self.bind(object.clone(), matched, params, namespace_object)
    }

    /// [`Self::activation`] with `object` as the request's object (the object being
    /// mutated). `None` when the expressions evaluated in the activation do not reference
    /// `object` ([`CompiledExpression::references`]): it is then bound to null, unseen.
    ///
    /// [`CompiledExpression::references`]: kadmit_schema::cel::expression::CompiledExpression::references
    pub fn activation_on<'a>(
        &'a self,
        object: Option<&'a Value>,
        matched: &'a Matched,
        params: Option<&'a Value>,
        namespace_object: bool,
    ) -> Activation<'a> {
        let object = self.request.object_value(object);
        self.bind(object, matched, params, namespace_object)
    }

    /// `params` as bound: the source's conversion, else read in place.
    fn params_value<'a>(&self, params: Option<&'a Value>) -> ActivationValue<'a> {
        let Some(params) = params else {
            return ActivationValue::null();
        };
        self.params
            .and_then(|source| source.bound(params))
            .unwrap_or_else(|| ActivationValue::borrowing(params))
    }

    fn bind<'a>(
        &'a self,
        object: ActivationValue<'a>,
        matched: &'a Matched,
        params: Option<&'a Value>,
        namespace_object: bool,
    ) -> Activation<'a> {
        let request = self.request;
        let old_object = self
            .old_object
            .get_or_init(|| request.old_object_value())
            .clone();
        let own = matched.kind == request.attributes.kind
            && matched.resource == request.attributes.resource;
        let own_request = &self.own_request;
        let request_value = move || {
            if own {
                ActivationValue::borrowing(
                    own_request.get_or_init(|| request.request_value(matched)),
                )
            } else {
                ActivationValue::from_json(&request.request_value(matched))
            }
        };
        let activation = Activation::new()
            .with_value("object", object)
            .with_value("oldObject", old_object)
            .with_deferred("request", request_value)
            .with_value("params", self.params_value(params));
        let activation = if namespace_object {
            let cell = &self.namespace_object;
            activation.with_deferred("namespaceObject", move || {
                ActivationValue::borrowing(cell.get_or_init(|| request.namespace_object()))
            })
        } else {
            activation.with_value("namespaceObject", ActivationValue::null())
        };
        activation.with_value("authorizer", ActivationValue::null())
    }
}

/// The fields `CreateNamespaceObject` copies: metadata's name, generateName, namespace,
/// uid, resourceVersion, generation, creationTimestamp, deletionTimestamp,
/// deletionGracePeriodSeconds, labels, annotations, finalizers; spec; status. No
/// apiVersion/kind (a typed object without TypeMeta).
pub fn trim_namespace(namespace: &Value) -> Value {
    const META: [&str; 12] = [
        "name",
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "finalizers",
    ];
    let mut out = Map::new();
    let mut metadata = Map::new();
    if let Some(m) = namespace.get("metadata").and_then(Value::as_object) {
        for key in META {
            if let Some(v) = m.get(key).filter(|v| !v.is_null()) {
                metadata.insert(key.to_owned(), v.clone());
            }
        }
    }
    out.insert("metadata".into(), Value::Object(metadata));
    for key in ["spec", "status"] {
        if let Some(v) = namespace.get(key).filter(|v| !v.is_null()) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::Gvr;
    use kadmit_match::Gvk;
    use kadmit_schema::cel::expression::{compile, Declarations};

    fn gvk(g: &str, v: &str, k: &str) -> Gvk {
        Gvk {
            group: g.into(),
            version: v.into(),
            kind: k.into(),
        }
    }

    #[test]
    fn request_and_namespace_object() {
        let object = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}});
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n",
            "labels": {"a": "b"}, "managedFields": [{}], "ownerReferences": []}, "status": {"phase": "Active"}});
        let r = AdmissionRequest {
            attributes: Request {
                operation: "CREATE",
                kind: gvk("", "v1", "Pod"),
                resource: Gvr::new("", "v1", "pods"),
                name: "p",
                namespace: "n",
                object: Some(&object),
                old_object: Some(&object),
                namespace_object: Some(&ns),
                ..Request::default()
            },
            user_info: UserInfo {
                username: "u".into(),
                groups: vec!["g".into()],
                ..UserInfo::default()
            },
            dry_run: false,
        };
        let matched = Matched {
            resource: Gvr::new("", "v1", "pods"),
            kind: gvk("", "v1", "Pod"),
        };
        assert_eq!(
            r.request_value(&matched),
            json!({"kind": {"group": "", "version": "v1", "kind": "Pod"},
                "resource": {"group": "", "version": "v1", "resource": "pods"},
                "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
                "requestResource": {"group": "", "version": "v1", "resource": "pods"},
                "name": "p", "namespace": "n", "operation": "CREATE",
                "userInfo": {"username": "u", "groups": ["g"]}, "dryRun": false,
                "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}})
        );
        assert_eq!(
            r.namespace_object(),
            json!({"metadata": {"name": "n", "labels": {"a": "b"}}, "status": {"phase": "Active"}})
        );
        // oldObject is null on CREATE, whatever the caller passed
        let values = RequestValues::new(&r);
        let activation = values.activation(&matched, None, false);
        let declarations = Declarations::admission(false, false);
        let old_is_null = compile(
            "oldObject == null && object.metadata.name == 'p'",
            &declarations,
        );
        assert_eq!(old_is_null.unwrap().evaluate(&activation), Ok(json!(true)));
    }
}
