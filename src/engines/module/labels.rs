//! Label selectors in their string form, as `kubectl -l` and the list API take them
//! (apimachinery `labels.Parse`): `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`,
//! `a`, `!a`, joined by commas. A host call's `label_selector` is one.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<Requirement>);

impl LabelSelector {
    pub fn parse(text: &str) -> Result<LabelSelector, String> {
        let mut requirements = Vec::new();
        for term in split_terms(text)? {
            let term = term.trim();
            if term.is_empty() {
                continue;
            }
            requirements.push(requirement(term)?);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether `labels` (an object's `metadata.labels`) satisfy every requirement.
    pub fn matches(&self, labels: Option<&Value>) -> bool {
        let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, vs) => get(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|l| vs.iter().all(|v| v != l)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
        })
    }
}

/// Splits on the commas that are not inside a value set's parentheses.
fn split_terms(text: &str) -> Result<Vec<&str>, String> {
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("unbalanced ')' in {text:?}"))?
            }
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced '(' in {text:?}"));
    }
    terms.push(&text[start..]);
    Ok(terms)
}

fn requirement(term: &str) -> Result<Requirement, String> {
    if let Some(key) = term.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(key_of(key, term)?));
    }
    for (op, build) in [
        (
            "!=",
            Requirement::NotEquals as fn(String, String) -> Requirement,
        ),
        ("==", Requirement::Equals),
        ("=", Requirement::Equals),
    ] {
        if let Some((key, value)) = term.split_once(op) {
            return Ok(build(key_of(key, term)?, value.trim().to_owned()));
        }
    }
    if let Some(open) = term.find('(') {
        let head = term[..open].trim();
        let values = term[open + 1..]
            .strip_suffix(')')
            .ok_or_else(|| format!("invalid selector term {term:?}: expected ')' at the end"))?;
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_owned()).collect();
        let (key, set) = head
            .rsplit_once(char::is_whitespace)
            .ok_or_else(|| format!("invalid selector term {term:?}"))?;
        let key = key_of(key, term)?;
        return match set {
            "in" => Ok(Requirement::In(key, values)),
            "notin" => Ok(Requirement::NotIn(key, values)),
            other => Err(format!(
                "invalid selector term {term:?}: unknown operator {other:?} (in, notin)"
            )),
        };
    }
    Ok(Requirement::Exists(key_of(term, term)?))
}

fn key_of(key: &str, term: &str) -> Result<String, String> {
    let key = key.trim();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Err(format!(
            "invalid selector term {term:?}: a label key is expected"
        ));
    }
    Ok(key.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn matches(selector: &str, labels: Value) -> bool {
        LabelSelector::parse(selector)
            .unwrap()
            .matches(Some(&labels))
    }

    #[test]
    fn every_operator_of_the_string_form() {
        let labels = json!({"app": "web", "tier": "front"});
        assert!(matches("", labels.clone()));
        assert!(matches("app=web", labels.clone()));
        assert!(matches("app==web,tier", labels.clone()));
        assert!(!matches("app!=web", labels.clone()));
        assert!(matches("tier in (front, back)", labels.clone()));
        assert!(!matches("tier notin (front)", labels.clone()));
        assert!(matches("!owner", labels.clone()));
        assert!(!matches("owner", labels));
        assert!(LabelSelector::parse("a in (x").is_err());
        assert!(LabelSelector::parse("a within (x)").is_err());
    }
}
