//! Configuration: which documents are virtual (rules, generators, policy sets) and which
//! are real resources, and loading configuration from `--config` paths and `PolicySet`s,
//! confined to their root.

pub use crate::core::confine::confine_path;
use crate::core::confine::walk_files;
use crate::core::decode::{decode_all_with, Document};
use crate::core::diagnostic::Diagnostic;
use crate::core::jobs::Jobs;
use crate::core::resource::{Identity, Resource};
use kadmit_yaml::Limits;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const KADMIT_GROUP: &str = "kadmit.dev";
pub const KADMIT_VERSION: &str = "v1alpha1";
pub const POLICY_SET_KIND: &str = "PolicySet";
pub const SETTINGS_KIND: &str = "Settings";
pub const GENERATOR_KIND: &str = "Generator";
pub const ADMISSION_MODULE_KIND: &str = "AdmissionModule";

/// The engine family a configuration kind belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    KubeMod,
    GatekeeperMutation,
    GatekeeperExpansion,
    Kadmit,
    /// A generator definition (`kadmit.dev/v1alpha1` `Generator`).
    GeneratorDefinition,
    /// A WebAssembly or exec admission module (`kadmit.dev/v1alpha1` `AdmissionModule`).
    AdmissionModule,
    /// Kubewarden's `policies.kubewarden.io/v1` `ClusterAdmissionPolicy` and
    /// `AdmissionPolicy`, given as configuration (in the stream they are objects being
    /// deployed, and pass through).
    KubewardenPolicy,
    /// Kubernetes' own admission policies: `admissionregistration.k8s.io`
    /// ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings.
    AdmissionPolicy,
    /// A virtual resource: annotated `config.kubernetes.io/local-config` and of no kind
    /// kadmit knows, or of a kind a generator defines.
    LocalConfig,
}

/// What the run does: which virtual resources are generated from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Generate,
    Transform,
    /// No subcommand: a KRM function call (stdin must be a ResourceList). The items are
    /// transformed; a functionConfig that is a generator input is generated from.
    Krm,
}

/// A configuration kind kadmit reads, with every API version users write.
pub struct KnownKind {
    pub group: &'static str,
    pub versions: &'static [&'static str],
    pub kind: &'static str,
    pub family: Family,
}

const GATEKEEPER_VERSIONS: &[&str] = &["v1", "v1beta1", "v1alpha1"];
const ADMISSION_GROUP: &str = "admissionregistration.k8s.io";
/// ValidatingAdmissionPolicy: v1 (GA in 1.30) and v1beta1 (same schema, still served).
const VAP_VERSIONS: &[&str] = &["v1", "v1beta1"];
/// MutatingAdmissionPolicy: v1alpha1 (1.32), v1beta1 (1.34), v1 (1.36), one semantics.
const MAP_VERSIONS: &[&str] = &["v1", "v1beta1", "v1alpha1"];

