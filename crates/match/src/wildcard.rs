//! `pkg/wildcard`: the one-`*`-at-either-end globs of `namespaces`, `excludedNamespaces`
//! and `name`. There are no globs in the middle; the CRD pattern is not enforced.

/// `Wildcard.Matches`: `*x*` contains, `*x` suffix, `x*` prefix, anything else exact.
pub fn matches(pattern: &str, candidate: &str) -> bool {
    match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
        (Some(rest), Some(_)) => candidate.contains(rest.strip_suffix('*').unwrap_or(rest)),
        (Some(suffix), None) => candidate.ends_with(suffix),
        (None, Some(prefix)) => candidate.starts_with(prefix),
        (None, None) => pattern == candidate,
    }
}

/// `Wildcard.MatchesGenerateName`: only `x*` and `*x*` can match a `generateName`, which
/// is a prefix of the eventual name.
pub fn matches_generate_name(pattern: &str, generate_name: &str) -> bool {
    match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
        (Some(rest), Some(_)) => generate_name.contains(rest.strip_suffix('*').unwrap_or(rest)),
        (None, Some(prefix)) => generate_name.starts_with(prefix),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_star_matches_everything_including_empty() {
        assert!(matches("*", ""));
        assert!(matches("*", "anything"));
        assert!(matches_generate_name("*", ""));
    }

    #[test]
    fn an_empty_pattern_matches_only_the_empty_string() {
        assert!(matches("", ""));
        assert!(!matches("", "x"));
        assert!(!matches_generate_name("", ""));
    }

    #[test]
    fn a_star_in_the_middle_is_literal() {
        assert!(matches("a*b", "a*b"));
        assert!(!matches("a*b", "axb"));
    }
}
