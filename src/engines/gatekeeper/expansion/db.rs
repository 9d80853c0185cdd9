//! The template database (`pkg/expansion/db.go`): templates by name, and a graph with an
//! edge A→B whenever A generates a GVK that B applies to. A template in a cycle (a
//! strongly connected component of more than one template) is kept but disabled.

use super::template::Template;
use crate::engines::gatekeeper::Gvk;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Debug, Default)]
pub struct Templates {
    /// Each template with whether it is disabled by a cycle.
    store: BTreeMap<String, (Template, bool)>,
    /// Template names by the GVKs their `applyTo` covers.
    matchers: HashMap<Gvk, BTreeSet<String>>,
    /// Template names by the GVK they generate.
    generators: HashMap<Gvk, BTreeSet<String>>,
    /// Successors of each template in the graph.
    edges: BTreeMap<String, BTreeSet<String>>,
    /// Resultants expanded with these templates so far (the run-wide limit's count).
    resultants: AtomicUsize,
}

impl Templates {
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates and adds `template`, replacing one of the same name. A template that closes
    /// a cycle is still added, but it and every template on the cycle are disabled, and the
    /// upsert fails with `template forms expansion cycle`.
    pub fn upsert(&mut self, template: Template) -> Result<(), String> {
        template.validate()?;
        let old = self.store.get(&template.name).cloned();
        if let Some((old, _)) = &old {
            self.remove_entry(old);
        }
        let cycle = self
            .add_entry(template)
            .map_err(|e| format!("adding template to db: {e}"))?;
        if cycle || old.is_some_and(|(_, disabled)| disabled) {
            self.update_cycles();
        }
        if cycle {
            return Err("template forms expansion cycle".into());
        }
        Ok(())
    }

