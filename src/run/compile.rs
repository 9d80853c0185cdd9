//! Compiles configuration into the pipeline: each engine, built from its own settings,
//! turns the configuration items of its family into stages, once, before any resource is
//! touched.

use crate::core::config::{known_kind, unsupported_family, ConfigItem, Family, Mode, KNOWN_KINDS};
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, CrdDocument, Engine};
use crate::core::pipeline::Pipeline;
use crate::engines::builtin::{self, Builtins};
use crate::engines::crd::Crds;
use crate::engines::gatekeeper::{self, Gatekeeper};
use crate::engines::generator::{self, discovery::Catalog, Generators};
use crate::engines::kubemod::{self, KubeMod};
use crate::engines::module::{self, Modules};
use crate::engines::policy::{self, AdmissionPolicies};
use crate::run::{strict, Options};
use std::cell::RefCell;
use std::rc::Rc;

/// Builds the pipeline for `items`; every unusable item is reported, not just the first.
/// Engines run in the order their stages take within each phase: built-in kinds (unless
/// `--no-builtins`), admission policies, KubeMod, CRDs, generators, Gatekeeper, then modules
/// in configuration order.
pub fn compile(
    items: &[ConfigItem],
    crds: Vec<CrdDocument>,
    mut catalog: Catalog,
    options: &Options,
) -> (Pipeline, Vec<Diagnostic>) {
    let mut pipeline = Pipeline::default();
    let (usable, mut diagnostics) = check_kinds(items, options.skip_unsupported);
    let checked = strict::check(usable, crds, options.config_validation);
    diagnostics.extend(checked.diagnostics);
    // Generators found under plugin roots are decoded as strictly, when the engine finds them.
    let found_problems = Rc::new(RefCell::new(Vec::new()));
    let mode = options.config_validation;
    let sink = found_problems.clone();
    catalog.set_check(Box::new(move |resource| {
        sink.borrow_mut()
            .extend(strict::check_document(resource, mode));
    }));
    let usable: Vec<&ConfigItem> = checked.items.iter().map(AsRef::as_ref).collect();
    let config = Configuration {
        items: &usable,
        crds: &checked.crds,
    };
    let (minor, version_problems) = builtin::kubernetes_minor(options.kubernetes_version, &config);
    diagnostics.extend(version_problems);
    let builtins: Option<Box<dyn Engine>> = options.builtins.then(|| {
        Box::new(Builtins {
            settings: builtin::Settings {
                minor,
                field_validation: options.field_validation,
                write_defaults: options.write_defaults,
            },
        }) as Box<dyn Engine>
    });
    let engines: [Box<dyn Engine>; 6] = [
        // First of the mutating and of the validating phase: the server runs the policy
        // plugins before the webhooks (KubeMod, Gatekeeper and modules are webhooks).
        Box::new(AdmissionPolicies {
            settings: policy::Settings {
                minor,
                field_validation: options.field_validation,
                user: options.user.clone(),
                groups: options.groups.clone(),
            },
        }),
        Box::new(KubeMod {
            settings: kubemod::stages::Settings {
                cluster_modrules_namespace: options.cluster_modrules_namespace.clone(),
                strict: options.strict,
            },
        }),
        Box::new(Crds {
            settings: kadmit_schema::admission::Settings {
                field_validation: options.field_validation,
                write_defaults: options.write_defaults,
            },
        }),
        Box::new(Generators {
            settings: generator::Settings {
                mode: options.mode,
                field_validation: options.field_validation,
                allow_paths_outside_root: options.allow_paths_outside_root,
            },
            catalog,
        }),
        Box::new(Gatekeeper {
            settings: gatekeeper::stage::Settings {
                annotations: options.gatekeeper_annotations,
            },
            expand: options.mode == Mode::Generate,
        }),
        Box::new(Modules {
            settings: module::Settings {
                user: options.user.clone(),
                groups: options.groups.clone(),
                allow_paths_outside_root: options.allow_paths_outside_root,
                allow_exec: options.allow_exec,
            },
        }),
    ];
    for mut engine in builtins.into_iter().chain(engines) {
        diagnostics.extend(engine.compile(&config, &mut pipeline));
        diagnostics.append(&mut found_problems.borrow_mut());
    }
    (pipeline, diagnostics)
}

/// The items every engine may see: those of a version kadmit reads. An item of a known
/// kind in another version, or an unknown `kadmit.dev` kind, is reported; so is a policy
/// of a family kadmit does not run, given as configuration (an error, or with
/// `skip_unsupported` a warning): exit 0 must mean the configured chain ran. The strict
/// check (`strict::check`) then decodes the usable ones against their kinds' CRDs.
fn check_kinds(
    items: &[ConfigItem],
    skip_unsupported: bool,
) -> (Vec<&ConfigItem>, Vec<Diagnostic>) {
    let mut usable = Vec::with_capacity(items.len());
    let mut diagnostics = Vec::new();
    for item in items {
        let id = &item.resource.id;
        let report = |message: String| {
            Diagnostic::config(message)
                .with_rule(id.to_string())
                .with_origin(&item.resource.origin)
        };
        let runs = item.family == Some(Family::KubewardenPolicy);
        if let (Some(family), true, false) =
            (unsupported_family(id), item.source.is_trusted(), runs)
        {
            let message = format!(
                "{id}: kadmit does not run {}, so this policy would not be applied{}",
                family.name,
                match skip_unsupported {
                    true => " (skipped: --skip-unsupported)",
                    false => "; remove it from the configuration, or pass --skip-unsupported to go on without it",
                }
            );
            diagnostics.push(match skip_unsupported {
                true => Diagnostic::warning(message).with_origin(&item.resource.origin),
                false => report(message),
            });
            continue;
        }
        match known_kind(id) {
            Some(known) if !known.versions.contains(&id.version.as_str()) => {
                diagnostics.push(report(format!(
                    "{}/{} {} is not a version kadmit reads (known: {})",
                    id.group,
                    id.version,
                    id.kind,
                    known.versions.join(", ")
                )));
                continue;
            }
            None if item.family == Some(Family::Kadmit) => {
                let known: Vec<&str> = KNOWN_KINDS
                    .iter()
                    .filter(|k| k.group == id.group)
                    .map(|k| k.kind)
                    .collect();
                // A test suite is no configuration: `kadmit test` runs it.
                let hint = if id.kind == "Test" {
                    "; a Test is run by `kadmit test`, not given as configuration"
                } else {
                    ""
                };
                diagnostics.push(report(format!(
                    "unknown kind {}/{} {} (kadmit.dev kinds: {}){hint}",
                    id.group,
                    id.version,
                    id.kind,
                    known.join(", ")
                )));
            }
            _ => {}
        }
        usable.push(item);
    }
    (usable, diagnostics)
}
