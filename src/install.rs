//! `kadmit install-plugins DIR`: the kustomize legacy exec-plugin layout
//! (`DIR/<group>/<version>/<lowercase kind>/<Kind>`) for every configuration kind kadmit
//! reads, each entry a small script that runs this binary.

use crate::config::KNOWN_KINDS;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Writes (or rewrites) every plugin entry and returns their paths.
pub fn install_plugins(
    dir: &Path,
    binary: &Path,
    _plugin_dirs: &[PathBuf],
) -> Result<Vec<PathBuf>> {
    let binary = binary
        .canonicalize()
        .with_context(|| format!("cannot find the kadmit binary at {}", binary.display()))?;
    let script = wrapper_script(&binary);
    let mut written = Vec::new();
    for known in KNOWN_KINDS {
        for version in known.versions {
            let entry_dir = dir
                .join(known.group)
                .join(version)
                .join(known.kind.to_lowercase());
            std::fs::create_dir_all(&entry_dir)
                .with_context(|| format!("cannot create {}", entry_dir.display()))?;
            let path = entry_dir.join(known.kind);
            write_executable(&path, &script)?;
            written.push(path);
        }
    }
    Ok(written)
}

fn wrapper_script(binary: &Path) -> String {
    let quoted = binary.display().to_string().replace('\'', r"'\''");
    format!(
        "#!/bin/sh\n# Written by `kadmit install-plugins`: kustomize runs this as a legacy exec plugin.\nexec '{quoted}' \"$@\"\n"
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
