//! A CRD in the shape the API server validates it: the internal `apiextensions` form. From
//! `apiextensions.k8s.io/v1`, per-version schemas, subresources and printer columns that
//! are identical in every version are hoisted to `spec.validation`, `spec.subresources`
//! and `spec.additionalPrinterColumns` (which is why single-version CRDs report
//! `spec.validation.openAPIV3Schema...` paths); `v1beta1` already has that shape. Defaults
//! of both API versions are applied (names, scope, version, conversion).

use super::node::Node;
use serde_json::Value;

pub const V1: &str = "apiextensions.k8s.io/v1";
pub const V1BETA1: &str = "apiextensions.k8s.io/v1beta1";

pub struct Crd<'a> {
    pub v1: bool,
    pub metadata: Node<'a>,
    pub group: &'a str,
    pub scope: &'a str,
    pub names: Names<'a>,
    /// `spec.version`: the first version's name.
    pub version: &'a str,
    pub versions: Vec<Version<'a>>,
    /// `spec.validation` (a `CustomResourceValidation`: `{openAPIV3Schema: ...}`).
    pub validation: Option<&'a Value>,
    pub subresources: Option<&'a Value>,
    pub columns: &'a [Value],
    pub conversion: Conversion<'a>,
    pub preserve_unknown_fields: Option<bool>,
}

pub struct Names<'a> {
    pub plural: &'a str,
    pub singular: String,
    pub kind: &'a str,
    pub list_kind: String,
    pub short_names: &'a [Value],
    pub categories: &'a [Value],
}

pub struct Version<'a> {
    pub name: &'a str,
    pub served: bool,
    pub storage: bool,
    pub deprecated: bool,
    pub deprecation_warning: Option<&'a Value>,
    pub schema: Option<&'a Value>,
    pub subresources: Option<&'a Value>,
    pub columns: &'a [Value],
}

pub struct Conversion<'a> {
    pub strategy: &'a str,
    pub client_config: Option<&'a Value>,
    pub review_versions: Option<Vec<&'a str>>,
}

impl<'a> Crd<'a> {
    /// `None` when `crd` is not an `apiextensions.k8s.io` v1 or v1beta1 CRD.
    pub fn read(crd: &'a Value) -> Option<Crd<'a>> {
        let v1 = match crd.get("apiVersion").and_then(Value::as_str)? {
            V1 => true,
            V1BETA1 => false,
            _ => return None,
        };
        if crd.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            return None;
        }
        let root = Node::new(crd);
        let spec = root.schema("spec").unwrap_or(Node::new(&Value::Null));
        let names_node = spec.schema("names").unwrap_or(Node::new(&Value::Null));
        let kind = names_node.str("kind");
        let names = Names {
            plural: names_node.str("plural"),
            singular: match names_node.str("singular") {
                "" => kind.to_lowercase(),
                s => s.to_owned(),
            },
            kind,
            list_kind: match (names_node.str("listKind"), kind) {
                ("", "") => String::new(),
                ("", k) => format!("{k}List"),
                (l, _) => l.to_owned(),
            },
            short_names: names_node.list("shortNames"),
            categories: names_node.list("categories"),
        };
        let mut versions: Vec<Version<'a>> = spec
            .list("versions")
            .iter()
            .map(|v| {
                let n = Node::new(v);
                Version {
                    name: n.str("name"),
                    served: n.flag("served"),
                    storage: n.flag("storage"),
                    deprecated: n.flag("deprecated"),
                    deprecation_warning: n.get("deprecationWarning"),
                    schema: n.get("schema"),
                    subresources: n.get("subresources"),
                    columns: n.list("additionalPrinterColumns"),
                }
            })
            .collect();
        let mut crd = Crd {
            v1,
            metadata: root.schema("metadata").unwrap_or(Node::new(&Value::Null)),
            group: spec.str("group"),
            scope: spec.str("scope"),
            names,
            version: spec.str("version"),
            versions: Vec::new(),
            validation: spec.get("validation"),
            subresources: spec.get("subresources"),
            columns: spec.list("additionalPrinterColumns"),
            conversion: Conversion::read(spec.schema("conversion"), v1),
            preserve_unknown_fields: spec.get("preserveUnknownFields").and_then(Value::as_bool),
        };
        if v1 {
            crd.version = versions.first().map_or("", |v| v.name);
            crd.preserve_unknown_fields = Some(crd.preserve_unknown_fields.unwrap_or(false));
            hoist(&mut crd, &mut versions);
        } else {
            if crd.scope.is_empty() {
                crd.scope = "Namespaced";
            }
            if crd.version.is_empty() {
                crd.version = versions.first().map_or("", |v| v.name);
            }
            if versions.is_empty() && !crd.version.is_empty() {
                versions.push(Version {
                    name: crd.version,
                    served: true,
                    storage: true,
                    deprecated: false,
                    deprecation_warning: None,
                    schema: None,
                    subresources: None,
                    columns: &[],
                });
            }
            crd.preserve_unknown_fields = Some(crd.preserve_unknown_fields.unwrap_or(true));
        }
        crd.versions = versions;
        Some(crd)
    }

