//! CustomResourceDefinitions decoded as the API server decodes them: into the typed Go
//! structs of `apiextensions.k8s.io/v1` (or `v1beta1`) with `sigs.k8s.io/json`'s strict,
//! case-sensitive options, so that a key no struct field carries is an unknown field
//! (`spec.versions[0].schema.openAPIV3Schema.properties.spec.maxium`), where the schema
//! engine would otherwise never look at it. Only unknown fields are found here; wrong
//! types are the CRD checks' (`structural`). Duplicate keys never get this far: the YAML
//! and JSON readers refuse them.
//!
//! The structs are those of the apiextensions OpenAPI document of Kubernetes 1.35 (v1) and
//! of the Go types (v1beta1, which the server no longer serves). The order is Go's decode
//! order: keys sorted at every level, as kubectl's YAML-to-JSON conversion (through Go
//! maps) sends them; each path once; at most 100, as `saveStrictError` keeps.
//!
//! Known difference: inside `items`, `additionalProperties`, `additionalItems` and
//! `dependencies` (Go types with their own `UnmarshalJSON`, which decode their content
//! with the non-strict `k8s.io/apimachinery/pkg/util/json`), the server may let an
//! unknown field through and drop it; kadmit reports it like any other.

use crate::objectmeta::{self, Seg};
use crate::unknown::{did_you_mean, UnknownField};
use serde_json::Value;

