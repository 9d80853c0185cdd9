use kadmit::cli::{self, Invocation};
use kadmit::{install, run};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

mod alloc;
mod stdin;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match cli::detect(&args, std::io::stdin().is_terminal()) {
        Invocation::Exit {
            text,
            to_stderr,
            code,
        } => {
            if to_stderr {
                eprint!("{}", ensure_newline(&text));
            } else {
                print!("{}", ensure_newline(&text));
            }
            code
        }
        Invocation::Version => {
            println!("kadmit {}", cli::VERSION_LINE);
            0
        }
        Invocation::Completion(shell) => {
            print!("{}", cli::completion_script(shell));
            0
        }
        Invocation::Man {
            subcommand,
            out_dir: None,
        } => match cli::man_page(&subcommand) {
            Ok(page) => {
                print!("{page}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        },
        Invocation::Man {
            out_dir: Some(dir), ..
        } => match cli::write_man_pages(&dir) {
            Ok(pages) => {
                eprintln!("wrote {} manual pages to {}", pages.len(), dir.display());
                0
            }
            Err(e) => {
                eprintln!(
                    "error: cannot write the manual pages to {}: {e}",
                    dir.display()
                );
                2
            }
        },
        Invocation::InstallPlugins {
            dir,
            helm,
            binary,
            plugin_dirs,
        } => install(dir.as_deref(), helm.as_deref(), binary, &plugin_dirs),
        Invocation::Module(command) => cli::execute_module(command),
        Invocation::Test { paths, report } => test(&paths, report.as_deref()),
        Invocation::Run {
            mut options,
            reports,
            infer_mode_from_stdin,
            diff,
            quiet,
        } => {
            // `-f` without `-` reads no stdin (a terminal there would wait for input);
            // `--old -` does.
            let dash = |p: &std::path::PathBuf| p.as_os_str() == "-";
            let reads_stdin = options.inputs.is_empty()
                || options.inputs.iter().any(dash)
                || options.old_inputs.iter().any(dash);
            let mut stdin = Vec::new();
            if reads_stdin {
                stdin = match stdin::read_all(options.jobs) {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        eprintln!("error: cannot read stdin: {e}");
                        return ExitCode::from(2);
                    }
                };
            }
            if infer_mode_from_stdin && stdin.iter().all(u8::is_ascii_whitespace) {
                options.mode = run::Mode::Generate;
            }
            let color = diff.map(|choice| {
                choice.enabled(
                    std::io::stdout().is_terminal(),
                    std::env::var_os("NO_COLOR").as_deref(),
                )
            });
            execute(options, reports, stdin, color, quiet)
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

/// One run. `diff`: `kadmit diff`, coloured or not: the diff replaces the stream on stdout,
/// and each resource's own diagnostics are shown there, in place, instead of on stderr.
/// `quiet`: only errors reach stderr (reports and KRM results keep everything).
fn execute(
    options: run::Options,
    reports: Vec<(std::path::PathBuf, run::report::ReportFormat)>,
    stdin: Vec<u8>,
    diff: Option<bool>,
    quiet: bool,
) -> i32 {
    let outcome = run::run_owned(options, stdin);
    let mut in_place = vec![false; outcome.diagnostics.len()];
    if diff.is_some() {
        for admitted in &outcome.admitted {
            in_place[admitted.diagnostics.clone()].fill(true);
        }
    }
    for (diagnostic, _) in outcome
        .diagnostics
        .iter()
        .zip(&in_place)
        .filter(|(_, shown)| !**shown)
        .filter(|(d, _)| !quiet || d.severity == run::Severity::Error)
    {
        eprintln!("{diagnostic}");
    }
    for (path, format) in reports {
        // Written as it is made, not held whole: a report can be several times the stream.
        let write = |out: &mut dyn Write| -> std::io::Result<()> {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
            run::report::write(&outcome, format, &mut out)?;
            out.flush()
        };
        let written = if path.as_os_str() == "-" {
            write(&mut std::io::stderr().lock())
        } else {
            std::fs::File::create(&path).and_then(|mut file| write(&mut file))
        };
        if let Err(e) = written {
            eprintln!("error: cannot write report {}: {e}", path.display());
            return 2;
        }
    }
    // A diff is a review aid, not a stream to apply: it is written even when a resource
    // was rejected; only a run that never reached admission (bad input) has none.
    let diff_text = match diff {
        Some(color) if outcome.exit_code != 2 || !outcome.admitted.is_empty() => {
            Some(run::diff(&outcome, color))
        }
        Some(_) => Some(String::new()),
        None => None,
    };
    // Buffered for the small pieces of an output that interleaves untouched documents
    // (written from the input) with rendered ones; large pieces go through as they are.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = match &diff_text {
        Some(text) => stdout.write_all(text.as_bytes()),
        None => outcome.stdout.write_to(&mut stdout),
    };
    if let Err(e) = written.and_then(|()| stdout.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return 2;
    }
    let code = outcome.exit_code;
    // Left for the process's exit to reclaim, as the run's configuration is
    // (`run::run_owned`): the input it holds is the size of the stream.
    std::mem::forget(outcome);
    code
}

/// `kadmit test`: the cases on stdout, invalid Tests on stderr, the JUnit report if asked.
fn test(paths: &[std::path::PathBuf], report: Option<&std::path::Path>) -> i32 {
    let verdict = run::suite::test(paths);
    for problem in &verdict.problems {
        eprintln!("error: {problem}");
    }
    if let Some(path) = report {
        let xml = verdict.junit();
        let written = if path.as_os_str() == "-" {
            write!(std::io::stderr(), "{xml}")
        } else {
            std::fs::write(path, xml)
        };
        if let Err(e) = written {
            eprintln!("error: cannot write report {}: {e}", path.display());
            return 2;
        }
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(verdict.text().as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return 2;
    }
    verdict.exit_code()
}

/// `kadmit install-plugins [DIR] [--helm HELM_DIR]`: each layout asked for, then how to use it.
fn install(
    dir: Option<&std::path::Path>,
    helm: Option<&std::path::Path>,
    binary: Option<std::path::PathBuf>,
    plugin_dirs: &[std::path::PathBuf],
) -> i32 {
    let binary = match binary.map_or_else(std::env::current_exe, Ok) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot locate the kadmit binary: {e}");
            return 2;
        }
    };
    if let Some(dir) = dir {
        match install::install_plugins(dir, &binary, plugin_dirs) {
            Ok(paths) => eprintln!(
                "installed {} plugin entries under {}\nuse: KUSTOMIZE_PLUGIN_HOME={} kubectl kustomize --enable-alpha-plugins DIR",
                paths.len(),
                dir.display(),
                dir.display()
            ),
            Err(e) => {
                eprintln!("error: {e:#}");
                return 2;
            }
        }
    }
    if let Some(helm) = helm {
        match install::helm::install(helm, &binary) {
            Ok(path) => eprintln!(
                "installed the Helm 4 post-renderer plugin {}\nuse: HELM_PLUGINS={} helm template RELEASE CHART --post-renderer {} --post-renderer-args --config=POLICIES",
                path.display(),
                helm.display(),
                install::helm::PLUGIN_NAME
            ),
            Err(e) => {
                eprintln!("error: {e:#}");
                return 2;
            }
        }
    }
    0
}

fn ensure_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}
