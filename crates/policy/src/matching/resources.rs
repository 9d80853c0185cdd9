//! A decoded `MatchResources` object and `Matcher.Matches` over it (AP
//! `pkg/admission/plugin/policy/matching/matching.go`), with the v1 API defaults
//! (`SetDefaults_MatchResources`, `SetDefaults_NamedRuleWithOperations`) or, for
//! reproducing upstream unit tests, without them.

use super::equivalence::Equivalents;
use super::{namespace, object, rules, Matched, Request};
use kadmit_match::matching::{expect_map, string_list};
use kadmit_match::selector::{LabelSelector, Selector};
use serde_json::Value;

/// `matchPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchPolicy {
    Exact,
    Equivalent,
}

/// A parsed `namespaceSelector`/`objectSelector`. Parse errors are kept, not raised:
/// `Matches` reports them only when everything else matched.
#[derive(Debug, Clone)]
pub(crate) enum SelectorState {
    Parsed(Selector),
    /// `LabelSelectorAsSelector(nil)` = `labels.Nothing()`: never matches, not empty.
    Nothing,
    Invalid(String),
}

/// The selector of `{}`.
pub(crate) fn empty_selector() -> Selector {
    LabelSelector::default()
        .to_selector()
        .expect("the empty selector parses")
}

/// One `NamedRuleWithOperations`.
#[derive(Debug, Clone, Default)]
pub struct NamedRule {
    pub operations: Vec<String>,
    pub api_groups: Vec<String>,
    pub api_versions: Vec<String>,
    pub resources: Vec<String>,
    /// `None` (undefaulted) behaves as `*`.
    pub scope: Option<String>,
    pub resource_names: Vec<String>,
}

/// A `MatchResources` object.
#[derive(Debug, Clone)]
pub struct MatchResources {
    pub(crate) namespace_selector: SelectorState,
    pub(crate) object_selector: SelectorState,
    pub resource_rules: Vec<NamedRule>,
    pub exclude_resource_rules: Vec<NamedRule>,
    pub match_policy: MatchPolicy,
}

impl MatchResources {
    /// Decodes with the v1 API defaults: `matchPolicy: Equivalent`, selectors `{}`, rule
    /// `scope: "*"` (what the apiserver stores, so what a running policy sees).
    pub fn from_value(value: &Value) -> Result<MatchResources, String> {
        decode(value, true)
    }

    /// Decodes as a Go struct built without defaulting, as upstream unit tests do
    /// (`matching_test.go`): an absent `matchPolicy` is Exact (`matchesResourceRules`
    /// treats nil as Exact) and an absent selector is `labels.Nothing()`.
    pub fn from_value_undefaulted(value: &Value) -> Result<MatchResources, String> {
        decode(value, false)
    }

    /// `Matcher.Matches`: selectors, then excludes, then rules; a remembered selector
    /// error surfaces only when the rules matched.
    pub fn matches(
        &self,
        request: &Request,
        equivalents: &dyn Equivalents,
    ) -> Result<Option<Matched>, String> {
        let namespace = namespace::matches(&self.namespace_selector, request);
        if namespace == Ok(false) {
            return Ok(None);
        }
        let object = object::matches(&self.object_selector, request);
        if object == Ok(false) {
            return Ok(None);
        }
        let policy = self.match_policy;
        if rules::matches_resource_rules(
            &self.exclude_resource_rules,
            policy,
            request,
            equivalents,
        )?
        .is_some()
        {
            return Ok(None);
        }
        let matched = if self.resource_rules.is_empty() {
            Some(Matched {
                resource: request.resource.clone(),
                kind: request.kind.clone(),
            })
        } else {
            rules::matches_resource_rules(&self.resource_rules, policy, request, equivalents)?
        };
        let Some(matched) = matched else {
            return Ok(None);
        };
        namespace?;
        object?;
        Ok(Some(matched))
    }
}

fn decode(value: &Value, defaulted: bool) -> Result<MatchResources, String> {
    let map = expect_map(value, "matchResources", "struct from:")?;
    let field = |name: &str| map.get(name).filter(|v| !v.is_null());
    let selector = |name: &str| -> Result<SelectorState, String> {
        Ok(match field(name) {
            None if defaulted => SelectorState::Parsed(empty_selector()),
            None => SelectorState::Nothing,
            Some(v) => match LabelSelector::from_value(v, name)?.to_selector() {
                Ok(selector) => SelectorState::Parsed(selector),
                // `apierrors.NewInternalError(err)`.
                Err(e) => SelectorState::Invalid(format!("Internal error occurred: {e}")),
            },
        })
    };
    let match_policy = match field("matchPolicy") {
        None if defaulted => MatchPolicy::Equivalent,
        None => MatchPolicy::Exact,
        Some(v) => match v.as_str() {
            Some("Equivalent") => MatchPolicy::Equivalent,
            Some("Exact") => MatchPolicy::Exact,
            _ => return Err(format!("matchResources.matchPolicy: unsupported value {v}")),
        },
    };
    Ok(MatchResources {
        namespace_selector: selector("namespaceSelector")?,
        object_selector: selector("objectSelector")?,
        resource_rules: decode_rules(field("resourceRules"), "resourceRules", defaulted)?,
        exclude_resource_rules: decode_rules(
            field("excludeResourceRules"),
            "excludeResourceRules",
            defaulted,
        )?,
        match_policy,
    })
}

fn decode_rules(
    value: Option<&Value>,
    path: &str,
    defaulted: bool,
) -> Result<Vec<NamedRule>, String> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = value else {
        return Err(format!("{path}: expected a list, got {value}"));
    };
    let mut rules = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("{path}[{i}]");
        let map = expect_map(item, &path, "struct from:")?;
        let list = |name: &str| string_list(map.get(name), &format!("{path}.{name}"));
        let scope = match map.get("scope").filter(|v| !v.is_null()) {
            Some(v) => Some(
                v.as_str()
                    .ok_or_else(|| format!("{path}.scope: expected a string, got {v}"))?
                    .to_owned(),
            ),
            None if defaulted => Some("*".to_owned()),
            None => None,
        };
        rules.push(NamedRule {
            operations: list("operations")?,
            api_groups: list("apiGroups")?,
            api_versions: list("apiVersions")?,
            resources: list("resources")?,
            scope,
            resource_names: list("resourceNames")?,
        });
    }
    Ok(rules)
}
