//! `matchPolicy: Equivalent` needs the apiserver's `EquivalentResourceMapper`
//! (`runtime.EquivalentResourceRegistry`: resources that share storage, with the kind each
//! one serves per subresource). Offline it is a table: the built-in families below plus
//! whatever the caller adds (e.g. every served version of a CRD given with `--crd`).
//!
//! Not known offline: which versions a given cluster serves (feature gates, beta APIs),
//! aggregated APIs, and CRD versions the caller does not pass in. Those behave as `Exact`.

use super::Gvr;
use kadmit_match::Gvk;

/// `EquivalentResourceMapper`: `EquivalentResourcesFor` and `KindFor`.
pub trait Equivalents {
    /// Every resource sharing storage with `resource` (itself included), for `subresource`.
    fn equivalent_resources(&self, resource: &Gvr, subresource: &str) -> Vec<Gvr>;
    /// The kind `resource`/`subresource` serves; `None` if unknown.
    fn kind_for(&self, resource: &Gvr, subresource: &str) -> Option<Gvk>;
}

#[derive(Debug, Clone)]
struct Entry {
    family: String,
    resource: Gvr,
    subresource: String,
    kind: Gvk,
}

/// A list of (family, resource, subresource, kind); resources of one family are
/// equivalent, in the order they were added.
#[derive(Debug, Clone, Default)]
pub struct Table {
    entries: Vec<Entry>,
}

impl Table {
    pub fn new() -> Table {
        Table::default()
    }

    /// Adds `resource`/`subresource` serving `kind` to `family`.
    pub fn add(&mut self, family: &str, resource: Gvr, subresource: &str, kind: Gvk) -> &mut Self {
        self.entries.push(Entry {
            family: family.to_owned(),
            resource,
            subresource: subresource.to_owned(),
            kind,
        });
        self
    }

    /// Built-in resources served at several group/versions at once by kube-apiserver
    /// 1.30–1.36 with default feature gates: core `events` ≡ `events.k8s.io/v1 events`, and
    /// `autoscaling/v1` ≡ `autoscaling/v2` `horizontalpodautoscalers` (and their `status`).
    /// `extensions/v1beta1` and `apps/v1beta*` deployments are no longer served, so they
    /// are not equivalents of `apps/v1` on a current cluster.
    pub fn builtin() -> Table {
        let mut table = Table::new();
        table
            .add(
                "events",
                Gvr::new("", "v1", "events"),
                "",
                gvk("", "v1", "Event"),
            )
            .add(
                "events",
                Gvr::new("events.k8s.io", "v1", "events"),
                "",
                gvk("events.k8s.io", "v1", "Event"),
            );
        for version in ["v1", "v2"] {
            for sub in ["", "status"] {
                table.add(
                    "horizontalpodautoscalers",
                    Gvr::new("autoscaling", version, "horizontalpodautoscalers"),
                    sub,
                    gvk("autoscaling", version, "HorizontalPodAutoscaler"),
                );
            }
        }
        table
    }

    fn find(&self, resource: &Gvr, subresource: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.resource == *resource && e.subresource == subresource)
    }
}

/// A `Gvk` from its parts.
pub(crate) fn gvk(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.to_owned(),
        version: version.to_owned(),
        kind: kind.to_owned(),
    }
}

impl Equivalents for Table {
    fn equivalent_resources(&self, resource: &Gvr, subresource: &str) -> Vec<Gvr> {
        let Some(entry) = self.find(resource, subresource) else {
            return Vec::new();
        };
        self.entries
            .iter()
            .filter(|e| e.family == entry.family && e.subresource == subresource)
            .map(|e| e.resource.clone())
            .collect()
    }

    fn kind_for(&self, resource: &Gvr, subresource: &str) -> Option<Gvk> {
        self.find(resource, subresource).map(|e| e.kind.clone())
    }
}