pub const KNOWN_KINDS: &[KnownKind] = &[
    KnownKind {
        group: "api.kubemod.io",
        versions: &["v1beta1"],
        kind: "ModRule",
        family: Family::KubeMod,
    },
    KnownKind {
        group: "mutations.gatekeeper.sh",
        versions: GATEKEEPER_VERSIONS,
        kind: "Assign",
        family: Family::GatekeeperMutation,
    },
    KnownKind {
        group: "mutations.gatekeeper.sh",
        versions: GATEKEEPER_VERSIONS,
        kind: "AssignMetadata",
        family: Family::GatekeeperMutation,
    },
    KnownKind {
        group: "mutations.gatekeeper.sh",
        versions: GATEKEEPER_VERSIONS,
        kind: "ModifySet",
        family: Family::GatekeeperMutation,
    },
    KnownKind {
        group: "mutations.gatekeeper.sh",
        versions: GATEKEEPER_VERSIONS,
        kind: "AssignImage",
        family: Family::GatekeeperMutation,
    },
    KnownKind {
        group: "expansion.gatekeeper.sh",
        versions: &["v1alpha1", "v1beta1"],
        kind: "ExpansionTemplate",
        family: Family::GatekeeperExpansion,
    },
    KnownKind {
        group: ADMISSION_GROUP,
        versions: VAP_VERSIONS,
        kind: "ValidatingAdmissionPolicy",
        family: Family::AdmissionPolicy,
    },
    KnownKind {
        group: ADMISSION_GROUP,
        versions: VAP_VERSIONS,
        kind: "ValidatingAdmissionPolicyBinding",
        family: Family::AdmissionPolicy,
    },
    KnownKind {
        group: ADMISSION_GROUP,
        versions: MAP_VERSIONS,
        kind: "MutatingAdmissionPolicy",
        family: Family::AdmissionPolicy,
    },
    KnownKind {
        group: ADMISSION_GROUP,
        versions: MAP_VERSIONS,
        kind: "MutatingAdmissionPolicyBinding",
        family: Family::AdmissionPolicy,
    },
    KnownKind {
        group: KADMIT_GROUP,
        versions: &[KADMIT_VERSION],
        kind: POLICY_SET_KIND,
        family: Family::Kadmit,
    },
    KnownKind {
        group: KADMIT_GROUP,
        versions: &[KADMIT_VERSION],
        kind: SETTINGS_KIND,
        family: Family::Kadmit,
    },
    KnownKind {
        group: KADMIT_GROUP,
        versions: &[KADMIT_VERSION],
        kind: GENERATOR_KIND,
        family: Family::GeneratorDefinition,
    },
    KnownKind {
        group: KADMIT_GROUP,
        versions: &[KADMIT_VERSION],
        kind: ADMISSION_MODULE_KIND,
        family: Family::AdmissionModule,
    },
];

/// The Kubewarden group, and its policy kinds kadmit runs when given as configuration.
pub const KUBEWARDEN_GROUP: &str = "policies.kubewarden.io";
pub const KUBEWARDEN_POLICY_KINDS: [&str; 2] = ["ClusterAdmissionPolicy", "AdmissionPolicy"];

/// Whether `id` is a Kubewarden policy kadmit runs from trusted configuration.
pub fn is_kubewarden_policy(id: &Identity) -> bool {
    id.group == KUBEWARDEN_GROUP && KUBEWARDEN_POLICY_KINDS.contains(&id.kind.as_str())
}

/// The family of a configuration document, or `None` for a real resource.
pub fn classify(resource: &Resource) -> Option<Family> {
    classify_document(&resource.id, &resource.value)
}

/// [`classify`] of a document by its identity and value (no origin needed).
pub fn classify_document(id: &Identity, value: &serde_json::Value) -> Option<Family> {
    if let Some(known) = known_kind(id) {
        return Some(known.family);
    }
    if id.group == KADMIT_GROUP {
        return Some(Family::Kadmit);
    }
    crate::core::resource::is_local_config(value).then_some(Family::LocalConfig)
}

/// An admission-policy family kadmit does not execute, by API group (and kind where a
/// group also holds objects that are not policies).
pub struct UnsupportedFamily {
    /// The family's name in messages and in docs/cli.md's table.
    pub name: &'static str,
    groups: &'static [&'static str],
    /// Empty: every kind of the groups.
    kinds: &'static [&'static str],
}

/// The admission-policy families kadmit does not run (docs/cli.md, "Configuration
/// families"). As configuration they are refused; in the stream they are objects being
/// deployed and pass through.
pub const UNSUPPORTED_FAMILIES: &[UnsupportedFamily] = &[
    UnsupportedFamily {
        name: "Kyverno policies",
        groups: &["kyverno.io", "policies.kyverno.io"],
        kinds: &[],
    },
    UnsupportedFamily {
        name: "Gatekeeper constraint templates and constraints",
        groups: &["templates.gatekeeper.sh", "constraints.gatekeeper.sh"],
        kinds: &[],
    },
    // Kubewarden policies run from configuration only (their modules are files the
    // operator chose); in the stream they are objects being deployed.
    UnsupportedFamily {
        name: "Kubewarden policies in the stream: kadmit runs them only as configuration",
        groups: &[KUBEWARDEN_GROUP],
        kinds: &KUBEWARDEN_POLICY_KINDS,
    },
    UnsupportedFamily {
        name: "Kubewarden policy groups",
        groups: &[KUBEWARDEN_GROUP],
        kinds: &[],
    },
    UnsupportedFamily {
        name: "admission webhook configurations",
        groups: &["admissionregistration.k8s.io"],
        kinds: &[
            "ValidatingWebhookConfiguration",
            "MutatingWebhookConfiguration",
        ],
    },
];

