//! Files stay inside their root: resolving a configuration path, and walking a directory
//! of configuration, without leaving the root (`..`, absolute paths, symbolic links out)
//! unless the user allowed it, and without looking at anything outside it.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Resolves `relative` against `base_dir` and checks that it stays inside `root` (no
/// absolute path, no `..` out, no symbolic link out) unless `allow_outside_root`.
///
/// Confinement is decided before existence, and links are read, not followed, until the
/// path is known to stay inside: so whether a path outside the root exists cannot be
/// learnt from the message (configuration may come from a pull request).
pub fn confine_path(
    relative: &str,
    base_dir: &Path,
    root: &Path,
    allow_outside_root: bool,
) -> Result<PathBuf, String> {
    let candidate = Path::new(relative);
    let joined = base_dir.join(candidate);
    if !allow_outside_root {
        if candidate.is_absolute() {
            return Err(format!(
                "{relative}: absolute paths are not allowed in configuration (use --allow-paths-outside-root)"
            ));
        }
        if !stays_inside(base_dir, candidate, root) {
            return Err(format!(
                "{relative}: resolves outside the configuration root {} (use --allow-paths-outside-root)",
                root.display()
            ));
        }
    }
    if !joined.exists() {
        return Err(format!(
            "{relative}: no such file or directory ({})",
            joined.display()
        ));
    }
    Ok(joined)
}

/// Whether `relative`, resolved against `base_dir`, stays inside `root` with `..` and
/// symbolic links resolved. Every link is read (never followed), and no step is taken from
/// a place outside the root that is not on the way back into it, so nothing outside the
/// root is looked at. A path that does not exist (yet) stays inside when its resolved
/// form does.
fn stays_inside(base_dir: &Path, relative: &Path, root: &Path) -> bool {
    const MAX_LINKS: usize = 40; // Linux's MAXSYMLINKS
                                 // A bare file name's directory is the working directory.
    let base_dir = match base_dir.as_os_str().is_empty() {
        true => Path::new("."),
        false => base_dir,
    };
    let (Ok(root), Ok(mut resolved)) = (root.canonicalize(), base_dir.canonicalize()) else {
        return false;
    };
    // Reversed, so `pop` yields the components in order.
    let mut pending: Vec<OsString> = Vec::new();
    let push = |pending: &mut Vec<OsString>, p: &Path| {
        pending.extend(p.components().rev().map(|c| c.as_os_str().to_owned()));
    };
    push(&mut pending, relative);
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match Path::new(&part).components().next() {
            Some(Component::RootDir | Component::Prefix(_)) => resolved = PathBuf::from(&part),
            Some(Component::CurDir) | None => {}
            Some(Component::ParentDir) => {
                resolved.pop();
            }
            Some(Component::Normal(name)) => {
                // Only from inside the root, or from above it on the way back down.
                let on_the_way =
                    root.starts_with(&resolved) && root.starts_with(resolved.join(name));
                if !resolved.starts_with(&root) && !on_the_way {
                    return false;
                }
                resolved.push(name);
                if let Ok(target) = std::fs::read_link(&resolved) {
                    links += 1;
                    if links > MAX_LINKS {
                        return false;
                    }
                    resolved.pop();
                    push(&mut pending, &target);
                }
            }
        }
    }
    resolved.starts_with(&root)
}

/// What a confined walk found: the files, in name order, and what it refused.
pub struct Walk {
    pub files: Vec<PathBuf>,
    pub problems: Vec<String>,
}

/// Every file under `dir` that `wanted` accepts, in name order, following symbolic links
/// that stay inside `root` (called `root_name` in messages). A link that leads out of the root is refused once, at the link,
/// and not descended into (unless `allow_outside_root`); a link loop is reported.
pub fn walk_files(
    dir: &Path,
    root: &Path,
    root_name: &str,
    allow_outside_root: bool,
    wanted: impl Fn(&Path) -> bool,
) -> Walk {
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            // The directory itself was named by its caller (and checked there, if at all).
            if allow_outside_root || entry.depth() == 0 || !entry.path_is_symlink() {
                return true;
            }
            let path = entry.path();
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return true;
            };
            let inside = stays_inside(parent, Path::new(name), root);
            if !inside {
                refused.push(path.to_path_buf());
            }
            inside
        });
    let mut files = Vec::new();
    for entry in walk {
        match entry {
            Ok(entry) if entry.file_type().is_file() && wanted(entry.path()) => {
                files.push(entry.into_path())
            }
            Ok(_) => {}
            Err(e) => problems.push(format!("cannot read directory {}: {e}", dir.display())),
        }
    }
    problems.extend(refused.into_iter().map(|link| {
        format!(
            "{}: a symbolic link out of the {root_name} {} (use --allow-paths-outside-root)",
            link.display(),
            root.display()
        )
    }));
    Walk { files, problems }
}
