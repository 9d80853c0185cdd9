//! One resource as an admission request (reference §10): the operation of the run
//! (`--operation`), the kind and resource (plural) it is served as, its name and effective
//! namespace, `userInfo` from `--user`/`--group`, the Namespace object for selectors and
//! `namespaceObject`; and the run's objects as the params policies look up.

use super::Settings;
use crate::core::kinds::Scope;
use crate::core::pipeline::{Context, Objects, Operation};
use crate::core::requester::Requester;
use crate::core::resource::Resource;
use kadmit_match::Gvk;
use kadmit_policy::matching::{Gvr, Request, Table};
use kadmit_policy::params::{ParamScope, ParamSource};
use kadmit_policy::request::{AdmissionRequest, UserInfo};
use kadmit_schema::cel::expression::ActivationValue;
use serde_json::Value;

/// What every request of the run shares.
#[derive(Clone)]
pub(super) struct Builder {
    user_info: UserInfo,
    pub equivalents: Table,
    /// The Kubernetes minor version: which built-in kinds exist (for `paramKind`).
    minor: u32,
}

impl Builder {
    pub fn new(settings: &Settings, equivalents: Table) -> Builder {
        Builder {
            user_info: {
                let requester = Requester::new(settings.user.as_deref(), &settings.groups);
                UserInfo {
                    username: requester.username,
                    groups: requester.groups,
                    ..UserInfo::default()
                }
            },
            equivalents,
            minor: settings.minor,
        }
    }

    /// The request for `resource`. `namespace_object` must outlive it: the Namespace of
    /// the request when the run has one ([`Context::namespace_object`]).
    pub fn request<'a>(
        &self,
        resource: &'a Resource,
        cx: &'a Context,
        namespace_object: Option<&'a Value>,
    ) -> AdmissionRequest<'a> {
        let id = &resource.id;
        let operation = cx.operation_of(resource);
        let object = (operation != Operation::Delete).then_some(&resource.value);
        // Without a previous state (`--old`), UPDATE and DELETE see the object as its own
        // previous version (docs/admission-policies.md).
        let old_object = cx.old_object_of(resource);
        let name = if id.generated_name {
            ""
        } else {
            id.name.as_str()
        };
        AdmissionRequest {
            attributes: Request {
                operation: operation.as_str(),
                kind: Gvk {
                    group: id.group.clone(),
                    version: id.version.clone(),
                    kind: id.kind.clone(),
                },
                resource: Gvr::new(
                    &id.group,
                    &id.version,
                    &cx.kinds.resource_of(&id.group, &id.kind),
                ),
                subresource: "",
                name,
                namespace: cx.effective_namespace(resource).unwrap_or(""),
                object,
                old_object,
                namespace_object,
            },
            user_info: self.user_info.clone(),
            dry_run: false,
        }
    }

    /// The run's objects as params.
    pub fn params<'a>(&'a self, cx: &'a Context) -> Params<'a> {
        Params {
            cx,
            minor: self.minor,
        }
    }
}

/// The Namespace object a request's namespace selector and `namespaceObject` read: the
/// run's Namespace document (or the label-less `default`), none otherwise (the library
/// then gives it only `kubernetes.io/metadata.name`).
pub(super) fn namespace_object(resource: &Resource, cx: &Context) -> Option<Value> {
    let namespace = if resource.id.group.is_empty() && resource.id.kind == "Namespace" {
        resource.id.name.as_str()
    } else {
        cx.effective_namespace(resource)?
    };
    cx.namespace_object(namespace)
}

/// The objects of the run (configuration documents and the stream, as read), by kind.
pub(super) struct Params<'a> {
    cx: &'a Context,
    minor: u32,
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

impl ParamSource for Params<'_> {
    fn scope(&self, api_version: &str, kind: &str) -> Option<ParamScope> {
        let group = group_of(api_version);
        let version = api_version.rsplit_once('/').map_or(api_version, |(_, v)| v);
        let built_in = kadmit_schema::builtin::lookup(self.minor, group, version, kind)
            .ok()
            .flatten()
            .is_some();
        if !built_in && !self.cx.kinds.is_custom(group, kind) {
            return None;
        }
        Some(match self.cx.kinds.scope_of(group, kind) {
            Scope::Namespaced => ParamScope::Namespaced,
            Scope::Cluster => ParamScope::Cluster,
        })
    }

    fn objects(&self, api_version: &str, kind: &str) -> Vec<&Value> {
        self.in_namespace(api_version, kind, None)
    }

    fn named(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Value> {
        self.of_kind(api_version, kind)?
            .named(namespace, name, |o| {
                o["apiVersion"].as_str() == Some(api_version)
            })
    }

    fn bound(&self, object: &Value) -> Option<ActivationValue<'static>> {
        // By address, among the few kinds the run has objects of: no field of `object` is
        // read (each would be a hash lookup, per invocation).
        self.cx
            .objects
            .values()
            .find_map(|objects| objects.as_params(object))
    }

    fn in_namespace(&self, api_version: &str, kind: &str, namespace: Option<&str>) -> Vec<&Value> {
        self.of_kind(api_version, kind)
            .into_iter()
            .flat_map(|objects| objects.in_namespace(namespace))
            .filter(|o| o["apiVersion"].as_str() == Some(api_version))
            .collect()
    }
}

impl Params<'_> {
    fn of_kind(&self, api_version: &str, kind: &str) -> Option<&Objects> {
        // (group, kind) keys without allocating: the map is small.
        let group = group_of(api_version);
        self.cx
            .objects
            .iter()
            .find(|((g, k), _)| g == group && k == kind)
            .map(|(_, objects)| objects)
    }
}
