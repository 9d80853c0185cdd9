//! Command-line definitions and invocation-mode detection.
//!
//! The same binary is called four ways: `kadmit generate|transform` (plain stream),
//! `<plugin path> /tmp/kust-plugin-config-NNN [generate|transform] [flags]` (kustomize
//! legacy exec plugin), with no arguments and a `ResourceList` on stdin (KRM function),
//! and the housekeeping subcommands.

mod man;
mod module;

use crate::core::pipeline::Operation;
use crate::io::encode::Format;
use crate::run::report::ReportFormat;
use crate::run::{Mode, Options};
use clap::{Args, Parser, Subcommand};
use kadmit_schema::admission::FieldValidation;
use std::path::{Path, PathBuf};

pub use crate::core::diagnostic::EXIT_UNSUPPORTED;

const AFTER_HELP: &str = "\
Invocation:
  kadmit transform < in.yaml          plain stream: configuration and resources on stdin
  kadmit transform -f FILE|DIR [-R]   the stream from files (`-f -` for stdin), as kubectl -f
  kadmit generate  < virtual.yaml     generate, then admit, resources from virtual resources
  kadmit diff      < in.yaml          review: what admission changes, as a unified diff
  kadmit test [DIR|FILE...]           run the policy test suites (kadmit.dev Test) found there
  <plugin> CONFIG_FILE [generate|transform] [flags]
                                      kustomize legacy exec plugin (see install-plugins)
  kadmit [transform|generate] < resourcelist.yaml
                                      KRM function (kpt fn eval --exec, kustomize exec functions)

Exit codes:
  0    success
  1    a resource was rejected or is invalid (policy outcome)
  2    bad input or bad configuration (unparseable YAML, invalid rule, unknown generator)
  127  unknown subcommand: the operation is not supported";

