//! A schema node converted once the way apiextensions hands it to kube-openapi
//! (reference §6.1): int-or-string becomes the type list `integer,string`, unsupported
//! formats are stripped, patterns are compiled.

use super::pattern::Pattern;
use crate::formats::Format;
use crate::schema::{AdditionalProperties, Schema};
use serde_json::Value;
use std::collections::HashSet;

/// JSON type names as bits.
pub(super) const OBJECT: u8 = 1;
pub(super) const ARRAY: u8 = 2;
pub(super) const STRING: u8 = 4;
pub(super) const INTEGER: u8 = 8;
pub(super) const NUMBER: u8 = 16;
pub(super) const BOOLEAN: u8 = 32;
pub(super) const NULL: u8 = 64;

pub(super) struct Node {
    /// The declared type names joined with `,`, as messages print them; empty without
    /// a type.
    pub type_text: Box<str>,
    /// The declared types as bits (an unknown name has no bit and accepts nothing).
    pub types: u8,
    pub nullable: bool,
    /// A supported format: as written (messages print it so) and what it checks.
    pub format: Option<(Box<str>, Format)>,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: Option<Pattern>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub multiple_of: Option<f64>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub enum_: Vec<Value>,
    pub properties: Vec<(String, Node)>,
    /// The property names, so that `declares` is not a scan per field.
    declared: HashSet<String>,
    pub additional: Additional,
    pub items: Option<Box<Node>>,
    pub all_of: Vec<Node>,
    pub any_of: Vec<Node>,
    pub one_of: Vec<Node>,
    pub not: Option<Box<Node>>,
}

pub(super) enum Additional {
    /// Absent or `true`.
    Allowed,
    Forbidden,
    Schema(Box<Node>),
}

impl Node {
    pub fn new(s: &Schema) -> Node {
        let type_names: Vec<&str> = if s.int_or_string {
            vec!["integer", "string"]
        } else {
            s.type_
                .as_deref()
                .filter(|t| !t.is_empty())
                .into_iter()
                .collect()
        };
        let types = type_names
            .iter()
            .fold(0, |bits, name| bits | type_bit(name));
        let format = s
            .format
            .as_deref()
            .and_then(|name| Format::supported(name).map(|f| (Box::from(name), f)));
        let additional = match &s.additional_properties {
            Some(AdditionalProperties::Allowed(false)) => Additional::Forbidden,
            Some(AdditionalProperties::Schema(a)) => Additional::Schema(Box::new(Node::new(a))),
            _ => Additional::Allowed,
        };
        Node {
            type_text: type_names.join(",").into(),
            types,
            nullable: s.nullable,
            format,
            max_length: s.max_length,
            min_length: s.min_length,
            pattern: s
                .pattern
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(Pattern::new),
            maximum: s.maximum,
            exclusive_maximum: s.exclusive_maximum,
            minimum: s.minimum,
            exclusive_minimum: s.exclusive_minimum,
            multiple_of: s.multiple_of,
            max_items: s.max_items,
            min_items: s.min_items,
            unique_items: s.unique_items,
            max_properties: s.max_properties,
            min_properties: s.min_properties,
            required: s.required.clone(),
            enum_: s.enum_.clone().unwrap_or_default(),
            properties: s
                .properties
                .iter()
                .map(|(name, p)| (name.clone(), Node::new(p)))
                .collect(),
            declared: s.properties.iter().map(|(name, _)| name.clone()).collect(),
            additional,
            items: s.items.as_deref().map(|i| Box::new(Node::new(i))),
            all_of: s.all_of.iter().map(Node::new).collect(),
            any_of: s.any_of.iter().map(Node::new).collect(),
            one_of: s.one_of.iter().map(Node::new).collect(),
            not: s.not.as_deref().map(|n| Box::new(Node::new(n))),
        }
    }

    pub fn has_type(&self) -> bool {
        !self.type_text.is_empty()
    }

    pub fn accepts(&self, bit: u8) -> bool {
        self.types & bit != 0
    }

    pub fn declares(&self, name: &str) -> bool {
        self.declared.contains(name)
    }
}

fn type_bit(name: &str) -> u8 {
    match name {
        "object" => OBJECT,
        "array" => ARRAY,
        "string" => STRING,
        "integer" => INTEGER,
        "number" => NUMBER,
        "boolean" => BOOLEAN,
        "null" => NULL,
        _ => 0,
    }
}
