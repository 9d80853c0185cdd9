//! What Go type a schema node stands for, as far as `encoding/json` (the
//! `sigs.k8s.io/json` copy the API server decodes with) can tell: which JSON values it
//! takes, which fields it has, and the name `reflect.Type.String()` gives it in
//! `cannot unmarshal ... of type <T>`.
//!
//! Known difference: named Go types the OpenAPI documents do not name are printed as
//! their underlying type (`string` for `v1.Protocol`, `map[string]resource.Quantity` for
//! `v1.ResourceList`).

use super::catalog::Catalog;
use super::node::Node;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// The definitions with their own `UnmarshalJSON`.
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const TIME: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
const MICRO_TIME: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
/// Raw JSON holders: any value decodes (RawExtension, FieldsV1 and Patch keep the
/// bytes; the apiextensions wrappers decode non-strictly, see `typed.rs` for CRDs).
const RAW: [&str; 7] = [
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
];

/// `time.RFC3339` and `metav1.RFC3339Micro`.
pub const RFC3339: &str = "2006-01-02T15:04:05Z07:00";
pub const RFC3339_MICRO: &str = "2006-01-02T15:04:05.000000Z07:00";

#[derive(Clone, Copy)]
pub enum Shape {
    /// `interface{}` or raw JSON: anything goes, nothing inside is checked.
    Any,
    Struct {
        /// `reflect.Type.Name()`: `DeploymentSpec`.
        name: &'static str,
        /// The definition, for `reflect.Type.String()` (`v1.DeploymentSpec`), which only
        /// an error message needs.
        definition: Option<&'static str>,
        fields: Option<&'static Map<String, Value>>,
    },
    Map(Node),
    Slice(Node),
    /// `[]byte`: a base64 string.
    Bytes,
    String,
    Bool,
    /// Signed integers of this many bits (`int` is 64 on the server).
    Int(&'static str, u32),
    Float,
    Quantity,
    IntOrString,
    /// `metav1.Time`/`MicroTime`: a string in this layout.
    Time(&'static str, &'static str),
}

/// A node's shape, keyed by where its catalog and its keywords live: the catalogs and
/// their schemas are never freed, so an address names one node of one version for the
/// whole process.
type ShapeKey = (usize, usize, usize, usize);

thread_local! {
    /// Every node a thread has decoded into, with its shape. A shape takes a dozen keyword
    /// lookups to work out (SipHash over the schema's maps), and the same few hundred
    /// nodes are met in every object of a kind; the table holds at most one entry per
    /// schema node of the embedded versions.
    static SHAPES: RefCell<HashMap<ShapeKey, Shape, foldhash::fast::FixedState>> =
        const { RefCell::new(HashMap::with_hasher(foldhash::fast::FixedState::with_seed(0))) };
}

impl Shape {
    /// [`Shape::of`], worked out once per node and thread.
    pub fn cached(catalog: &Catalog, node: Node) -> Shape {
        let key = (
            catalog as *const Catalog as usize,
            node.site_address(),
            node.target_address(),
            node.definition.map_or(0, |name| name.as_ptr() as usize),
        );
        if let Some(shape) = SHAPES.with(|shapes| shapes.borrow().get(&key).copied()) {
            return shape;
        }
        let shape = Shape::of(catalog, node);
        SHAPES.with(|shapes| shapes.borrow_mut().insert(key, shape));
        shape
    }

    pub fn of(catalog: &Catalog, node: Node) -> Shape {
        match node.definition {
            Some(QUANTITY) => return Shape::Quantity,
            Some(INT_OR_STRING) => return Shape::IntOrString,
            Some(TIME) => return Shape::Time("v1.Time", RFC3339),
            Some(MICRO_TIME) => return Shape::Time("v1.MicroTime", RFC3339_MICRO),
            Some(name) if RAW.contains(&name) => return Shape::Any,
            _ => {}
        }
        let properties = node.properties();
        if node.flag("x-kubernetes-preserve-unknown-fields") && properties.is_none() {
            return Shape::Any;
        }
        match node.type_() {
            Some("object") => match (properties, node.additional(catalog)) {
                (None, Some(values)) => Shape::Map(values),
                (None, None) if node.get("additionalProperties").is_some() => Shape::Any,
                _ => Shape::Struct {
                    name: go_name(node.definition),
                    definition: node.definition,
                    fields: properties,
                },
            },
            Some("array") => match node.items(catalog) {
                Some(items) => Shape::Slice(items),
                None => Shape::Any,
            },
            Some("string") if is_bytes(node) => Shape::Bytes,
            Some("string") => Shape::String,
            Some("boolean") => Shape::Bool,
            Some("integer") => match node.text("format") {
                Some("int32") => Shape::Int("int32", 32),
                Some("int64") => Shape::Int("int64", 64),
                _ => Shape::Int("int", 64),
            },
            Some("number") => Shape::Float,
            _ => Shape::Any,
        }
    }

    /// `reflect.Type.String()` of the Go type.
    pub fn go_type(&self, catalog: &Catalog) -> String {
        match self {
            Shape::Any => "interface {}".into(),
            Shape::Struct { definition, .. } => go_string(*definition),
            Shape::Map(values) => format!(
                "map[string]{}",
                Shape::of(catalog, *values).go_type(catalog)
            ),
            Shape::Slice(items) => format!("[]{}", Shape::of(catalog, *items).go_type(catalog)),
            Shape::Bytes => "[]uint8".into(),
            Shape::String => "string".into(),
            Shape::Bool => "bool".into(),
            Shape::Int(name, _) => (*name).into(),
            Shape::Float => "float64".into(),
            Shape::Quantity => "resource.Quantity".into(),
            Shape::IntOrString => "intstr.IntOrString".into(),
            Shape::Time(name, _) => (*name).into(),
        }
    }
}

/// `format: byte`, or the generator's AllowEmptyByteFormat rewrite of it
/// (`allOf: [{anyOf: [{format: byte}, {maxLength: 0}]}]`).
fn is_bytes(node: Node) -> bool {
    node.text("format") == Some("byte")
        || node
            .get("allOf")
            .and_then(|a| a.pointer("/0/anyOf/0/format"))
            .and_then(Value::as_str)
            == Some("byte")
}

/// `DeploymentSpec` from `io.k8s.api.apps.v1.DeploymentSpec` (`reflect.Type.Name()`).
fn go_name(definition: Option<&'static str>) -> &'static str {
    definition.map_or("", |definition| {
        definition.rsplit('.').next().unwrap_or(definition)
    })
}

/// `v1.DeploymentSpec` from `io.k8s.api.apps.v1.DeploymentSpec` (`reflect.Type.String()`):
/// the Go package's name is the definition's next-to-last part.
fn go_string(definition: Option<&'static str>) -> String {
    let Some(definition) = definition else {
        return "struct {}".into();
    };
    let mut parts = definition.rsplit('.');
    let name = parts.next().unwrap_or(definition);
    match parts.next() {
        Some(package) => format!("{package}.{name}"),
        None => name.into(),
    }
}
