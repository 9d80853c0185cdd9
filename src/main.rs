use kadmit::cli::{self, Invocation};
use kadmit::{install, run};
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

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
            println!("kadmit {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Invocation::InstallPlugins {
            dir,
            binary,
            plugin_dirs,
        } => install(&dir, binary, &plugin_dirs),
        Invocation::Module(command) => cli::execute_module(command),
        Invocation::Run {
            mut options,
            reports,
            infer_mode_from_stdin,
        } => {
            let mut stdin = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut stdin) {
                eprintln!("error: cannot read stdin: {e}");
                return ExitCode::from(2);
            }
            if infer_mode_from_stdin && stdin.iter().all(u8::is_ascii_whitespace) {
                options.mode = run::Mode::Generate;
            }
            execute(options, reports, stdin)
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

fn execute(
    options: run::Options,
    reports: Vec<(std::path::PathBuf, run::report::ReportFormat)>,
    stdin: Vec<u8>,
) -> i32 {
    let outcome = run::run_owned(options, stdin);
    for diagnostic in &outcome.diagnostics {
        eprintln!("{diagnostic}");
    }
    for (path, format) in reports {
        let text = run::report::render(&outcome, format);
        let written = if path.as_os_str() == "-" {
            write!(std::io::stderr(), "{text}")
        } else {
            std::fs::write(&path, text)
        };
        if let Err(e) = written {
            eprintln!("error: cannot write report {}: {e}", path.display());
            return 2;
        }
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(outcome.stdout.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return 2;
    }
    outcome.exit_code
}

fn install(
    dir: &std::path::Path,
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
    match install::install_plugins(dir, &binary, plugin_dirs) {
        Ok(paths) => {
            eprintln!(
                "installed {} plugin entries under {}\nuse: KUSTOMIZE_PLUGIN_HOME={} kubectl kustomize --enable-alpha-plugins DIR",
                paths.len(),
                dir.display(),
                dir.display()
            );
            0
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    }
}

fn ensure_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}
