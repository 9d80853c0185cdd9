//! The resource name (plural) of a kind, as the API server would put it in an admission
//! request's `resource`: the CRD's `spec.names.plural` when the run has the CRD, else a
//! guess by Kubernetes' pluralisation rules.

use crate::core::resource::Resource;
use std::collections::HashMap;

/// Plurals of the custom kinds whose CRDs kadmit has seen.
#[derive(Debug, Clone, Default)]
pub struct Plurals {
    custom: HashMap<(String, String), String>,
}

impl Plurals {
    pub fn from_crds(crds: &[&Resource]) -> Plurals {
        let mut custom = HashMap::new();
        for crd in crds {
            let spec = &crd.value["spec"];
            let (Some(group), Some(kind), Some(plural)) = (
                spec["group"].as_str(),
                spec["names"]["kind"].as_str(),
                spec["names"]["plural"].as_str(),
            ) else {
                continue;
            };
            custom.insert((group.to_owned(), kind.to_owned()), plural.to_owned());
        }
        Plurals { custom }
    }

    pub fn resource(&self, group: &str, kind: &str) -> String {
        match self.custom.get(&(group.to_owned(), kind.to_owned())) {
            Some(plural) => plural.clone(),
            None => guess_plural(kind),
        }
    }
}

/// apimachinery's `UnsafeGuessKindToResource`, except that a `y` after a vowel takes `s`
/// (`Gateway` → `gateways`, where apimachinery would say `gatewaies`): lowercase; `endpoints`
/// stays; after `s`, `es`; after a consonant and `y`, `ies`; else `s`.
pub fn guess_plural(kind: &str) -> String {
    let singular = kind.to_lowercase();
    if singular.is_empty() || singular.ends_with("endpoints") {
        return singular;
    }
    if singular.ends_with('s') {
        return format!("{singular}es");
    }
    if let Some(stem) = singular.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    format!("{singular}s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resource::Origin;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn built_in_kinds_guess_right() {
        for (kind, plural) in [
            ("ConfigMap", "configmaps"),
            ("Pod", "pods"),
            ("Ingress", "ingresses"),
            ("NetworkPolicy", "networkpolicies"),
            ("Endpoints", "endpoints"),
            ("StorageClass", "storageclasses"),
            ("Gateway", "gateways"),
            ("APIService", "apiservices"),
        ] {
            assert_eq!(guess_plural(kind), plural);
        }
    }

    #[test]
    fn a_crd_names_its_plural() {
        let crd = Resource::new(
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "mice.example.com"},
                "spec": {"group": "example.com", "names": {"kind": "Mouse", "plural": "mice"}},
            }),
            Origin {
                source: Arc::from("test"),
                index: 0,
                line: 1,
                list_item: None,
            },
        )
        .unwrap();
        let plurals = Plurals::from_crds(&[&crd]);
        assert_eq!(plurals.resource("example.com", "Mouse"), "mice");
        assert_eq!(plurals.resource("other.com", "Mouse"), "mouses");
    }
}
