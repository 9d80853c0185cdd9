//! `kadmit man`: the manual pages, generated from the same clap definitions as `--help`
//! and the completion scripts (clap_mangen), so they cannot drift from the flags. One page
//! per command, named as man(1) expects: `kadmit.1`, `kadmit-transform.1`,
//! `kadmit-module-run.1`. The page date is the commit's date (build.rs), never the clock's.

use super::Cli;
use clap::CommandFactory;
use std::path::{Path, PathBuf};

/// The built command tree (built so each subcommand knows its `kadmit-…` display name),
/// without the `help` subcommand, which has no page.
fn tree() -> clap::Command {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    command
}

fn render(command: clap::Command) -> String {
    let mut out = Vec::new();
    clap_mangen::Man::new(command)
        .date(env!("KADMIT_COMMIT_DATE"))
        .source(format!("kadmit {}", super::VERSION_LINE))
        .render(&mut out)
        .expect("writing to memory does not fail");
    String::from_utf8(out).expect("roff from UTF-8 help is UTF-8")
}

/// The page of `kadmit` (no `path`) or of the subcommand `path` names (`["module", "run"]`).
pub fn page(path: &[String]) -> Result<String, String> {
    let mut command = tree();
    for (depth, name) in path.iter().enumerate() {
        let Some(sub) = command.find_subcommand(name).cloned() else {
            let known: Vec<&str> = command.get_subcommands().map(|s| s.get_name()).collect();
            return Err(format!(
                "no manual page for `kadmit {}`: {} has the subcommands {}",
                path[..=depth].join(" "),
                command.get_display_name().unwrap_or("kadmit"),
                known.join(", ")
            ));
        };
        command = sub;
    }
    Ok(render(command))
}

/// Writes every page into `dir` (created if missing), returning their paths in tree order.
pub fn write_all(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut pending = vec![tree()];
    while let Some(command) = pending.pop() {
        let children: Vec<clap::Command> = command.get_subcommands().cloned().collect();
        pending.extend(children.into_iter().rev());
        let name = format!("{}.1", command.get_display_name().unwrap_or("kadmit"));
        let path = dir.join(name);
        std::fs::write(&path, render(command))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_page_names_every_subcommand_and_flags_have_pages() {
        let main = page(&[]).unwrap();
        assert!(main.contains(&format!(".TH kadmit 1 {}", env!("KADMIT_COMMIT_DATE"))));
        for sub in tree().get_subcommands() {
            assert!(
                main.contains(&format!(
                    "kadmit\\-{}(1)",
                    sub.get_name().replace('-', "\\-")
                )),
                "{} is not listed:\n{main}",
                sub.get_name()
            );
        }
        let transform = page(&["transform".to_owned()]).unwrap();
        assert!(transform.contains(".TH kadmit-transform 1"));
        assert!(transform.contains("\\-\\-config"));
        let run = page(&["module".to_owned(), "run".to_owned()]);
        assert!(run.is_ok(), "{run:?}");
        assert!(page(&["frobnicate".to_owned()])
            .unwrap_err()
            .contains("no manual page for `kadmit frobnicate`"));
    }
}