/// The family of policies kadmit does not run that `id` belongs to, if any.
pub fn unsupported_family(id: &Identity) -> Option<&'static UnsupportedFamily> {
    family_of(&id.group, &id.kind)
}

/// Whether a group and kind belong to a family kadmit does not run.
pub fn is_unsupported_family(group: &str, kind: &str) -> bool {
    family_of(group, kind).is_some()
}

fn family_of(group: &str, kind: &str) -> Option<&'static UnsupportedFamily> {
    UNSUPPORTED_FAMILIES.iter().find(|family| {
        family.groups.contains(&group) && (family.kinds.is_empty() || family.kinds.contains(&kind))
    })
}

pub fn known_kind(id: &Identity) -> Option<&'static KnownKind> {
    KNOWN_KINDS
        .iter()
        .find(|k| k.group == id.group && k.kind == id.kind)
}

pub fn is_crd(id: &Identity) -> bool {
    id.group == "apiextensions.k8s.io" && id.kind == "CustomResourceDefinition"
}

/// Whether a document, before it has an identity, is a CustomResourceDefinition.
fn is_crd_document(value: &serde_json::Value) -> bool {
    let api_version = value.get("apiVersion").and_then(serde_json::Value::as_str);
    let kind = value.get("kind").and_then(serde_json::Value::as_str);
    api_version.is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
        && kind == Some("CustomResourceDefinition")
}

/// Where a configuration document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// stdin (plain stream) or a ResourceList item.
    Stream,
    /// The kustomize legacy plugin configuration file.
    PluginConfig,
    /// A ResourceList's `functionConfig`.
    FunctionConfig,
    /// `--config` or a `PolicySet` path.
    File,
}

impl Source {
    /// Configuration the user chose (`--config`, the kustomize plugin configuration, the
    /// KRM `functionConfig`), as opposed to documents of the resource stream, which whoever
    /// wrote the manifests chose. docs/security.md has the rule.
    pub fn is_trusted(self) -> bool {
        self != Source::Stream
    }
}

/// Local configuration of the tools around kadmit (Kptfiles, kpt's package context and
/// default function input, kustomizations): never rules, never generator input.
pub fn is_tooling_config(id: &Identity) -> bool {
    const TOOLING_GROUPS: &[&str] = &[
        "kpt.dev",
        "fn.kpt.dev",
        "config.kpt.dev",
        "config.kubernetes.io",
        "kustomize.config.k8s.io",
    ];
    TOOLING_GROUPS.contains(&id.group.as_str())
        || (id.group.is_empty()
            && id.kind == "ConfigMap"
            && matches!(id.name.as_str(), "kptfile.kpt.dev" | "function-input"))
}

/// A configuration document and the directory its relative paths resolve against.
#[derive(Debug, Clone)]
pub struct ConfigItem {
    pub resource: Resource,
    pub family: Option<Family>,
    pub source: Source,
    /// Whether the item came from trusted configuration: its own source is, and so was
    /// every `PolicySet` that led to it (a file a stream `PolicySet` names is as untrusted
    /// as the stream). Untrusted items may not run programs, and their paths stay inside
    /// their root whatever `--allow-paths-outside-root` says.
    pub trusted: bool,
    pub base_dir: PathBuf,
    pub root: PathBuf,
}