    /// The enabled templates that apply to `gvk`, by name.
    pub fn for_gvk(&self, gvk: &Gvk) -> Vec<&Template> {
        self.matchers
            .get(gvk)
            .into_iter()
            .flatten()
            .filter_map(|name| match &self.store[name] {
                (template, false) => Some(template),
                (_, true) => None,
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// How many resultants `expand` returned with these templates so far.
    pub fn resultants_so_far(&self) -> usize {
        self.resultants.load(Ordering::Relaxed)
    }

    pub(super) fn count_resultants(&self, n: usize) {
        self.resultants.fetch_add(n, Ordering::Relaxed);
    }

    /// The names of the templates disabled by a cycle.
    pub fn disabled(&self) -> Vec<&str> {
        self.store
            .iter()
            .filter(|(_, (_, disabled))| *disabled)
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// Adds the template and its edges; `true` when an edge closes a cycle. Like Gatekeeper's
    /// graph, an edge that is already there (an `applyTo` naming a GVK twice) is an error.
    fn add_entry(&mut self, template: Template) -> Result<bool, String> {
        let name = template.name.clone();
        index(&mut self.generators, template.generated.clone(), &name);
        for gvk in template.apply_to_gvks() {
            index(&mut self.matchers, gvk, &name);
        }
        let edges = self.edges_of(&template);
        self.store.insert(name.clone(), (template, false));
        let mut cycle = false;
        for (from, to) in edges {
            cycle |= from == to || self.reaches(&to, &from);
            if !self.edges.entry(from).or_default().insert(to) {
                return Err(format!(
                    "adding edge for template {name}: edge already exists"
                ));
            }
        }
        Ok(cycle)
    }

    fn remove_entry(&mut self, template: &Template) {
        let name = &template.name;
        self.store.remove(name);
        unindex(&mut self.generators, &template.generated, name);
        for gvk in template.apply_to_gvks() {
            unindex(&mut self.matchers, &gvk, name);
        }
        self.edges.remove(name);
        for successors in self.edges.values_mut() {
            successors.remove(name);
        }
    }

    /// Outbound edges to the templates that apply to what `template` generates, then
    /// inbound edges from the generators of each GVK it applies to.
    fn edges_of(&self, template: &Template) -> Vec<(String, String)> {
        let name = &template.name;
        let outbound = self
            .matchers
            .get(&template.generated)
            .into_iter()
            .flatten()
            .map(|to| (name.clone(), to.clone()));
        let inbound = template.apply_to_gvks().flat_map(|gvk| {
            self.generators
                .get(&gvk)
                .into_iter()
                .flatten()
                .map(|from| (from.clone(), name.clone()))
                .collect::<Vec<_>>()
        });
        outbound.chain(inbound).collect()
    }

    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(at) = stack.pop() {
            if at == to {
                return true;
            }
            if seen.insert(at) {
                stack.extend(self.edges.get(at).into_iter().flatten().map(String::as_str));
            }
        }
        false
    }

    /// Recomputes which templates are disabled: the members of every cycle.
    fn update_cycles(&mut self) {
        let cyclic: BTreeSet<String> = self
            .strongly_connected_components()
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .flatten()
            .collect();
        for (name, (_, disabled)) in self.store.iter_mut() {
            *disabled = cyclic.contains(name);
        }
    }

    /// Tarjan's algorithm over the stored templates.
    fn strongly_connected_components(&self) -> Vec<Vec<String>> {
        let mut tarjan = Tarjan {
            edges: &self.edges,
            index: HashMap::new(),
            low: HashMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            components: Vec::new(),
        };
        for name in self.store.keys() {
            if !tarjan.index.contains_key(name.as_str()) {
                tarjan.visit(name);
            }
        }
        tarjan.components
    }
}

fn index(map: &mut HashMap<Gvk, BTreeSet<String>>, gvk: Gvk, name: &str) {
    map.entry(gvk).or_default().insert(name.to_owned());
}

fn unindex(map: &mut HashMap<Gvk, BTreeSet<String>>, gvk: &Gvk, name: &str) {
    if let Some(names) = map.get_mut(gvk) {
        names.remove(name);
        if names.is_empty() {
            map.remove(gvk);
        }
    }
}

struct Tarjan<'a> {
    edges: &'a BTreeMap<String, BTreeSet<String>>,
    index: HashMap<&'a str, usize>,
    low: HashMap<&'a str, usize>,
    stack: Vec<&'a str>,
    on_stack: BTreeSet<&'a str>,
    components: Vec<Vec<String>>,
}

impl<'a> Tarjan<'a> {
    fn visit(&mut self, node: &'a str) {
        let order = self.index.len();
        self.index.insert(node, order);
        self.low.insert(node, order);
        self.stack.push(node);
        self.on_stack.insert(node);
        for next in self.edges.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !self.index.contains_key(next) {
                self.visit(next);
                let low = self.low[node].min(self.low[next]);
                self.low.insert(node, low);
            } else if self.on_stack.contains(next) {
                let low = self.low[node].min(self.index[next]);
                self.low.insert(node, low);
            }
        }
        if self.low[node] == self.index[node] {
            let mut component = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack.remove(member);
                component.push(member.to_owned());
                if member == node {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::gatekeeper::expansion::template::GvkSet;

    fn gvk(kind: &str) -> Gvk {
        Gvk {
            group: "g".into(),
            version: "v1".into(),
            kind: kind.into(),
        }
    }

    fn template(name: &str, from: &[&str], to: &str) -> Template {
        Template {
            name: name.into(),
            apply_to: vec![GvkSet {
                groups: vec!["g".into()],
                versions: vec!["v1".into()],
                kinds: from.iter().map(|k| k.to_string()).collect(),
            }],
            template_source: "spec".into(),
            generated: gvk(to),
            ..Template::default()
        }
    }

    fn names(db: &Templates, kind: &str) -> Vec<String> {
        db.for_gvk(&gvk(kind))
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    #[test]
    fn a_three_template_cycle_disables_all_three_until_it_is_broken() {
        let mut db = Templates::new();
        db.upsert(template("a", &["A"], "B")).unwrap();
        db.upsert(template("b", &["B"], "C")).unwrap();
        db.upsert(template("x", &["A"], "X")).unwrap();
        assert_eq!(
            db.upsert(template("c", &["C"], "A")),
            Err("template forms expansion cycle".into())
        );
        assert_eq!(db.disabled(), ["a", "b", "c"]);
        assert_eq!(names(&db, "A"), ["x"]);
        db.upsert(template("c", &["C"], "D")).unwrap();
        assert!(db.disabled().is_empty());
        assert_eq!(names(&db, "A"), ["a", "x"]);
        assert_eq!(names(&db, "C"), ["c"]);
    }

    #[test]
    fn replacing_a_template_drops_its_old_edges_and_indexes() {
        let mut db = Templates::new();
        db.upsert(template("a", &["A"], "B")).unwrap();
        db.upsert(template("a", &["C"], "B")).unwrap();
        assert!(names(&db, "A").is_empty());
        db.upsert(template("b", &["B"], "A")).unwrap();
        assert!(db.disabled().is_empty());
    }

    #[test]
    fn a_gvk_named_twice_next_to_its_generator_is_a_duplicate_edge() {
        let mut db = Templates::new();
        db.upsert(template("a", &["A"], "B")).unwrap();
        assert_eq!(
            db.upsert(template("b", &["B", "B"], "C")),
            Err("adding template to db: adding edge for template b: edge already exists".into())
        );
        let mut alone = Templates::new();
        alone.upsert(template("b", &["B", "B"], "C")).unwrap();
        assert_eq!(names(&alone, "B"), ["b"]);
    }

    #[test]
    fn upsert_validates() {
        let mut db = Templates::new();
        assert!(db.upsert(template("a", &["A"], "A")).is_err());
        assert!(db.is_empty());
    }
}