    /// The schema (`openAPIV3Schema`) that applies to version `i`, with the path it is
    /// reported under.
    pub fn schema_of(&self, i: usize) -> Option<(&'a Value, String)> {
        match self.validation {
            Some(v) => v
                .get("openAPIV3Schema")
                .filter(|s| !s.is_null())
                .map(|s| (s, "spec.validation.openAPIV3Schema".to_owned())),
            None => self.versions[i]
                .schema?
                .get("openAPIV3Schema")
                .filter(|s| !s.is_null())
                .map(|s| (s, format!("spec.versions[{i}].schema.openAPIV3Schema"))),
        }
    }

    /// The subresources that apply to version `i`.
    pub fn subresources_of(&self, i: usize) -> Option<&'a Value> {
        if self.versions.iter().any(|v| v.subresources.is_some()) {
            self.versions[i].subresources
        } else {
            self.subresources
        }
    }
}

impl<'a> Conversion<'a> {
    fn read(conversion: Option<Node<'a>>, v1: bool) -> Conversion<'a> {
        let Some(c) = conversion else {
            return Conversion {
                strategy: "None",
                client_config: None,
                review_versions: None,
            };
        };
        let (config, versions) = if v1 {
            let webhook = c.schema("webhook");
            (
                webhook.and_then(|w| w.get("clientConfig")),
                webhook.and_then(|w| w.get("conversionReviewVersions")),
            )
        } else {
            (
                c.get("webhookClientConfig"),
                c.get("conversionReviewVersions"),
            )
        };
        let mut review_versions: Option<Vec<&'a str>> = versions
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect());
        if !v1
            && c.str("strategy") == "Webhook"
            && review_versions.as_ref().is_none_or(Vec::is_empty)
        {
            review_versions = Some(vec!["v1beta1"]);
        }
        Conversion {
            strategy: c.str("strategy"),
            client_config: config,
            review_versions,
        }
    }
}

/// v1 → internal: what every version shares moves to the top level.
fn hoist<'a>(crd: &mut Crd<'a>, versions: &mut [Version<'a>]) {
    let Some(first) = versions.first() else {
        return;
    };
    let (schema, subresources, columns) = (first.schema, first.subresources, first.columns);
    if versions.iter().all(|v| v.schema == schema) {
        crd.validation = schema;
        versions.iter_mut().for_each(|v| v.schema = None);
    }
    if versions.iter().all(|v| v.subresources == subresources) {
        crd.subresources = subresources;
        versions.iter_mut().for_each(|v| v.subresources = None);
    }
    if versions.iter().all(|v| v.columns == columns) {
        crd.columns = columns;
        versions.iter_mut().for_each(|v| v.columns = &[]);
    }
}