/// What a JSON value is decoded into, as far as unknown fields go.
#[derive(Clone, Copy)]
enum Ty {
    /// Scalars, `[]string`, `JSON` (`default`, `enum`, `example`): no field is unknown.
    Leaf,
    Struct(&'static GoStruct),
    List(&'static Ty),
    Map(&'static Ty),
    /// A type with its own `UnmarshalJSON` that looks at the first byte: an object is
    /// decoded as `object`, an array as `array` (`JSONSchemaPropsOrArray`, ...).
    Either {
        object: &'static Ty,
        array: &'static Ty,
    },
    /// `metav1.ObjectMeta`.
    ObjectMeta,
}

struct GoStruct {
    fields: &'static [(&'static str, Ty)],
}

const MAX_ERRORS: usize = 100;

static CRD_V1: Ty = Ty::Struct(&GoStruct {
    fields: &[
        ("apiVersion", Ty::Leaf),
        ("kind", Ty::Leaf),
        ("metadata", Ty::ObjectMeta),
        ("spec", Ty::Struct(&SPEC_V1)),
        ("status", Ty::Struct(&STATUS)),
    ],
});

static CRD_V1BETA1: Ty = Ty::Struct(&GoStruct {
    fields: &[
        ("apiVersion", Ty::Leaf),
        ("kind", Ty::Leaf),
        ("metadata", Ty::ObjectMeta),
        ("spec", Ty::Struct(&SPEC_V1BETA1)),
        ("status", Ty::Struct(&STATUS)),
    ],
});

static SPEC_V1: GoStruct = GoStruct {
    fields: &[
        ("conversion", Ty::Struct(&CONVERSION_V1)),
        ("group", Ty::Leaf),
        ("names", Ty::Struct(&NAMES)),
        ("preserveUnknownFields", Ty::Leaf),
        ("scope", Ty::Leaf),
        ("versions", Ty::List(&VERSION_V1)),
    ],
};

static SPEC_V1BETA1: GoStruct = GoStruct {
    fields: &[
        ("additionalPrinterColumns", Ty::List(&COLUMN_V1BETA1)),
        ("conversion", Ty::Struct(&CONVERSION_V1BETA1)),
        ("group", Ty::Leaf),
        ("names", Ty::Struct(&NAMES)),
        ("preserveUnknownFields", Ty::Leaf),
        ("scope", Ty::Leaf),
        ("subresources", Ty::Struct(&SUBRESOURCES)),
        ("validation", Ty::Struct(&VALIDATION)),
        ("version", Ty::Leaf),
        ("versions", Ty::List(&VERSION_V1BETA1)),
    ],
};

static CONVERSION_V1: GoStruct = GoStruct {
    fields: &[
        ("strategy", Ty::Leaf),
        (
            "webhook",
            Ty::Struct(&GoStruct {
                fields: &[
                    ("clientConfig", Ty::Struct(&CLIENT_CONFIG)),
                    ("conversionReviewVersions", Ty::Leaf),
                ],
            }),
        ),
    ],
};

static CONVERSION_V1BETA1: GoStruct = GoStruct {
    fields: &[
        ("conversionReviewVersions", Ty::Leaf),
        ("strategy", Ty::Leaf),
        ("webhookClientConfig", Ty::Struct(&CLIENT_CONFIG)),
    ],
};

static CLIENT_CONFIG: GoStruct = GoStruct {
    fields: &[
        ("caBundle", Ty::Leaf),
        (
            "service",
            Ty::Struct(&GoStruct {
                fields: &[
                    ("name", Ty::Leaf),
                    ("namespace", Ty::Leaf),
                    ("path", Ty::Leaf),
                    ("port", Ty::Leaf),
                ],
            }),
        ),
        ("url", Ty::Leaf),
    ],
};

static NAMES: GoStruct = GoStruct {
    fields: &[
        ("categories", Ty::Leaf),
        ("kind", Ty::Leaf),
        ("listKind", Ty::Leaf),
        ("plural", Ty::Leaf),
        ("shortNames", Ty::Leaf),
        ("singular", Ty::Leaf),
    ],
};

static VERSION_V1: Ty = Ty::Struct(&GoStruct {
    fields: &[
        ("additionalPrinterColumns", Ty::List(&COLUMN_V1)),
        ("deprecated", Ty::Leaf),
        ("deprecationWarning", Ty::Leaf),
        ("name", Ty::Leaf),
        ("schema", Ty::Struct(&VALIDATION)),
        ("selectableFields", Ty::List(&SELECTABLE_FIELD)),
        ("served", Ty::Leaf),
        ("storage", Ty::Leaf),
        ("subresources", Ty::Struct(&SUBRESOURCES)),
    ],
});

static VERSION_V1BETA1: Ty = Ty::Struct(&GoStruct {
    fields: &[
        ("additionalPrinterColumns", Ty::List(&COLUMN_V1BETA1)),
        ("deprecated", Ty::Leaf),
        ("deprecationWarning", Ty::Leaf),
        ("name", Ty::Leaf),
        ("schema", Ty::Struct(&VALIDATION)),
        ("selectableFields", Ty::List(&SELECTABLE_FIELD)),
        ("served", Ty::Leaf),
        ("storage", Ty::Leaf),
        ("subresources", Ty::Struct(&SUBRESOURCES)),
    ],
});

static COLUMN_V1: Ty = Ty::Struct(&GoStruct {
    fields: &[
        ("description", Ty::Leaf),
        ("format", Ty::Leaf),
        ("jsonPath", Ty::Leaf),
        ("name", Ty::Leaf),
        ("priority", Ty::Leaf),
        ("type", Ty::Leaf),
    ],
});

static COLUMN_V1BETA1: Ty = Ty::Struct(&GoStruct {
    fields: &[
        ("JSONPath", Ty::Leaf),
        ("description", Ty::Leaf),
        ("format", Ty::Leaf),
        ("name", Ty::Leaf),
        ("priority", Ty::Leaf),
        ("type", Ty::Leaf),
    ],
});

static SELECTABLE_FIELD: Ty = Ty::Struct(&GoStruct {
    fields: &[("jsonPath", Ty::Leaf)],
});

static VALIDATION: GoStruct = GoStruct {
    fields: &[("openAPIV3Schema", Ty::Struct(&JSON_SCHEMA_PROPS))],
};

static SUBRESOURCES: GoStruct = GoStruct {
    fields: &[
        (
            "scale",
            Ty::Struct(&GoStruct {
                fields: &[
                    ("labelSelectorPath", Ty::Leaf),
                    ("specReplicasPath", Ty::Leaf),
                    ("statusReplicasPath", Ty::Leaf),
                ],
            }),
        ),
        // `CustomResourceSubresourceStatus` has no field at all.
        ("status", Ty::Struct(&GoStruct { fields: &[] })),
    ],
};

static STATUS: GoStruct = GoStruct {
    fields: &[
        ("acceptedNames", Ty::Struct(&NAMES)),
        (
            "conditions",
            Ty::List(&Ty::Struct(&GoStruct {
                fields: &[
                    ("lastTransitionTime", Ty::Leaf),
                    ("message", Ty::Leaf),
                    ("observedGeneration", Ty::Leaf),
                    ("reason", Ty::Leaf),
                    ("status", Ty::Leaf),
                    ("type", Ty::Leaf),
                ],
            })),
        ),
        ("observedGeneration", Ty::Leaf),
        ("storedVersions", Ty::Leaf),
    ],
};

/// `JSONSchemaProps`.
static SCHEMA: Ty = Ty::Struct(&JSON_SCHEMA_PROPS);

static JSON_SCHEMA_PROPS: GoStruct = GoStruct {
    fields: &[
        ("$ref", Ty::Leaf),
        ("$schema", Ty::Leaf),
        (
            "additionalItems",
            Ty::Either {
                object: &SCHEMA,
                array: &Ty::Leaf,
            },
        ),
        (
            "additionalProperties",
            Ty::Either {
                object: &SCHEMA,
                array: &Ty::Leaf,
            },
        ),
        ("allOf", Ty::List(&SCHEMA)),
        ("anyOf", Ty::List(&SCHEMA)),
        ("default", Ty::Leaf),
        ("definitions", Ty::Map(&SCHEMA)),
        (
            "dependencies",
            Ty::Map(&Ty::Either {
                object: &SCHEMA,
                array: &Ty::Leaf,
            }),
        ),
        ("description", Ty::Leaf),
        ("enum", Ty::Leaf),
        ("example", Ty::Leaf),
        ("exclusiveMaximum", Ty::Leaf),
        ("exclusiveMinimum", Ty::Leaf),
        (
            "externalDocs",
            Ty::Struct(&GoStruct {
                fields: &[("description", Ty::Leaf), ("url", Ty::Leaf)],
            }),
        ),
        ("format", Ty::Leaf),
        ("id", Ty::Leaf),
        (
            "items",
            Ty::Either {
                object: &SCHEMA,
                array: &Ty::List(&SCHEMA),
            },
        ),
        ("maxItems", Ty::Leaf),
        ("maxLength", Ty::Leaf),
        ("maxProperties", Ty::Leaf),
        ("maximum", Ty::Leaf),
        ("minItems", Ty::Leaf),
        ("minLength", Ty::Leaf),
        ("minProperties", Ty::Leaf),
        ("minimum", Ty::Leaf),
        ("multipleOf", Ty::Leaf),
        ("not", Ty::Struct(&JSON_SCHEMA_PROPS)),
        ("nullable", Ty::Leaf),
        ("oneOf", Ty::List(&SCHEMA)),
        ("pattern", Ty::Leaf),
        ("patternProperties", Ty::Map(&SCHEMA)),
        ("properties", Ty::Map(&SCHEMA)),
        ("required", Ty::Leaf),
        ("title", Ty::Leaf),
        ("type", Ty::Leaf),
        ("uniqueItems", Ty::Leaf),
        ("x-kubernetes-embedded-resource", Ty::Leaf),
        ("x-kubernetes-int-or-string", Ty::Leaf),
        ("x-kubernetes-list-map-keys", Ty::Leaf),
        ("x-kubernetes-list-type", Ty::Leaf),
        ("x-kubernetes-map-type", Ty::Leaf),
        ("x-kubernetes-preserve-unknown-fields", Ty::Leaf),
        (
            "x-kubernetes-validations",
            Ty::List(&Ty::Struct(&GoStruct {
                fields: &[
                    ("fieldPath", Ty::Leaf),
                    ("message", Ty::Leaf),
                    ("messageExpression", Ty::Leaf),
                    ("optionalOldSelf", Ty::Leaf),
                    ("reason", Ty::Leaf),
                    ("rule", Ty::Leaf),
                ],
            })),
        ),
    ],
};

/// The unknown fields of a CustomResourceDefinition (`apiextensions.k8s.io/v1`, or
/// `v1beta1`; nothing for anything else), in decode order.
pub fn crd_unknown_fields(crd: &Value) -> Vec<UnknownField> {
    match crd_type(crd) {
        Some(ty) => unknown(crd, ty).into_iter().map(|(u, _)| u).collect(),
        None => Vec::new(),
    }
}

/// [`crd_unknown_fields`], deleted from `crd` (what the typed decode keeps).
pub fn strip_crd(crd: &mut Value) -> Vec<UnknownField> {
    match crd_type(crd) {
        Some(ty) => strip(crd, ty),
        None => Vec::new(),
    }
}

/// The unknown fields of one `apiextensions.k8s.io/v1` `CustomResourceDefinitionVersion`
/// (an entry of `spec.versions`), paths relative to it, deleted from `version`.
pub fn strip_crd_version(version: &mut Value) -> Vec<UnknownField> {
    strip(version, VERSION_V1)
}

/// The server's strict-decoding error for `crd`, when it has unknown fields:
/// `CustomResourceDefinition in version "v1" cannot be handled as a
/// CustomResourceDefinition: strict decoding error: unknown field "<path>", ...`.
pub fn strict_decoding_error(crd: &Value) -> Option<String> {
    let unknown = crd_unknown_fields(crd);
    if unknown.is_empty() {
        return None;
    }
    let version = crd
        .get("apiVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.rsplit_once('/'))
        .map_or("", |(_, v)| v);
    let fields: Vec<String> = unknown.iter().map(UnknownField::server_text).collect();
    Some(format!(
        "CustomResourceDefinition in version \"{version}\" cannot be handled as a \
         CustomResourceDefinition: strict decoding error: {}",
        fields.join(", ")
    ))
}

fn crd_type(crd: &Value) -> Option<Ty> {
    if crd.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
        return None;
    }
    match crd.get("apiVersion").and_then(Value::as_str)? {
        crate::structural::V1 => Some(CRD_V1),
        crate::structural::V1BETA1 => Some(CRD_V1BETA1),
        _ => None,
    }
}

fn strip(value: &mut Value, ty: Ty) -> Vec<UnknownField> {
    let found = unknown(value, ty);
    for (_, at) in &found {
        objectmeta::remove_at(value, at);
    }
    found.into_iter().map(|(u, _)| u).collect()
}

fn unknown(value: &Value, ty: Ty) -> Vec<(UnknownField, Vec<Seg>)> {
    let mut decoder = Decoder::default();
    decoder.value(value, ty);
    decoder.found
}

#[derive(Default)]
struct Decoder {
    at: Vec<Seg>,
    found: Vec<(UnknownField, Vec<Seg>)>,
}

impl Decoder {
    fn value(&mut self, v: &Value, ty: Ty) {
        if self.found.len() >= MAX_ERRORS {
            return;
        }
        match (ty, v) {
            (Ty::Struct(st), Value::Object(map)) => {
                for key in sorted_keys(map) {
                    self.at.push(Seg::Key(key.clone()));
                    match st.fields.iter().find(|(name, _)| name == key) {
                        Some((_, field_ty)) => self.value(&map[key], *field_ty),
                        None => self.record(st.fields.iter().map(|(name, _)| *name)),
                    }
                    self.at.pop();
                }
            }
            (Ty::List(item_ty), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.at.push(Seg::Index(i));
                    self.value(item, *item_ty);
                    self.at.pop();
                }
            }
            (Ty::Map(item_ty), Value::Object(map)) => {
                for key in sorted_keys(map) {
                    self.at.push(Seg::Key(key.clone()));
                    self.value(&map[key], *item_ty);
                    self.at.pop();
                }
            }
            (Ty::Either { object, .. }, Value::Object(_)) => self.value(v, *object),
            (Ty::Either { array, .. }, Value::Array(_)) => self.value(v, *array),
            (Ty::ObjectMeta, metadata) => {
                let depth = self.at.len();
                for (_, at) in objectmeta::unknown_metadata_fields(metadata) {
                    let suggest = at.len() == 1;
                    self.at.extend(at);
                    if suggest {
                        self.record(objectmeta::object_meta_fields());
                    } else {
                        self.record(std::iter::empty());
                    }
                    self.at.truncate(depth);
                }
            }
            // Leaves, and wrong types (the CRD checks report those).
            _ => {}
        }
    }