/// What `kadmit version` and `--version` print after `kadmit `: the version, the commit
/// and its date (build.rs).
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("KADMIT_COMMIT"),
    ", ",
    env!("KADMIT_COMMIT_DATE"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "kadmit",
    version = VERSION_LINE,
    about = "Run the Kubernetes admission chain client-side: generators, mutators and validators applied to a resource stream",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read resources and configuration on stdin; write the admitted resources to stdout.
    Transform(RunArgs),
    /// Like transform, then turn virtual resources into real ones and admit them too.
    Generate(RunArgs),
    /// Like transform, but write a unified diff of each resource admission changed (the
    /// rules named beside each hunk) and a summary, instead of the stream: a review aid.
    Diff(DiffArgs),
    /// Run the policy test suites (kadmit.dev Test documents) under DIR or in FILE: each
    /// Test's resources through its policies, then PASS or FAIL per case.
    Test(TestArgs),
    /// Print the version, the commit it was built from and that commit's date.
    Version,
    /// Print kadmit's manual page (roff: `kadmit man | man -l -`), or a subcommand's
    /// (`kadmit man transform`), generated from the flag definitions; or write them all.
    Man {
        /// The subcommand whose page to print (`transform`, `module run`); none: kadmit(1).
        #[arg(value_name = "SUBCOMMAND")]
        subcommand: Vec<String>,
        /// Write every page (kadmit.1, kadmit-transform.1, …) into DIR instead, as
        /// packagers install them (e.g. /usr/local/share/man/man1).
        #[arg(long, value_name = "DIR", conflicts_with = "subcommand")]
        out_dir: Option<PathBuf>,
    },
    /// Print a shell completion script (bash, zsh or fish) for kadmit's subcommands and flags.
    Completion {
        #[arg(value_enum)]
        shell: CompletionShell,
    },
    /// Write the kustomize legacy plugin layout for every configuration kind kadmit reads
    /// (DIR), and/or a Helm 4 post-renderer plugin (--helm DIR).
    InstallPlugins {
        /// The kustomize plugin home (use it as KUSTOMIZE_PLUGIN_HOME).
        #[arg(required_unless_present = "helm")]
        dir: Option<PathBuf>,
        /// Write the Helm 4 post-renderer plugin `kadmit` (a `postrenderer/v1` plugin running
        /// `kadmit transform` with the --post-renderer-args) to HELM_DIR/kadmit: use it with
        /// HELM_PLUGINS=HELM_DIR or `helm plugin install HELM_DIR/kadmit`.
        #[arg(long, value_name = "HELM_DIR")]
        helm: Option<PathBuf>,
        /// The kadmit binary the plugins run (default: this one).
        #[arg(long)]
        binary: Option<PathBuf>,
        /// Also link every generator kind found under these plugin roots; repeatable.
        #[arg(long = "plugin-dir", value_name = "DIR", requires = "dir")]
        plugin_dirs: Vec<PathBuf>,
    },
    /// Work with admission modules (a module developer's test harness).
    #[command(subcommand)]
    Module(module::ModuleCommand),
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Read the stream from this file, directory (its *.yaml, *.yml and *.json files, in
    /// name order) or `-` (stdin) instead of stdin, as kubectl's -f; repeatable. Files are
    /// the resource stream, with its trust (docs/security.md).
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub filename: Vec<PathBuf>,
    /// `-f DIR` reads its subdirectories too, as kubectl's -R.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// The previous state (a render of the base branch, or `kubectl get -o yaml`): a file,
    /// a directory (its *.yaml, *.yml, *.json; with -R its subdirectories) or `-` (stdin);
    /// repeatable. A resource with an old object of its identity is admitted as an
    /// UPDATE, without one as a CREATE; an old object no resource has is a DELETE,
    /// validated and reported, never written (docs/update.md).
    #[arg(long = "old", value_name = "FILE|DIR|-")]
    pub old: Vec<PathBuf>,
    /// Output format (default: yaml, or resourcelist when the input is a ResourceList).
    #[arg(short, long, value_enum)]
    pub output: Option<OutputArg>,
    /// Configuration file or directory (walked for *.yaml, *.yml, *.json); repeatable.
    #[arg(long = "config", value_name = "PATH")]
    pub config: Vec<PathBuf>,
    /// CustomResourceDefinition file or directory: its CRDs validate and default custom
    /// resources and are not written out (other documents there are ignored); repeatable.
    #[arg(long = "crd", value_name = "PATH")]
    pub crd: Vec<PathBuf>,
    /// What unknown fields of custom resources and built-in objects do, as kubectl's
    /// --validate: an error listing them (Strict), dropped with a warning each (Warn), or
    /// dropped silently (Ignore).
    #[arg(long, value_enum, default_value = "Strict")]
    pub field_validation: FieldValidationArg,
    /// What unknown fields of configuration documents (rules, generators, modules, policy
    /// sets) and CRDs do, as kubectl's --validate: an error each (Strict), a warning each
    /// with the field dropped (Warn), or dropped silently (Ignore).
    #[arg(long, value_enum, default_value = "Strict")]
    pub config_validation: FieldValidationArg,
    /// Do not write defaults into the output: schema defaults of custom resources, native
    /// defaults of built-in kinds (objects are still validated with them).
    #[arg(long)]
    pub no_defaults: bool,
    /// Leave built-in kinds (Deployment, Service, Pod, ...) alone: by default they are
    /// admitted as kube-apiserver admits them, strictly decoded, natively defaulted (the
    /// defaults written to the output) and natively validated (docs/builtins.md).
    #[arg(long)]
    pub no_builtins: bool,
    /// The Kubernetes version (1.30 to 1.35) whose built-in kinds are checked and defaulted;
    /// default: what a kadmit.dev Settings document pins, else 1.35.
    #[arg(long, value_name = "VERSION", value_parser = crate::run::parse_kubernetes_version)]
    pub kubernetes_version: Option<u32>,
    /// Pass configuration documents through to the output instead of consuming them.
    #[arg(long)]
    pub keep_config: bool,
    /// Namespace assumed for namespaced resources that name none.
    #[arg(short, long, default_value = "default")]
    pub namespace: String,
    /// The admission operation to simulate.
    #[arg(long, value_enum, default_value = "CREATE")]
    pub operation: OperationArg,
    /// Write a report of diagnostics and changes to FILE (`-` for stderr); repeatable. Its
    /// format is the `--report-format` that follows it, else json.
    #[arg(long, value_name = "FILE")]
    pub report: Vec<PathBuf>,
    /// The format of the `--report` just before it: json (kadmit's Report), markdown (a
    /// pull-request summary), sarif (SARIF 2.1.0), junit (JUnit XML), openreports
    /// (OpenReports Report/ClusterReport objects).
    #[arg(long, value_name = "FORMAT", value_enum)]
    pub report_format: Vec<ReportFormatArg>,
    /// Annotate each changed resource with the rules that changed it (kadmit.dev/changed-by).
    #[arg(long)]
    pub annotate: bool,
    /// Let paths of trusted configuration leave their root (`..`, absolute paths, symbolic
    /// links); paths in the resource stream never do.
    #[arg(long)]
    pub allow_paths_outside_root: bool,
    /// Run exec modules that arrive in the resource stream (stdin, KRM items); without it
    /// they are refused and only trusted configuration may name a program to run.
    #[arg(long)]
    pub allow_exec: bool,
    /// Succeed on a plain stream with no document at all (by default that is an error:
    /// "nothing" applied by a GitOps tool can mean "delete everything").
    #[arg(long)]
    pub allow_empty: bool,
    /// Refuse a document (of the stream or of configuration) holding more than N nodes
    /// (keys, values and collections, aliases expanded): it bounds the memory one document
    /// can take, whatever its density (docs/security.md).
    #[arg(long, value_name = "N", default_value_t = kadmit_yaml::DEFAULT_MAX_NODES)]
    pub max_document_nodes: usize,
    /// Spread decoding, admission and encoding over N threads (default: every core the
    /// system offers); the output is byte for byte the same whatever N is.
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Go on, with a warning, when the configuration holds policies of a family kadmit
    /// does not run (Kyverno, Gatekeeper constraints, Kubewarden, webhooks, VAP/MAP);
    /// by default that is an error, since those policies would silently not apply.
    #[arg(long)]
    pub skip_unsupported: bool,
    /// ModRules in this namespace are KubeMod cluster rules (targetNamespaceRegex applies).
    #[arg(long, value_name = "NAMESPACE", default_value = "kubemod-system")]
    pub cluster_modrules_namespace: String,
    /// A rule that matches but cannot be applied is an error (exit 1), not a warning.
    #[arg(long)]
    pub strict: bool,
    /// Record which Gatekeeper mutators changed a resource in its `gatekeeper.sh/mutations`
    /// annotation, as the webhook's `--mutation-annotations` does.
    #[arg(long)]
    pub gatekeeper_annotations: bool,
    /// A generator plugin root, searched before KADMIT_PLUGIN_PATH; repeatable.
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dir: Vec<PathBuf>,
    /// The username admission modules and policies see in `userInfo` (default kadmit).
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// A group admission modules and policies see in `userInfo`; repeatable
    /// (system:authenticated is added).
    #[arg(long = "group", value_name = "GROUP")]
    pub group: Vec<String>,
    /// Print only errors on stderr: warnings and info lines are left to --report and KRM
    /// results.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// `kadmit test`: where the Tests are, and the report.
#[derive(Debug, Clone, Args)]
pub struct TestArgs {
    /// Test files, or directories walked for *.yaml and *.yml files holding Tests.
    #[arg(value_name = "DIR|FILE", default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Write a report of every case to FILE (`-` for stderr).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// The format of the report: junit (JUnit XML, a test case per case).
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "junit")]
    pub report_format: TestReportFormatArg,
}

