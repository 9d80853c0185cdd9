//! `kadmit install-plugins --helm DIR`: a Helm 4 post-renderer plugin (`DIR/kadmit/plugin.yaml`).
//!
//! Helm 4 takes only plugins as post-renderers: `--post-renderer NAME` names a plugin of
//! type `postrenderer/v1` found under `HELM_PLUGINS` (or installed with `helm plugin
//! install DIR/kadmit`). The subprocess runtime runs the plugin's `platformCommand`: its
//! `command` (split at spaces, then `$VAR`s expanded) with its `args` and then the user's
//! `--post-renderer-args`, the rendered manifests on stdin and the result read from stdout
//! (helm/helm internal/plugin/runtime_subprocess.go, subprocess_commands.go; the plugin.yaml
//! fields and their checks: internal/plugin/metadata_v1.go).

use anyhow::{bail, Context as _, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The plugin's name: what `--post-renderer` names (Helm accepts `[A-Za-z0-9_-]+`).
pub const PLUGIN_NAME: &str = "kadmit";

/// Writes (or rewrites) `DIR/kadmit/plugin.yaml` for `binary` and returns its path.
pub fn install(dir: &Path, binary: &Path) -> Result<PathBuf> {
    let binary = binary
        .canonicalize()
        .with_context(|| format!("cannot find the kadmit binary at {}", binary.display()))?;
    let manifest = plugin_yaml(&binary)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let plugin_dir = dir.join(PLUGIN_NAME);
    refuse_link(&plugin_dir)?;
    if !plugin_dir.is_dir() {
        std::fs::create_dir(&plugin_dir)
            .with_context(|| format!("cannot create {}", plugin_dir.display()))?;
    }
    let path = plugin_dir.join("plugin.yaml");
    refuse_link(&path)?;
    write_replacing(&path, &manifest)?;
    Ok(path)
}

/// The plugin.yaml running `binary transform` with the user's `--post-renderer-args`.
pub fn plugin_yaml(binary: &Path) -> Result<String> {
    let Some(command) = binary.to_str() else {
        bail!(
            "the kadmit binary's path {} is not UTF-8, which a Helm plugin.yaml cannot hold",
            binary.display()
        );
    };
    // Helm splits `command` at spaces and expands `$VAR` in it: a path with either would
    // run something else.
    if command.contains(char::is_whitespace) || command.contains('$') {
        bail!(
            "the kadmit binary's path {command:?} holds a space or a `$`, which Helm's plugin \
             runtime splits or expands: give --binary a path without them"
        );
    }
    // A JSON string is a YAML double-quoted scalar: any path is written safely.
    let command = serde_json::to_string(command).expect("a string serializes");
    Ok(format!(
        "\
# Written by `kadmit install-plugins --helm`: a Helm 4 post-renderer plugin running
# `kadmit transform` on the rendered chart, with the --post-renderer-args after it:
#   helm template RELEASE CHART --post-renderer {PLUGIN_NAME} --post-renderer-args --config=POLICIES
apiVersion: v1
name: {PLUGIN_NAME}
type: postrenderer/v1
runtime: subprocess
version: {version}
runtimeConfig:
  platformCommand:
  - command: {command}
    args: [\"transform\"]
",
        version = env!("CARGO_PKG_VERSION"),
    ))
}

/// A symbolic link at `path` could take the write outside DIR: refused, never followed.
fn refuse_link(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => bail!(
            "{} is a symbolic link: refusing to write through it (install-plugins writes only \
             inside its directory)",
            path.display()
        ),
        _ => Ok(()),
    }
}

/// Writes a fresh temporary file beside `path` (never through an existing one) and renames
/// it over `path`, so a plugin Helm is reading is replaced whole.
fn write_replacing(path: &Path, contents: &str) -> Result<()> {
    let temporary = path.with_extension("kadmit-tmp");
    match std::fs::remove_file(&temporary) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot replace {}", temporary.display())),
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
        .and_then(|mut file| file.write_all(contents.as_bytes()))
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_runs_transform_with_the_binary_and_refuses_what_helm_would_split() {
        let yaml = plugin_yaml(Path::new("/opt/kadmit/bin/kadmit")).unwrap();
        let parsed: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!({
                "apiVersion": "v1",
                "name": "kadmit",
                "type": "postrenderer/v1",
                "runtime": "subprocess",
                "version": env!("CARGO_PKG_VERSION"),
                "runtimeConfig": {"platformCommand": [
                    {"command": "/opt/kadmit/bin/kadmit", "args": ["transform"]}
                ]}
            })
        );
        assert!(plugin_yaml(Path::new("/opt/my tools/kadmit")).is_err());
        assert!(plugin_yaml(Path::new("/opt/$HOME/kadmit")).is_err());
    }
}
