//! The structured-merge-diff type of a schema node, as kube-openapi's `schemaconv`
//! converts an OpenAPI schema for the apiserver's type converter:
//! - `object` is a map: its properties are fields, `additionalProperties` (or, without
//!   it, `x-kubernetes-preserve-unknown-fields` in effect or no properties at all) gives
//!   the type of other keys; `x-kubernetes-map-type: atomic` makes it atomic;
//! - `array` is a list: `x-kubernetes-list-type` `map` (keyed) and `set` are associative,
//!   anything else (no list type included) is atomic;
//! - `integer`/`number` numeric, `boolean`, `string` (formats other than `byte` are
//!   untyped scalars, as are the hard-coded Quantity and int-or-string);
//! - no `type` (int-or-string, preserve-unknown-fields nodes, Quantity's `oneOf`) accepts
//!   any scalar, list or map.
//!
//! Where upstream uses its two built-in types (`__untyped_deduced_` for unknown fields,
//! `__untyped_atomic_` for lists without items), so does [`Type`].

use crate::schema::{AdditionalProperties, Properties, Schema};

/// Where a value sits in the schema.
#[derive(Debug, Clone, Copy)]
pub enum Type<'s> {
    /// A schema node; the flag is `x-kubernetes-preserve-unknown-fields` inherited from
    /// an ancestor (upstream's converter carries it down to descendants).
    Node(&'s Schema, bool),
    /// A resource's root schema: as a node, and `apiVersion`, `kind` and `metadata` are
    /// declared even when the schema does not say so (a CRD's published schema adds
    /// them).
    Resource(&'s Schema),
    /// Any scalar; maps granular with deduced values; lists atomic.
    Deduced,
    /// Any scalar; maps and lists atomic.
    UntypedAtomic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Numeric,
    String,
    Boolean,
    /// Any scalar.
    Untyped,
}

#[derive(Debug, Clone, Copy)]
pub struct List<'s> {
    /// Associative lists (`map`, `set`) merge item by item; others are replaced whole.
    pub associative: bool,
    /// `x-kubernetes-list-map-keys` of a `map` list (empty for a `set`).
    pub keys: &'s [String],
    pub item: Type<'s>,
}

#[derive(Debug, Clone, Copy)]
pub struct Map<'s> {
    fields: Option<&'s Properties>,
    preserve: bool,
    /// `x-kubernetes-embedded-resource`: `apiVersion`, `kind` and `metadata` are allowed
    /// even when not declared (the published schema declares them).
    embedded: bool,
    /// The type of keys no field names; `None`: such keys are not declared.
    element: Option<Type<'s>>,
    pub atomic: bool,
}

/// What a type accepts: one or more of scalar, list and map.
#[derive(Debug, Clone, Copy)]
pub struct Atom<'s> {
    pub scalar: Option<Scalar>,
    pub list: Option<List<'s>>,
    pub map: Option<Map<'s>>,
}

const NO_KEYS: &[String] = &[];

impl<'s> Map<'s> {
    /// The type of `key`: a declared field, or the element type; `None` when undeclared.
    pub fn field(&self, key: &str) -> Option<Type<'s>> {
        if let Some(s) = self.fields.and_then(|f| f.get(key)) {
            return Some(Type::Node(s, self.preserve));
        }
        if self.embedded && matches!(key, "apiVersion" | "kind" | "metadata") {
            return Some(Type::Deduced);
        }
        self.element
    }

    /// Whether `key` is a declared field (the atomic check descends only into those).
    pub fn declares(&self, key: &str) -> bool {
        self.fields.is_some_and(|f| f.contains(key))
    }
}

impl<'s> Type<'s> {
    pub fn atom(self) -> Atom<'s> {
        let untyped = |map_atomic: bool, element: Type<'s>| Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(List {
                associative: false,
                keys: NO_KEYS,
                item: Type::UntypedAtomic,
            }),
            map: Some(Map {
                fields: None,
                preserve: false,
                embedded: false,
                element: Some(element),
                atomic: map_atomic,
            }),
        };
        match self {
            Type::Deduced => untyped(false, Type::Deduced),
            Type::UntypedAtomic => untyped(true, Type::UntypedAtomic),
            Type::Node(s, inherited) => node_atom(s, inherited || s.preserve_unknown_fields),
            Type::Resource(s) => {
                let mut atom = node_atom(s, s.preserve_unknown_fields);
                if let Some(map) = atom.map.as_mut() {
                    map.embedded = true;
                }
                atom
            }
        }
    }

    /// The atom narrowed to what `value` is, when the type accepts that (upstream
    /// `deduceAtom`); otherwise the whole atom, which then reports the mismatch.
    pub fn deduce(self, value: &serde_json::Value) -> Atom<'s> {
        use serde_json::Value::*;
        let atom = self.atom();
        let none = Atom {
            scalar: None,
            list: None,
            map: None,
        };
        match value {
            Bool(_) | Number(_) | String(_) if atom.scalar.is_some() => Atom {
                scalar: atom.scalar,
                ..none
            },
            Array(_) if atom.list.is_some() => Atom {
                list: atom.list,
                ..none
            },
            Object(_) if atom.map.is_some() => Atom {
                map: atom.map,
                ..none
            },
            _ => atom,
        }
    }
}

fn node_atom(s: &Schema, preserve: bool) -> Atom<'_> {
    let none = Atom {
        scalar: None,
        list: None,
        map: None,
    };
    let scalar = |k| Atom {
        scalar: Some(k),
        ..none
    };
    match s.type_.as_deref() {
        Some("object") => Atom {
            map: Some(map(s, preserve)),
            ..none
        },
        Some("array") => Atom {
            list: Some(list(s, preserve)),
            ..none
        },
        Some("integer" | "number") => scalar(Scalar::Numeric),
        Some("boolean") => scalar(Scalar::Boolean),
        Some("string") => match s.format.as_deref() {
            None | Some("" | "byte") if !s.int_or_string => scalar(Scalar::String),
            _ => scalar(Scalar::Untyped),
        },
        None => Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(list(s, preserve)),
            map: Some(map(s, preserve)),
        },
        Some(_) => scalar(Scalar::Untyped),
    }
}

fn map(s: &Schema, preserve: bool) -> Map<'_> {
    let element = match &s.additional_properties {
        Some(AdditionalProperties::Schema(ap)) => Some(Type::Node(ap, preserve)),
        Some(AdditionalProperties::Allowed(true)) => Some(Type::Deduced),
        Some(AdditionalProperties::Allowed(false)) => None,
        None if preserve || s.properties.is_empty() => Some(Type::Deduced),
        None => None,
    };
    Map {
        fields: Some(&s.properties),
        preserve,
        embedded: s.embedded_resource,
        element,
        atomic: s.map_type.as_deref() == Some("atomic"),
    }
}

fn list(s: &Schema, preserve: bool) -> List<'_> {
    let (associative, keys) = match s.list_type.as_deref() {
        Some("map") => (true, s.list_map_keys.as_slice()),
        Some("set") => (true, NO_KEYS),
        _ => (false, NO_KEYS),
    };
    List {
        associative,
        keys,
        item: match &s.items {
            Some(items) => Type::Node(items, preserve),
            None => Type::UntypedAtomic,
        },
    }
}
