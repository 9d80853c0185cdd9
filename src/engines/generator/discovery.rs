//! Finding generator definitions by group and kind, as KEP-993 finds plugins: under each
//! plugin root, in `<root>/<group>/`, walked for `*.yaml`/`*.yml` files holding
//! `kadmit.dev/v1alpha1` `Generator` documents. Roots are searched in order and the first
//! that defines the kind wins; two definitions of one kind in the same root are an error.

use super::definition::Location;
use crate::core::config::{GENERATOR_KIND, KADMIT_GROUP};
use crate::core::confine::walk_files;
use crate::core::decode::decode_all;
use crate::core::resource::Resource;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The plugin roots of a run, in search order: `--plugin-dir`, the roots the environment
/// names (`KADMIT_PLUGIN_PATH`, then `$XDG_CONFIG_HOME/kustomize/plugins`, read by the
/// edge), `plugins/` under the configuration root.
pub fn plugin_roots(
    plugin_dirs: &[PathBuf],
    environment_roots: &[PathBuf],
    config_root: &Path,
) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = plugin_dirs.to_vec();
    roots.extend_from_slice(environment_roots);
    roots.push(config_root.join("plugins"));
    roots
}

/// A definition found on disk.
#[derive(Debug, Clone)]
pub struct Found {
    pub resource: Resource,
    pub location: Location,
}

/// What a search for one group/kind gave.
pub enum Search {
    Found(Box<Found>),
    /// Not defined anywhere; the directories looked in.
    Missing(Vec<PathBuf>),
}

/// What the run does to a definition before the engine gets it (see [`Catalog::set_check`]).
pub type Check = Box<dyn FnMut(&mut Resource)>;

/// Searches the roots for group/kinds, reading each `<root>/<group>` directory once.
pub struct Catalog {
    roots: Vec<PathBuf>,
    allow_outside_root: bool,
    /// (root index, group) → definitions by kind, each with every file that defines it.
    read: BTreeMap<(usize, String), BTreeMap<String, Vec<Found>>>,
    pub problems: Vec<String>,
    check: Option<Check>,
}

impl Catalog {
    pub fn new(roots: Vec<PathBuf>, allow_outside_root: bool) -> Catalog {
        Catalog {
            roots,
            allow_outside_root,
            read: BTreeMap::new(),
            problems: Vec::new(),
            check: None,
        }
    }

    /// Runs `check` on every definition [`Catalog::search`] finds, before handing it out:
    /// the run's strict decode of configuration (`run/strict.rs`), which reports unknown
    /// fields and strips them.
    pub fn set_check(&mut self, check: Check) {
        self.check = Some(check);
    }

    fn checked(&mut self, found: &Found) -> Search {
        let mut found = found.clone();
        if let Some(check) = self.check.as_mut() {
            check(&mut found.resource);
        }
        Search::Found(Box::new(found))
    }

    /// The first root's definition of `group`/`kind`. A root defining it twice is an
    /// error (recorded in `problems`) and the search stops there.
    pub fn search(&mut self, group: &str, kind: &str) -> Search {
        let mut searched = Vec::new();
        for index in 0..self.roots.len() {
            searched.push(self.roots[index].join(group));
            let founds = self
                .group_definitions(index, group)
                .get(kind)
                .cloned()
                .unwrap_or_default();
            match founds.as_slice() {
                [] => continue,
                [found] => return self.checked(found),
                several => {
                    let files: Vec<String> = several
                        .iter()
                        .map(|f| f.resource.origin.source.to_string())
                        .collect();
                    let message = format!(
                        "{group} {kind} is defined more than once in the plugin root {}: {}",
                        self.roots[index].display(),
                        files.join(", ")
                    );
                    if !self.problems.contains(&message) {
                        self.problems.push(message);
                    }
                    return self.checked(&several[0]);
                }
            }
        }
        Search::Missing(searched)
    }

    /// Whether any root defines `group`/`kind` (what `search` would find, without copying it).
    pub fn defines(&mut self, group: &str, kind: &str) -> bool {
        (0..self.roots.len()).any(|index| {
            self.group_definitions(index, group)
                .get(kind)
                .is_some_and(|founds| !founds.is_empty())
        })
    }

    /// Every definition under every root (for `install-plugins`): group directories are
    /// the root's subdirectories.
    pub fn all(&mut self) -> Vec<Found> {
        let mut out = Vec::new();
        for index in 0..self.roots.len() {
            let Ok(entries) = std::fs::read_dir(&self.roots[index]) else {
                continue;
            };
            let mut groups: Vec<String> = entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .collect();
            groups.sort();
            for group in groups {
                for founds in self.group_definitions(index, &group).values() {
                    out.extend(founds.iter().take(1).cloned());
                }
            }
        }
        out
    }

