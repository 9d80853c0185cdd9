//! Path tests (`parameters.pathTests`, `pkg/mutation/path/tester/tester.go`): conditions on
//! whether the object already has a prefix of the location.

use super::{parse, Path};
use kadmit_go::strconv::quote;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    MustExist,
    MustNotExist,
    /// Any other string: upstream does not validate conditions outside the CRD schema.
    Unknown(String),
}

impl Condition {
    pub fn from_name(name: &str) -> Condition {
        match name {
            "MustExist" => Condition::MustExist,
            "MustNotExist" => Condition::MustNotExist,
            other => Condition::Unknown(other.to_owned()),
        }
    }

    fn name(&self) -> &str {
        match self {
            Condition::MustExist => "MustExist",
            Condition::MustNotExist => "MustNotExist",
            Condition::Unknown(name) => name,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTest {
    pub sub_path: Path,
    pub condition: Condition,
}

/// The conditions by depth, the index of the node a sub path ends on. An empty sub path has
/// no depth (upstream's -1): it takes part in the conflict checks but never applies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tester {
    by_depth: BTreeMap<Option<usize>, Condition>,
}

fn depth_of(path: &Path) -> Option<usize> {
    path.nodes.len().checked_sub(1)
}

fn conflict(detail: String) -> String {
    format!("conflicting path test conditions: {detail}")
}

impl Tester {
    /// `parameters.pathTests` as given in a mutator spec (absent or null means no tests);
    /// `kind` and `name` name the mutator in errors.
    pub fn from_spec(
        location: &Path,
        path_tests: Option<&Value>,
        kind: &str,
        name: &str,
    ) -> Result<Tester, String> {
        let entries = match path_tests {
            None | Some(Value::Null) => return Ok(Tester::none()),
            Some(Value::Array(entries)) => entries,
            Some(other) => {
                return Err(format!(
                    "pathTests for {kind} {name} must be a list, got: {other}"
                ))
            }
        };
        let mut tests = Vec::with_capacity(entries.len());
        for entry in entries {
            if !entry.is_object() {
                return Err(format!(
                    "pathTests entries for {kind} {name} must be objects, got: {entry}"
                ));
            }
            let field = |key: &str| -> Result<&str, String> {
                match entry.get(key) {
                    None | Some(Value::Null) => Ok(""),
                    Some(Value::String(s)) => Ok(s),
                    Some(other) => Err(format!(
                        "pathTests.{key} for {kind} {name} must be a string, got: {other}"
                    )),
                }
            };
            let sub_path = field("subPath")?;
            let parsed = parse(sub_path).map_err(|err| {
                format!("problem parsing sub path `{sub_path}` for {kind} {name}: {err}")
            })?;
            tests.push(PathTest {
                sub_path: parsed,
                condition: Condition::from_name(field("condition")?),
            });
        }
        Tester::new(location, tests)
    }

    /// Checks that every sub path is a prefix of `location` and that the conditions agree.
    pub fn new(location: &Path, tests: Vec<PathTest>) -> Result<Tester, String> {
        let mut by_depth: BTreeMap<Option<usize>, Condition> = BTreeMap::new();
        let mut first_must_not_exist: Option<usize> = None;
        // Upstream starts this at 0, so a MustExist listed first never counts.
        let mut last_must_exist = 0;
        for (i, test) in tests.iter().enumerate() {
            if !location.nodes.starts_with(&test.sub_path.nodes) {
                return Err(format!(
                    "all subpaths must be a prefix of the `location` value of the mutation: subpath {} is not a prefix of location {}",
                    quote(&test.sub_path.to_string(), false),
                    quote(&location.to_string(), false)
                ));
            }
            let depth = depth_of(&test.sub_path);
            if let Some(earlier) = by_depth.get(&depth) {
                if *earlier != test.condition {
                    return Err(conflict(format!(
                        "subpath {} is both {} and {}",
                        quote(&test.sub_path.to_string(), false),
                        earlier.name(),
                        test.condition.name()
                    )));
                }
            }
            by_depth.insert(depth, test.condition.clone());
            match test.condition {
                Condition::MustExist => last_must_exist = i,
                Condition::MustNotExist => {
                    first_must_not_exist.get_or_insert(i);
                }
                Condition::Unknown(_) => {}
            }
        }
        // Upstream compares positions in the list, not depths (see the reference, §2).
        if let Some(first) = first_must_not_exist {
            if last_must_exist > first {
                return Err(conflict(format!(
                    "parent path {} MustNotExist but child path {} MustExist",
                    quote(&tests[first].sub_path.to_string(), false),
                    quote(&tests[last_must_exist].sub_path.to_string(), false)
                )));
            }
        }
        Ok(Tester { by_depth })
    }

    /// No tests: everything is okay.
    pub fn none() -> Tester {
        Tester::default()
    }

    /// A single MustNotExist test at `depth` (AssignMetadata's implicit test on its key).
    pub fn must_not_exist_at(depth: usize) -> Tester {
        Tester {
            by_depth: BTreeMap::from([(Some(depth), Condition::MustNotExist)]),
        }
    }

    fn at(&self, depth: usize) -> Option<&Condition> {
        self.by_depth.get(&Some(depth))
    }

    /// May the walk continue when the node at `depth` (an index into the location's nodes,
    /// list nodes included) is present?
    pub fn exists_okay(&self, depth: usize) -> bool {
        matches!(self.at(depth), None | Some(Condition::MustExist))
    }

    /// May the walk continue (creating it) when the node at `depth` is missing?
    pub fn missing_okay(&self, depth: usize) -> bool {
        matches!(self.at(depth), None | Some(Condition::MustNotExist))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tester(location: &str, tests: Value) -> Result<Tester, String> {
        Tester::from_spec(&parse(location).unwrap(), Some(&tests), "Assign", "m")
    }

    #[test]
    fn depth_counts_list_nodes() {
        let t = tester(
            "spec.containers[name: a].image",
            json!([
                {"subPath": "spec.containers[name: a]", "condition": "MustExist"},
                {"subPath": "spec.containers[name: a].image", "condition": "MustNotExist"},
            ]),
        )
        .unwrap();
        assert!(t.exists_okay(2) && !t.missing_okay(2));
        assert!(!t.exists_okay(3) && t.missing_okay(3));
        assert!(t.exists_okay(1) && t.missing_okay(1));
    }

    #[test]
    fn an_unknown_condition_allows_neither() {
        let t = tester("a.b", json!([{"subPath": "a", "condition": "Sometimes"}])).unwrap();
        assert!(!t.exists_okay(0) && !t.missing_okay(0));
        assert!(t.exists_okay(1) && t.missing_okay(1));
    }

    #[test]
    fn an_empty_sub_path_never_applies() {
        let t = tester("a", json!([{"subPath": "", "condition": "MustNotExist"}])).unwrap();
        assert!(t.exists_okay(0) && t.missing_okay(0));
        let both = json!([
            {"subPath": "", "condition": "MustExist"},
            {"condition": "MustNotExist"},
        ]);
        assert!(tester("a", both)
            .unwrap_err()
            .starts_with("conflicting path test conditions"));
    }

    #[test]
    fn absent_and_null_mean_no_tests() {
        let location = parse("a.b").unwrap();
        assert_eq!(
            Tester::from_spec(&location, None, "Assign", "m"),
            Ok(Tester::none())
        );
        assert_eq!(
            Tester::from_spec(&location, Some(&Value::Null), "Assign", "m"),
            Ok(Tester::none())
        );
    }

    #[test]
    fn sub_path_parse_errors_name_the_mutator() {
        let err = tester("a.b", json!([{"subPath": "a.", "condition": "MustExist"}])).unwrap_err();
        assert_eq!(
            err,
            "problem parsing sub path `a.` for Assign m: trailing separators are forbidden"
        );
    }

    #[test]
    fn malformed_specs_are_errors() {
        assert!(tester("a", json!({"subPath": "a"})).is_err());
        assert!(tester("a", json!(["a"])).is_err());
        assert!(tester("a", json!([{"subPath": 1}])).is_err());
    }

    #[test]
    fn implicit_must_not_exist() {
        let t = Tester::must_not_exist_at(2);
        assert!(!t.exists_okay(2) && t.missing_okay(2));
        assert!(t.exists_okay(1) && t.missing_okay(1));
    }
}
