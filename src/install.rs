//! `kadmit install-plugins DIR`: the kustomize legacy exec-plugin layout
//! (`DIR/<group>/<version>/<lowercase kind>/<Kind>`) for every configuration kind kadmit
//! reads, each entry a small script that runs this binary; with `--plugin-dir`, also for
//! every generator kind defined under those roots, the script passing the root on. With
//! `--helm DIR`, the Helm 4 post-renderer plugin ([`helm`]).

pub mod helm;

use crate::core::config::KNOWN_KINDS;
use crate::engines::generator::definition;
use crate::engines::generator::discovery::Catalog;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Writes (or rewrites) every plugin entry and returns their paths.
pub fn install_plugins(dir: &Path, binary: &Path, plugin_dirs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let binary = binary
        .canonicalize()
        .with_context(|| format!("cannot find the kadmit binary at {}", binary.display()))?;
    let script = wrapper_script(&binary, None);
    let mut written = Vec::new();
    for known in KNOWN_KINDS {
        for version in known.versions {
            written.push(write_entry(dir, known.group, version, known.kind, &script)?);
        }
    }
    for (group, version, kind, root) in generator_kinds(plugin_dirs)? {
        let script = wrapper_script(&binary, Some(&root));
        written.push(write_entry(dir, &group, &version, &kind, &script)?);
    }
    Ok(written)
}

/// Every (group, version, kind, plugin root) the generators under `plugin_dirs` define.
fn generator_kinds(plugin_dirs: &[PathBuf]) -> Result<Vec<(String, String, String, PathBuf)>> {
    let mut roots = Vec::new();
    for path in plugin_dirs {
        let path = path
            .canonicalize()
            .with_context(|| format!("cannot find the plugin directory {}", path.display()))?;
        roots.push(path);
    }
    let mut catalog = Catalog::new(roots.clone(), false);
    let mut kinds = Vec::new();
    let mut invalid = Vec::new();
    for found in catalog.all() {
        // The generator engine's own validation (names are DNS labels, versions valid)
        // runs before any path is built from the definition's strings.
        if let Err(problems) = definition::load(&found.resource, found.location.clone(), false) {
            invalid.extend(problems.into_iter().map(|p| {
                let at = p.field.map(|f| format!("{f}: ")).unwrap_or_default();
                format!(
                    "{}: Generator {}: {at}{}",
                    found.resource.origin.source, found.resource.id.name, p.message
                )
            }));
            continue;
        }
        let Some((group, kind)) = definition::declared_kind(&found.resource) else {
            continue;
        };
        let root = roots
            .iter()
            .find(|r| found.location.root.starts_with(r))
            .cloned()
            .unwrap_or_else(|| found.location.root.clone());
        let versions = found
            .resource
            .value
            .pointer("/spec/versions")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.get("name").and_then(serde_json::Value::as_str));
        for version in versions {
            kinds.push((
                group.clone(),
                version.to_owned(),
                kind.clone(),
                root.clone(),
            ));
        }
    }
    invalid.extend(catalog.problems);
    if !invalid.is_empty() {
        anyhow::bail!("{}", invalid.join("\n"));
    }
    Ok(kinds)
}

fn write_entry(
    dir: &Path,
    group: &str,
    version: &str,
    kind: &str,
    script: &str,
) -> Result<PathBuf> {
    // Built only from single, plain path components: never a way out of `dir`.
    for part in [group, version, kind] {
        let mut components = Path::new(part).components();
        let plain = matches!(
            (components.next(), components.next()),
            (Some(std::path::Component::Normal(_)), None)
        );
        if !plain || part.contains('/') {
            anyhow::bail!("{part:?} cannot name a plugin directory (group {group:?}, version {version:?}, kind {kind:?})");
        }
    }
    let entry_dir = dir.join(group).join(version).join(kind.to_lowercase());
    std::fs::create_dir_all(&entry_dir)
        .with_context(|| format!("cannot create {}", entry_dir.display()))?;
    let path = entry_dir.join(kind);
    write_executable(&path, script)?;
    Ok(path)
}

fn wrapper_script(binary: &Path, plugin_dir: Option<&Path>) -> String {
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    let plugin_dir = plugin_dir
        .map(|p| format!(" --plugin-dir {}", quote(p)))
        .unwrap_or_default();
    format!(
        "#!/bin/sh\n# Written by `kadmit install-plugins`: kustomize runs this as a legacy exec plugin.\nexec {} \"$@\"{plugin_dir}\n",
        quote(binary)
    )
}

/// Replaces the file atomically, so re-running over a live plugin home is safe.
fn write_executable(path: &Path, contents: &str) -> Result<()> {
    let temporary = path.with_extension("kadmit-tmp");
    std::fs::write(&temporary, contents)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_kind_in_every_version_and_can_rerun() {
        let dir = tempfile::tempdir().unwrap();
        let binary = std::env::current_exe().unwrap();
        let first = install_plugins(dir.path(), &binary, &[]).unwrap();
        let again = install_plugins(dir.path(), &binary, &[]).unwrap();
        assert_eq!(first, again);
        for path in [
            "mutations.gatekeeper.sh/v1/assign/Assign",
            "mutations.gatekeeper.sh/v1alpha1/assignimage/AssignImage",
            "api.kubemod.io/v1beta1/modrule/ModRule",
            "kadmit.dev/v1alpha1/policyset/PolicySet",
        ] {
            let p = dir.path().join(path);
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(text.starts_with("#!/bin/sh\n"), "{path}");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                assert_eq!(
                    std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                    0o755
                );
            }
        }
    }
}