    fn group_definitions(&mut self, index: usize, group: &str) -> &BTreeMap<String, Vec<Found>> {
        let key = (index, group.to_owned());
        if !self.read.contains_key(&key) {
            let dir = self.roots[index].join(group);
            let definitions = read_group(&dir, group, self.allow_outside_root, &mut self.problems);
            self.read.insert(key.clone(), definitions);
        }
        &self.read[&key]
    }
}

/// Every `Generator` of `group` under `dir`, by kind.
fn read_group(
    dir: &Path,
    group: &str,
    allow_outside_root: bool,
    problems: &mut Vec<String>,
) -> BTreeMap<String, Vec<Found>> {
    let mut out: BTreeMap<String, Vec<Found>> = BTreeMap::new();
    if !dir.is_dir() {
        return out;
    }
    let is_yaml = |path: &Path| {
        matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        )
    };
    let walk = walk_files(dir, dir, "plugin directory", allow_outside_root, is_yaml);
    problems.extend(walk.problems);
    for path in &walk.files {
        let path = path.as_path();
        for resource in read_definitions(path, problems) {
            let Some((declared_group, kind)) = super::definition::declared_kind(&resource) else {
                problems.push(format!(
                    "{}: Generator {} must set spec.group and spec.names.kind",
                    path.display(),
                    resource.id.name
                ));
                continue;
            };
            if declared_group != group {
                problems.push(format!(
                    "{}: Generator {} defines group {declared_group} but lies in the plugin directory of {group}",
                    path.display(),
                    resource.id.name
                ));
                continue;
            }
            out.entry(kind).or_default().push(Found {
                resource,
                location: Location {
                    base_dir: path.parent().unwrap_or(dir).to_path_buf(),
                    root: dir.to_path_buf(),
                },
            });
        }
    }
    out
}

/// The `Generator` documents of one file; an unreadable file is a problem.
fn read_definitions(path: &Path, problems: &mut Vec<String>) -> Vec<Resource> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            problems.push(format!("cannot read {}: {e}", path.display()));
            return Vec::new();
        }
    };
    let name: Arc<str> = Arc::from(path.display().to_string());
    let (documents, diagnostics) = decode_all(&bytes, &name);
    problems.extend(diagnostics.iter().map(|d| d.to_string()));
    documents
        .into_iter()
        .filter_map(|doc| Resource::new(doc.value, doc.origin).ok())
        .filter(|r| r.id.group == KADMIT_GROUP && r.id.kind == GENERATOR_KIND)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFINITION: &str = "apiVersion: kadmit.dev/v1alpha1\nkind: Generator\nmetadata:\n  name: NAME\nspec:\n  group: team.example.com\n  names:\n    kind: KIND\n";

    fn write(dir: &Path, file: &str, name: &str, kind: &str) {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, DEFINITION.replace("NAME", name).replace("KIND", kind)).unwrap();
    }

    #[test]
    fn first_root_wins_and_misses_list_every_place() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        write(b.path(), "team.example.com/app.yaml", "from-b", "App");
        write(
            a.path(),
            "team.example.com/nested/app.yaml",
            "from-a",
            "App",
        );
        let mut catalog = Catalog::new(vec![a.path().to_path_buf(), b.path().to_path_buf()], false);
        match catalog.search("team.example.com", "App") {
            Search::Found(found) => assert_eq!(found.resource.id.name, "from-a"),
            Search::Missing(_) => panic!("not found"),
        }
        match catalog.search("team.example.com", "Other") {
            Search::Missing(searched) => assert_eq!(
                searched,
                vec![
                    a.path().join("team.example.com"),
                    b.path().join("team.example.com")
                ]
            ),
            Search::Found(_) => panic!("found"),
        }
        assert!(catalog.problems.is_empty(), "{:?}", catalog.problems);
    }

    #[test]
    fn duplicates_in_one_root_are_an_error() {
        let a = tempfile::tempdir().unwrap();
        write(a.path(), "team.example.com/one.yaml", "one", "App");
        write(a.path(), "team.example.com/two.yaml", "two", "App");
        let mut catalog = Catalog::new(vec![a.path().to_path_buf()], false);
        assert!(matches!(
            catalog.search("team.example.com", "App"),
            Search::Found(_)
        ));
        assert!(
            catalog.problems[0].contains("defined more than once"),
            "{:?}",
            catalog.problems
        );
    }

    #[test]
    fn a_definition_in_the_wrong_group_directory_is_reported() {
        let a = tempfile::tempdir().unwrap();
        write(a.path(), "other.example.com/app.yaml", "misplaced", "App");
        let mut catalog = Catalog::new(vec![a.path().to_path_buf()], false);
        assert!(matches!(
            catalog.search("other.example.com", "App"),
            Search::Missing(_)
        ));
        assert!(catalog.problems[0].contains("defines group team.example.com"));
    }
}