    /// Records the field at `self.at` (its last step a key no field of the struct has).
    fn record<'a>(&mut self, known: impl IntoIterator<Item = &'a str>) {
        let path = objectmeta::strict_path(&self.at);
        if self.found.len() >= MAX_ERRORS || self.found.iter().any(|(u, _)| u.path == path) {
            return;
        }
        let suggestion = match self.at.last() {
            Some(Seg::Key(key)) => did_you_mean(key, known).map(str::to_owned),
            _ => None,
        };
        self.found
            .push((UnknownField { path, suggestion }, self.at.clone()));
    }
}

fn sorted_keys(map: &serde_json::Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": schema}}]
            }
        })
    }

    #[test]
    fn unknown_fields_anywhere_in_a_schema_are_found_in_decode_order() {
        let value = crd(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "maxium": 3, "x-kubernetes-validation": [],
                    "properties": {"list": {"type": "array", "items": {"type": "string", "patern": "a"}}}},
                "status": {"type": "object", "additionalProperties": {"type": "string", "formt": "x"}}
            }
        }));
        let paths: Vec<String> = crd_unknown_fields(&value)
            .into_iter()
            .map(|u| u.to_string())
            .collect();
        let at = "spec.versions[0].schema.openAPIV3Schema.properties";
        assert_eq!(
            paths,
            [
                format!(r#"unknown field "{at}.spec.maxium" (did you mean "maximum"?)"#),
                format!(
                    r#"unknown field "{at}.spec.properties.list.items.patern" (did you mean "pattern"?)"#
                ),
                format!(
                    r#"unknown field "{at}.spec.x-kubernetes-validation" (did you mean "x-kubernetes-validations"?)"#
                ),
                format!(
                    r#"unknown field "{at}.status.additionalProperties.formt" (did you mean "format"?)"#
                ),
            ]
        );
        assert_eq!(
            strict_decoding_error(&value).unwrap(),
            format!(
                "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: \
                 strict decoding error: unknown field \"{at}.spec.maxium\", unknown field \
                 \"{at}.spec.properties.list.items.patern\", unknown field \
                 \"{at}.spec.x-kubernetes-validation\", unknown field \
                 \"{at}.status.additionalProperties.formt\""
            )
        );
    }

    #[test]
    fn every_level_of_the_crd_object_is_typed() {
        let mut value = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "a.b", "lables": {}},
            "spec": {"group": "b", "names": {"kind": "A", "plural": "a", "shortname": []},
                "versions": [{"name": "v1", "subresources": {"status": {"x": 1}}}],
                "conversion": {"strategy": "None", "webhook": {"clientConfig": {"service": {"nam": "s"}}}}},
            "status": {"storedVersions": [], "acceptedNames": {"kind": ""}, "condition": []}
        });
        let paths: Vec<String> = strip_crd(&mut value).into_iter().map(|u| u.path).collect();
        assert_eq!(
            paths,
            [
                "metadata.lables",
                "spec.conversion.webhook.clientConfig.service.nam",
                "spec.names.shortname",
                "spec.versions[0].subresources.status.x",
                "status.condition",
            ]
        );
        assert_eq!(value["metadata"], json!({"name": "a.b"}));
        assert_eq!(
            value["spec"]["versions"][0]["subresources"]["status"],
            json!({})
        );
        assert!(crd_unknown_fields(&value).is_empty());
    }

    #[test]
    fn v1beta1_has_its_own_spec_and_others_have_none() {
        let value = json!({
            "apiVersion": "apiextensions.k8s.io/v1beta1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "a.b"},
            "spec": {"group": "b", "version": "v1", "names": {"kind": "A", "plural": "a"},
                "validation": {"openAPIV3Schema": {"type": "object", "minimun": 1}},
                "additionalPrinterColumns": [{"name": "n", "type": "string", "JSONPath": ".x", "jsonPath": ".x"}]}
        });
        let paths: Vec<String> = crd_unknown_fields(&value)
            .into_iter()
            .map(|u| u.path)
            .collect();
        assert_eq!(
            paths,
            [
                "spec.additionalPrinterColumns[0].jsonPath",
                "spec.validation.openAPIV3Schema.minimun"
            ]
        );
        assert!(
            crd_unknown_fields(&json!({"apiVersion": "v1", "kind": "ConfigMap", "x": 1}))
                .is_empty()
        );
    }

    #[test]
    fn schemas_in_items_arrays_dependencies_and_not_are_typed() {
        let value = crd(json!({
            "type": "object",
            "items": [{"typo": 1}],
            "dependencies": {"a": ["b"], "c": {"typo": 1}},
            "not": {"typo": 1},
            "additionalProperties": false,
            "default": {"anything": 1},
            "enum": [{"anything": 1}],
        }));
        let paths: Vec<String> = crd_unknown_fields(&value)
            .into_iter()
            .map(|u| u.path)
            .collect();
        let at = "spec.versions[0].schema.openAPIV3Schema";
        assert_eq!(
            paths,
            [
                format!("{at}.dependencies.c.typo"),
                format!("{at}.items[0].typo"),
                format!("{at}.not.typo"),
            ]
        );
    }
}