impl ConfigItem {
    /// A virtual resource for a generator: local configuration of no engine's kind, or a
    /// document of unknown kind handed over as plugin or function configuration. Other
    /// documents in configuration files (Namespaces, CRDs) are context.
    pub fn is_generator_input(&self) -> bool {
        if is_tooling_config(&self.resource.id) {
            return false;
        }
        match self.family {
            Some(Family::LocalConfig) => true,
            None => matches!(self.source, Source::PluginConfig | Source::FunctionConfig),
            Some(_) => false,
        }
    }

    /// Whether this is a virtual resource the run generates from: every one in `generate`,
    /// only the functionConfig in a KRM function call, none in `transform`.
    pub fn is_generated_in(&self, mode: Mode) -> bool {
        self.is_generator_input()
            && match mode {
                Mode::Generate => true,
                Mode::Krm => self.source == Source::FunctionConfig,
                Mode::Transform => false,
            }
    }
}

/// Reads configuration files and directories, following `PolicySet` paths.
pub struct Loader {
    allow_outside_root: bool,
    /// `--crd` paths: documents that are not CustomResourceDefinitions are skipped unread,
    /// even those without an identity (a `kustomization.yaml` shipped beside the CRDs).
    crds_only: bool,
    /// How much one document of a configuration file may hold.
    limits: Limits,
    /// The run's threads: the files of a directory are read on them (a CRD bundle is
    /// megabytes of YAML, read on every run).
    jobs: Option<Arc<Jobs>>,
    loaded: HashSet<PathBuf>,
    pub items: Vec<ConfigItem>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Loader {
    pub fn new(allow_outside_root: bool) -> Loader {
        Loader {
            allow_outside_root,
            crds_only: false,
            limits: Limits::default(),
            jobs: None,
            loaded: HashSet::new(),
            items: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// The same loader reading documents within `limits` (`--max-document-nodes`).
    pub fn with_limits(self, limits: Limits) -> Loader {
        Loader { limits, ..self }
    }

    /// The same loader reading the files of a directory on `jobs`' threads.
    pub fn with_jobs(self, jobs: Arc<Jobs>) -> Loader {
        Loader {
            jobs: Some(jobs),
            ..self
        }
    }

    /// A loader for `--crd` paths: only CustomResourceDefinitions are read.
    pub fn for_crds(allow_outside_root: bool) -> Loader {
        Loader {
            crds_only: true,
            ..Loader::new(allow_outside_root)
        }
    }

    /// `--config PATH`: a file, or a directory walked for `*.yaml`, `*.yml`, `*.json` in
    /// name order. Its root is the directory itself (or the file's directory).
    pub fn load_config_path(&mut self, path: &Path) {
        let root = if path.is_dir() {
            path.to_path_buf()
        } else {
            match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        self.load_path(path, &root, true);
    }

    /// Adds a configuration document read from stdin or handed over by kustomize/kpt,
    /// whose relative paths resolve against `base_dir` inside `root`.
    pub fn add(&mut self, resource: Resource, source: Source, base_dir: &Path, root: &Path) {
        self.add_with_trust(resource, source, source.is_trusted(), base_dir, root);
    }

    fn add_with_trust(
        &mut self,
        resource: Resource,
        source: Source,
        trusted: bool,
        base_dir: &Path,
        root: &Path,
    ) {
        // Kubewarden policies are configuration only where the operator put them.
        let family = classify(&resource).or_else(|| {
            (trusted && is_kubewarden_policy(&resource.id)).then_some(Family::KubewardenPolicy)
        });
        if family == Some(Family::Kadmit) && resource.id.kind == POLICY_SET_KIND {
            self.expand_policy_set(&resource, trusted, base_dir, root);
        }
        self.items.push(ConfigItem {
            resource,
            family,
            source,
            trusted,
            base_dir: base_dir.to_path_buf(),
            root: root.to_path_buf(),
        });
    }

    /// Adds a stream document of a kind a generator defines: a virtual resource.
    pub fn add_virtual(&mut self, resource: Resource, base_dir: &Path, root: &Path) {
        self.items.push(ConfigItem {
            resource,
            family: Some(Family::LocalConfig),
            source: Source::Stream,
            trusted: false,
            base_dir: base_dir.to_path_buf(),
            root: root.to_path_buf(),
        });
    }

    /// Loads a file, or every configuration file under a directory, following symbolic
    /// links but not out of `root`.
    fn load_path(&mut self, path: &Path, root: &Path, trusted: bool) {
        if !path.is_dir() {
            return self.load_file(path, root, trusted);
        }
        let allow_outside_root = self.allow_outside_root && trusted;
        let walk = walk_files(
            path,
            root,
            "configuration root",
            allow_outside_root,
            is_config_file,
        );
        self.diagnostics
            .extend(walk.problems.into_iter().map(Diagnostic::config));
        match self.jobs.clone().filter(|jobs| jobs.is_parallel()) {
            // Every file is read and decoded on the threads, then taken in name order
            // here, exactly as one by one: a file a `PolicySet` of an earlier file loaded
            // meanwhile is skipped (its decoding wasted, the result the same).
            Some(jobs) => {
                let limits = self.limits;
                let reads = jobs.map(walk.files.clone(), |file| read_file(&file, &limits));
                for (file, read) in walk.files.iter().zip(reads) {
                    self.load_file_read(file, root, trusted, Some(read));
                }
            }
            None => {
                for file in &walk.files {
                    self.load_file(file, root, trusted);
                }
            }
        }
    }

    fn load_file(&mut self, file: &Path, root: &Path, trusted: bool) {
        self.load_file_read(file, root, trusted, None);
    }

    /// Loads `file` once per run; `read` is the file already read and decoded, if it was.
    fn load_file_read(&mut self, file: &Path, root: &Path, trusted: bool, read: Option<FileRead>) {
        let canonical = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        if !self.loaded.insert(canonical) {
            return;
        }
        let base_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let read = read.unwrap_or_else(|| read_file(file, &self.limits));
        self.add_documents(read, Source::File, trusted, &base_dir, root);
    }

    /// The kustomize legacy plugin configuration (argv[1]): every document in it is
    /// configuration, its paths relative to the configuration root.
    pub fn load_plugin_config(&mut self, file: &Path, root: &Path) {
        self.load_documents(file, Source::PluginConfig, true, root, root);
    }

    fn load_documents(
        &mut self,
        file: &Path,
        source: Source,
        trusted: bool,
        base_dir: &Path,
        root: &Path,
    ) {
        let read = read_file(file, &self.limits);
        self.add_documents(read, source, trusted, base_dir, root);
    }

    fn add_documents(
        &mut self,
        read: FileRead,
        source: Source,
        trusted: bool,
        base_dir: &Path,
        root: &Path,
    ) {
        let (docs, problems) = match read {
            Ok(read) => read,
            Err(problem) => return self.diagnostics.push(problem),
        };
        self.diagnostics.extend(problems);
        for doc in crate::core::lists::flatten(docs) {
            if self.crds_only && !is_crd_document(&doc.value) {
                continue;
            }
            match Resource::new(doc.value, doc.origin.clone()) {
                Ok(resource) => self.add_with_trust(resource, source, trusted, base_dir, root),
                Err(message) => self
                    .diagnostics
                    .push(Diagnostic::input(message).with_origin(&doc.origin)),
            }
        }
    }

    fn expand_policy_set(&mut self, set: &Resource, trusted: bool, base_dir: &Path, root: &Path) {
        let name = set.id.to_string();
        let paths = match set.value.pointer("/spec/paths") {
            Some(serde_json::Value::Array(paths)) => paths.clone(),
            None => Vec::new(),
            Some(_) => {
                self.diagnostics.push(
                    Diagnostic::config("must be a list of paths")
                        .with_rule(&name)
                        .with_field("spec.paths")
                        .with_origin(&set.origin),
                );
                return;
            }
        };
        for (i, entry) in paths.iter().enumerate() {
            let field = format!("spec.paths[{i}]");
            let Some(relative) = entry.as_str() else {
                self.diagnostics.push(
                    Diagnostic::config("must be a string")
                        .with_rule(&name)
                        .with_field(field)
                        .with_origin(&set.origin),
                );
                continue;
            };
            // A stream PolicySet's paths stay inside the root whatever the flag says.
            let allow_outside_root = self.allow_outside_root && trusted;
            match confine_path(relative, base_dir, root, allow_outside_root) {
                Ok(path) => self.load_path(&path, root, trusted),
                Err(message) => self.diagnostics.push(
                    Diagnostic::config(message)
                        .with_rule(&name)
                        .with_field(field)
                        .with_origin(&set.origin),
                ),
            }
        }
    }
}

fn is_config_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// A configuration file's documents and their problems, or why it could not be read.
type FileRead = Result<(Vec<Document>, Vec<Diagnostic>), Diagnostic>;

/// Reads and decodes one configuration file (on any thread: it touches no loader state).
fn read_file(file: &Path, limits: &Limits) -> FileRead {
    let bytes = std::fs::read(file).map_err(|e| {
        Diagnostic::config(format!("cannot read configuration {}: {e}", file.display()))
    })?;
    let name: Arc<str> = Arc::from(file.display().to_string());
    Ok(decode_all_with(&bytes, &name, limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confinement_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("policies")).unwrap();
        std::fs::write(dir.path().join("outside.yaml"), "a: 1").unwrap();
        assert!(confine_path("policies", &root, &root, false).is_ok());
        let e = confine_path("../outside.yaml", &root, &root, false).unwrap_err();
        assert!(e.contains("outside the configuration root"), "{e}");
        assert!(confine_path("../outside.yaml", &root, &root, true).is_ok());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("outside.yaml"), root.join("link.yaml"))
                .unwrap();
            assert!(confine_path("link.yaml", &root, &root, false).is_err());
        }
        let abs = dir.path().join("outside.yaml");
        assert!(confine_path(abs.to_str().unwrap(), &root, &root, false)
            .unwrap_err()
            .contains("absolute"));
    }

    /// What a loader made of a directory: each item's kind, name, source file and trust,
    /// and every diagnostic, in order.
    fn loaded(loader: &Loader) -> (Vec<String>, Vec<String>) {
        let items = loader
            .items
            .iter()
            .map(|item| {
                let id = &item.resource.id;
                let from = item.resource.origin.source.rsplit('/').next().unwrap_or("");
                format!("{} {} {from} {}", id.kind, id.name, item.trusted)
            })
            .collect();
        let problems = loader.diagnostics.iter().map(|d| d.to_string()).collect();
        (items, problems)
    }

    #[test]
    fn a_directory_read_on_threads_loads_as_one_read_file_by_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        let config_map =
            |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
        // a.yaml's PolicySet loads c.yaml (its items first, then the set) before the walk
        // reaches c.yaml, which the walk then skips.
        write(
            "a.yaml",
            "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: set\nspec:\n  paths: [c.yaml]\n",
        );
        write("b.yaml", &format!("{}---\nb: [\n", config_map("b")));
        write(
            "c.yaml",
            &format!("{}---\n{}", config_map("c1"), config_map("c2")),
        );
        write("d.yaml", "kind: NoIdentity\n");
        for i in 0..12 {
            write(&format!("e{i:02}.yaml"), &config_map(&format!("e{i}")));
        }
        let mut one_by_one = Loader::new(false);
        one_by_one.load_config_path(dir.path());
        let mut on_threads = Loader::new(false).with_jobs(Arc::new(Jobs::new(4)));
        on_threads.load_config_path(dir.path());
        let expected = loaded(&one_by_one);
        assert_eq!(expected.0.len(), 16, "{expected:?}");
        assert_eq!(
            expected.0[..3],
            [
                "ConfigMap c1 c.yaml true",
                "ConfigMap c2 c.yaml true",
                "PolicySet set a.yaml true"
            ]
        );
        assert_eq!(expected.1.len(), 2, "{expected:?}");
        assert_eq!(loaded(&on_threads), expected);
    }
}