/// `kadmit test --report-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TestReportFormatArg {
    Junit,
}

/// `kadmit diff`: transform's flags and `--color`.
#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// When to colour the diff: auto (stdout is a terminal and NO_COLOR is unset or
    /// empty), always, never.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: ColorArg,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

impl ColorArg {
    /// Whether to colour: `auto` colours a terminal unless `NO_COLOR` is set to a
    /// non-empty value (no-color.org); `always` and `never` are what the user said.
    pub fn enabled(self, stdout_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => stdout_is_terminal && no_color.is_none_or(|v| v.is_empty()),
        }
    }
}

/// The shells `kadmit completion` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// The completion script for `shell`, generated from the flag definitions.
pub fn completion_script(shell: CompletionShell) -> String {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut out = Vec::new();
    let generator = match shell {
        CompletionShell::Bash => clap_complete::Shell::Bash,
        CompletionShell::Zsh => clap_complete::Shell::Zsh,
        CompletionShell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(generator, &mut command, "kadmit", &mut out);
    String::from_utf8(out).expect("completion scripts are UTF-8")
}

/// `--output`, as clap reads it; the library's [`Format`] knows nothing of argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormatArg {
    Json,
    Markdown,
    Sarif,
    Junit,
    Openreports,
}

impl From<ReportFormatArg> for ReportFormat {
    fn from(format: ReportFormatArg) -> ReportFormat {
        match format {
            ReportFormatArg::Json => ReportFormat::Json,
            ReportFormatArg::Markdown => ReportFormat::Markdown,
            ReportFormatArg::Sarif => ReportFormat::Sarif,
            ReportFormatArg::Junit => ReportFormat::Junit,
            ReportFormatArg::Openreports => ReportFormat::OpenReports,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputArg {
    /// A `---`-separated YAML stream.
    Yaml,
    /// A JSON `v1 List`.
    Json,
    /// A KRM `config.kubernetes.io/v1 ResourceList` (YAML).
    #[value(name = "resourcelist")]
    ResourceList,
}

impl From<OutputArg> for Format {
    fn from(arg: OutputArg) -> Format {
        match arg {
            OutputArg::Yaml => Format::Yaml,
            OutputArg::Json => Format::Json,
            OutputArg::ResourceList => Format::ResourceList,
        }
    }
}

/// `--operation`, as clap reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "UPPER")]
pub enum OperationArg {
    Create,
    Update,
    Delete,
    Connect,
}

impl From<OperationArg> for Operation {
    fn from(arg: OperationArg) -> Operation {
        match arg {
            OperationArg::Create => Operation::Create,
            OperationArg::Update => Operation::Update,
            OperationArg::Delete => Operation::Delete,
            OperationArg::Connect => Operation::Connect,
        }
    }
}

/// `--field-validation`, as clap reads it (kubectl's spellings and lower case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FieldValidationArg {
    #[value(name = "Strict", alias = "strict")]
    Strict,
    #[value(name = "Warn", alias = "warn")]
    Warn,
    #[value(name = "Ignore", alias = "ignore")]
    Ignore,
}

impl From<FieldValidationArg> for FieldValidation {
    fn from(arg: FieldValidationArg) -> FieldValidation {
        match arg {
            FieldValidationArg::Strict => FieldValidation::Strict,
            FieldValidationArg::Warn => FieldValidation::Warn,
            FieldValidationArg::Ignore => FieldValidation::Ignore,
        }
    }
}

/// What the process was asked to do.
#[derive(Debug)]
pub enum Invocation {
    Run {
        options: Options,
        /// `--report` files, each with its format.
        reports: Vec<(PathBuf, ReportFormat)>,
        /// Legacy plugin with no subcommand: generate when stdin is empty.
        infer_mode_from_stdin: bool,
        /// `kadmit diff`: write the diff (coloured as this says) instead of the stream.
        diff: Option<ColorArg>,
        /// `--quiet`: only errors on stderr.
        quiet: bool,
    },
    Version,
    Completion(CompletionShell),
    /// `kadmit man`: one page on stdout, or every page into `out_dir`.
    Man {
        subcommand: Vec<String>,
        out_dir: Option<PathBuf>,
    },
    /// `kadmit install-plugins`: the kustomize plugin home and/or the Helm plugins' home.
    InstallPlugins {
        dir: Option<PathBuf>,
        helm: Option<PathBuf>,
        binary: Option<PathBuf>,
        plugin_dirs: Vec<PathBuf>,
    },
    Module(module::ModuleCommand),
    /// `kadmit test`: the Tests' paths and the JUnit report's file.
    Test {
        paths: Vec<PathBuf>,
        report: Option<PathBuf>,
    },
    /// Print this text to stdout and exit with the code (help, clap errors).
    Exit {
        text: String,
        to_stderr: bool,
        code: i32,
    },
}

const SUBCOMMANDS: &[&str] = &[
    "generate",
    "transform",
    "diff",
    "test",
    "version",
    "completion",
    "man",
    "install-plugins",
    "module",
    "help",
];

/// Decides the invocation from argv (without the program name) and whether stdin is a
/// terminal.
pub fn detect(args: &[String], stdin_is_terminal: bool) -> Invocation {
    let Some(first) = args.first() else {
        if stdin_is_terminal {
            return Invocation::Exit {
                text: help_text(),
                to_stderr: false,
                code: EXIT_UNSUPPORTED,
            };
        }
        return run_invocation(Mode::Krm, default_args(), Vec::new(), false, None);
    };
    if SUBCOMMANDS.contains(&first.as_str()) || first.starts_with('-') {
        return parse(args, None);
    }
    if Path::new(first).is_file() {
        let rest = &args[1..];
        let explicit = rest
            .first()
            .is_some_and(|a| a == "generate" || a == "transform");
        if explicit {
            return parse(rest, Some(PathBuf::from(first)));
        }
        let mut with_mode = vec!["transform".to_owned()];
        with_mode.extend(rest.iter().cloned());
        return match parse(&with_mode, Some(PathBuf::from(first))) {
            Invocation::Run {
                options,
                reports,
                diff,
                quiet,
                ..
            } => Invocation::Run {
                options,
                reports,
                infer_mode_from_stdin: true,
                diff,
                quiet,
            },
            other => other,
        };
    }
    Invocation::Exit {
        text: format!(
            "kadmit: unknown subcommand {first:?}: the operation is not supported (expected generate, transform, diff, test, version, completion, man, install-plugins or module)"
        ),
        to_stderr: true,
        code: EXIT_UNSUPPORTED,
    }
}

fn parse(args: &[String], plugin_config: Option<PathBuf>) -> Invocation {
    use clap::{CommandFactory, FromArgMatches};
    let argv = std::iter::once("kadmit".to_owned()).chain(args.iter().cloned());
    let parsed = Cli::command()
        .try_get_matches_from(argv)
        .and_then(|matches| Ok((Cli::from_arg_matches(&matches)?, matches)));
    match parsed {
        Ok((cli, matches)) => match cli.command {
            Command::Transform(a) => with_reports(&matches, "transform", |reports| {
                run_invocation(Mode::Transform, a, reports, false, plugin_config)
            }),
            Command::Generate(a) => with_reports(&matches, "generate", |reports| {
                run_invocation(Mode::Generate, a, reports, false, plugin_config)
            }),
            Command::Diff(d) => with_reports(&matches, "diff", |reports| {
                diff_invocation(d, reports, plugin_config)
            }),
            Command::Test(t) => Invocation::Test {
                paths: t.paths,
                report: t.report,
            },
            Command::Version => Invocation::Version,
            Command::Completion { shell } => Invocation::Completion(shell),
            Command::Man {
                subcommand,
                out_dir,
            } => Invocation::Man {
                subcommand,
                out_dir,
            },
            Command::InstallPlugins {
                dir,
                helm,
                binary,
                plugin_dirs,
            } => Invocation::InstallPlugins {
                dir,
                helm,
                binary,
                plugin_dirs,
            },
            Command::Module(command) => Invocation::Module(command),
        },
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            Invocation::Exit {
                text: e.render().to_string(),
                to_stderr: e.use_stderr(),
                code,
            }
        }
    }
}

/// The invocation `build` makes of the `--report` files of subcommand `name`, or the usage
/// error their pairing is.
fn with_reports(
    matches: &clap::ArgMatches,
    name: &str,
    build: impl FnOnce(Vec<(PathBuf, ReportFormat)>) -> Invocation,
) -> Invocation {
    let sub = matches
        .subcommand_matches(name)
        .expect("the subcommand was parsed");
    match reports_of(sub) {
        Ok(reports) => build(reports),
        Err(message) => Invocation::Exit {
            text: format!("error: {message}\n\nFor more information, try '--help'.\n"),
            to_stderr: true,
            code: 2,
        },
    }
}

/// The `--report` files of a run, each with its format (docs/cli.md, `--report`): a
/// `--report-format` applies to the `--report` before it on the command line; a `--report`
/// no format follows is json.
fn reports_of(matches: &clap::ArgMatches) -> Result<Vec<(PathBuf, ReportFormat)>, String> {
    let reports: Vec<(usize, PathBuf)> = match (
        matches.indices_of("report"),
        matches.get_many::<PathBuf>("report"),
    ) {
        (Some(indices), Some(values)) => indices.zip(values.cloned()).collect(),
        _ => Vec::new(),
    };
    let formats: Vec<(usize, ReportFormat)> = match (
        matches.indices_of("report_format"),
        matches.get_many::<ReportFormatArg>("report_format"),
    ) {
        (Some(indices), Some(values)) => indices.zip(values.map(|f| (*f).into())).collect(),
        _ => Vec::new(),
    };
    pair_reports(&reports, &formats)
}

/// Pairs each format with the nearest report before it (positions are argv indices).
fn pair_reports(
    reports: &[(usize, PathBuf)],
    formats: &[(usize, ReportFormat)],
) -> Result<Vec<(PathBuf, ReportFormat)>, String> {
    let mut chosen: Vec<Option<ReportFormat>> = vec![None; reports.len()];
    for &(at, format) in formats {
        let Some(i) = reports.iter().rposition(|(r, _)| *r < at) else {
            return Err(format!(
                "--report-format {} comes before any --report: give it after the --report FILE it is for",
                format.name()
            ));
        };
        if let Some(earlier) = chosen[i] {
            return Err(format!(
                "--report {} has two formats ({} and {}): give one --report FILE per format",
                reports[i].1.display(),
                earlier.name(),
                format.name()
            ));
        }
        chosen[i] = Some(format);
    }
    Ok(reports
        .iter()
        .zip(chosen)
        .map(|((_, path), format)| (path.clone(), format.unwrap_or(ReportFormat::Json)))
        .collect())
}

/// `--jobs N`: a positive number of threads.
fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("--jobs needs at least one thread (omit it to use every core)".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text:?} is not a number of threads")),
    }
}

fn default_args() -> RunArgs {
    match Cli::parse_from(["kadmit", "transform"]).command {
        Command::Transform(a) => a,
        _ => unreachable!("parsed `transform`"),
    }
}

/// `kadmit diff`: a transform run that keeps each resource as read and as admitted.
fn diff_invocation(
    d: DiffArgs,
    reports: Vec<(PathBuf, ReportFormat)>,
    plugin_config: Option<PathBuf>,
) -> Invocation {
    if d.run.output.is_some() {
        return Invocation::Exit {
            text: "error: --output does not apply to `kadmit diff`: it writes a diff, not a stream"
                .to_owned(),
            to_stderr: true,
            code: 2,
        };
    }
    match run_invocation(Mode::Transform, d.run, reports, false, plugin_config) {
        Invocation::Run {
            mut options,
            reports,
            infer_mode_from_stdin,
            quiet,
            ..
        } => {
            options.keep_admitted = true;
            Invocation::Run {
                options,
                reports,
                infer_mode_from_stdin,
                diff: Some(d.color),
                quiet,
            }
        }
        other => other,
    }
}

fn run_invocation(
    mode: Mode,
    a: RunArgs,
    reports: Vec<(PathBuf, ReportFormat)>,
    infer: bool,
    plugin_config: Option<PathBuf>,
) -> Invocation {
    let config_root = std::env::var_os("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let quiet = a.quiet;
    Invocation::Run {
        options: Options {
            mode,
            inputs: a.filename,
            recursive: a.recursive,
            old_inputs: a.old,
            format: a.output.map(Format::from),
            config_paths: a.config,
            crd_paths: a.crd,
            field_validation: a.field_validation.into(),
            config_validation: a.config_validation.into(),
            write_defaults: !a.no_defaults,
            plugin_config,
            config_root,
            keep_config: a.keep_config,
            namespace: a.namespace,
            operation: a.operation.into(),
            annotate: a.annotate,
            allow_paths_outside_root: a.allow_paths_outside_root,
            allow_exec: a.allow_exec,
            allow_empty: a.allow_empty,
            kubernetes_version: a.kubernetes_version,
            builtins: !a.no_builtins,
            limits: kadmit_yaml::Limits {
                max_nodes: a.max_document_nodes,
            },
            skip_unsupported: a.skip_unsupported,
            cluster_modrules_namespace: a.cluster_modrules_namespace,
            strict: a.strict,
            gatekeeper_annotations: a.gatekeeper_annotations,
            plugin_dirs: a.plugin_dir,
            environment_plugin_roots: environment_plugin_roots(),
            user: a.user,
            groups: a.group,
            keep_admitted: false,
            // Subjects cost more than a small document each: held only for reports.
            keep_subjects: !reports.is_empty(),
            jobs: a.jobs.unwrap_or_else(crate::run::available_jobs),
        },
        reports,
        infer_mode_from_stdin: infer,
        diff: None,
        quiet,
    }
}

pub fn help_text() -> String {
    use clap::CommandFactory;
    Cli::command().render_help().to_string()
}

/// `kadmit man [SUBCOMMAND…]`: the page, or why there is none.
pub fn man_page(subcommand: &[String]) -> Result<String, String> {
    man::page(subcommand)
}

/// `kadmit man --out-dir DIR`: every page written there.
pub fn write_man_pages(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    man::write_all(dir)
}

/// `kadmit module …`: the process exit code.
pub fn execute_module(command: module::ModuleCommand) -> i32 {
    module::execute(command)
}

/// The variable that lists generator plugin roots, searched after `--plugin-dir`.
pub const PLUGIN_PATH_VARIABLE: &str = "KADMIT_PLUGIN_PATH";

/// The plugin roots the environment names, in search order: `KADMIT_PLUGIN_PATH`, then
/// `$XDG_CONFIG_HOME/kustomize/plugins` (default `~/.config`), as kustomize finds plugins.
pub fn environment_plugin_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(list) = std::env::var_os(PLUGIN_PATH_VARIABLE) {
        roots.extend(std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()));
    }
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")));
    if let Some(config_home) = xdg {
        roots.push(config_home.join("kustomize").join("plugins"));
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_report_format_applies_to_the_report_before_it() {
        let reports = [(2, PathBuf::from("a")), (6, PathBuf::from("b"))];
        let paired = pair_reports(&reports, &[(4, ReportFormat::Markdown)]).unwrap();
        assert_eq!(
            paired,
            [
                (PathBuf::from("a"), ReportFormat::Markdown),
                (PathBuf::from("b"), ReportFormat::Json)
            ]
        );
        assert!(pair_reports(&reports, &[(1, ReportFormat::Sarif)]).is_err());
        assert!(pair_reports(
            &reports,
            &[(3, ReportFormat::Sarif), (4, ReportFormat::Junit)]
        )
        .is_err());
        let parsed = detect(
            &args(&[
                "transform",
                "--report",
                "a",
                "--report",
                "b",
                "--report-format",
                "sarif",
            ]),
            false,
        );
        let Invocation::Run { reports, .. } = parsed else {
            panic!("a run");
        };
        assert_eq!(
            reports,
            [
                (PathBuf::from("a"), ReportFormat::Json),
                (PathBuf::from("b"), ReportFormat::Sarif)
            ]
        );
    }

    #[test]
    fn subcommands_and_unknown_ones() {
        assert!(
            matches!(detect(&args(&["transform"]), false), Invocation::Run { options, .. } if options.mode == Mode::Transform)
        );
        assert!(matches!(
            detect(&args(&["version"]), true),
            Invocation::Version
        ));
        assert!(matches!(
            detect(&args(&["frobnicate"]), false),
            Invocation::Exit { code: 127, .. }
        ));
        assert!(matches!(
            detect(&[], true),
            Invocation::Exit { code: 127, .. }
        ));
        assert!(
            matches!(detect(&[], false), Invocation::Run { options, .. } if options.mode == Mode::Krm)
        );
    }

    #[test]
    fn diff_keeps_what_it_shows_and_reads_its_colour_choice() {
        match detect(&args(&["diff", "--color", "never", "-n", "shop"]), false) {
            Invocation::Run { options, diff, .. } => {
                assert_eq!(diff, Some(ColorArg::Never));
                assert!(options.keep_admitted);
                assert_eq!(options.mode, Mode::Transform);
                assert_eq!(options.namespace, "shop");
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(detect(&args(&["transform"]), false), Invocation::Run { options, diff: None, .. } if !options.keep_admitted)
        );
        assert!(matches!(
            detect(&args(&["diff", "-o", "json"]), false),
            Invocation::Exit { code: 2, .. }
        ));
        let set = Some(std::ffi::OsStr::new("1"));
        let empty = Some(std::ffi::OsStr::new(""));
        assert!(ColorArg::Auto.enabled(true, None));
        assert!(ColorArg::Auto.enabled(true, empty));
        assert!(!ColorArg::Auto.enabled(true, set));
        assert!(!ColorArg::Auto.enabled(false, None));
        assert!(ColorArg::Always.enabled(false, set));
        assert!(!ColorArg::Never.enabled(true, None));
    }

    #[test]
    fn legacy_plugin_config_file() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().to_str().unwrap();
        match detect(&args(&[path]), false) {
            Invocation::Run {
                options,
                infer_mode_from_stdin,
                ..
            } => {
                assert!(infer_mode_from_stdin);
                assert_eq!(options.plugin_config.as_deref(), Some(file.path()));
            }
            other => panic!("{other:?}"),
        }
        match detect(&args(&[path, "generate", "--operation", "UPDATE"]), false) {
            Invocation::Run {
                options,
                infer_mode_from_stdin,
                ..
            } => {
                assert!(!infer_mode_from_stdin);
                assert_eq!(options.mode, Mode::Generate);
                assert_eq!(options.operation, Operation::Update);
            }
            other => panic!("{other:?}"),
        }
    }
}
