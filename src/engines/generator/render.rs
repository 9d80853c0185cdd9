//! A generator's templates compiled once, rendered per virtual resource; errors name the
//! template and the line. Each template is compiled as written (for Tera's own errors),
//! then rewritten to call the budget ([`super::instrument`]), so that every render stops
//! at the limits of [`super::budget`].

use super::budget::{self, Budget, Limits, Output};
use super::definition::TemplateSource;
use super::helpers::{self, FileRoots, SharedRoots};
use super::instrument;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tera::{Context, ErrorKind, Tera};

pub struct Templates {
    tera: Tera,
    names: Vec<String>,
    roots: SharedRoots,
    budget: Arc<Budget>,
}

/// One rendered template.
pub struct Rendered<'a> {
    pub template: &'a str,
    pub text: String,
}

impl Templates {
    /// Parses every template; a syntax error names the template and line.
    pub fn compile(sources: &[TemplateSource]) -> Result<Templates, Vec<String>> {
        Templates::compile_with(sources, Limits::default())
    }

    pub fn compile_with(
        sources: &[TemplateSource],
        limits: Limits,
    ) -> Result<Templates, Vec<String>> {
        let roots: SharedRoots = Arc::new(Mutex::new(FileRoots::default()));
        let budget = Budget::new(limits);
        let mut tera = Tera::new();
        // Output is YAML whatever the template's file name: never HTML-escaped.
        tera.autoescape_on(Vec::<&'static str>::new());
        helpers::register(&mut tera, roots.clone());
        budget::register(&mut tera, budget.clone());
        let mut problems = Vec::new();
        for source in sources {
            // One at a time, so each error belongs to a known template.
            if let Err(e) = tera.add_raw_template(&source.name, &source.text) {
                problems.push(describe(&e, &source.name));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let unreadable = |name: &str, e: String| {
            format!(
                "template {name} {e} (kadmit cannot meter this template, so it does not render it)"
            )
        };
        let mut sizes = HashMap::new();
        for source in sources {
            match instrument::weight(&source.text) {
                Ok(n) => {
                    sizes.insert(source.name.clone(), n);
                }
                Err(e) => problems.push(unreadable(&source.name, e)),
            }
        }
        let mut metered = Vec::new();
        for source in sources {
            match instrument::instrument(&source.text, &sizes) {
                Ok(text) => metered.push((source.name.as_str(), text)),
                Err(e) if e.contains("kadmit's limit") => {
                    problems.push(format!("template {} {e}", source.name))
                }
                Err(e) => problems.push(unreadable(&source.name, e)),
            }
        }
        if problems.is_empty() {
            if let Err(e) = tera.add_raw_templates(metered) {
                problems.push(describe(&e, "(metered)"));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Templates {
            tera,
            names: sources.iter().map(|s| s.name.clone()).collect(),
            roots,
            budget,
        })
    }

    /// Renders every template in definition order with `context`; `file()` reads within
    /// `roots`. The first failing template stops the render, and so does passing a limit
    /// of the budget (all the templates of one render share it).
    pub fn render(&self, context: &Context, roots: FileRoots) -> Result<Vec<Rendered<'_>>, String> {
        *self
            .roots
            .lock()
            .map_err(|_| "the render state is unavailable")? = roots;
        self.budget.start();
        let mut out = Vec::with_capacity(self.names.len());
        for name in &self.names {
            let mut output = Output::new(&self.budget);
            if let Err(e) = self.tera.render_to(name, context, &mut output) {
                return Err(match (e.kind(), self.budget.exceeded()) {
                    // The capped writer's refusal reaches Tera as an I/O error.
                    (ErrorKind::Io(_), Some(limit)) => format!("template {name}: {limit}"),
                    _ => describe(&e, name),
                });
            }
            let text = String::from_utf8(output.bytes)
                .map_err(|_| format!("template {name}: the output is not UTF-8"))?;
            out.push(Rendered {
                template: name,
                text,
            });
        }
        Ok(out)
    }
}

/// `template T line L: message`, from Tera's report when it has one.
fn describe(error: &tera::Error, template: &str) -> String {
    match error.kind() {
        ErrorKind::SyntaxError(report) | ErrorKind::RenderingError(report) => {
            let file = if report.filename().is_empty() {
                template
            } else {
                report.filename()
            };
            let span = report.span();
            format!(
                "template {file} line {}: {}",
                span.start_line,
                full_message(report.message(), error)
            )
        }
        _ => format!(
            "template {template}: {}",
            full_message(&error.to_string(), error)
        ),
    }
}

/// The message with the causes Tera chains under it (a filter's own error).
fn full_message(message: &str, error: &tera::Error) -> String {
    let mut text = message.to_owned();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn templates(text: &str) -> Result<Templates, Vec<String>> {
        Templates::compile(&[TemplateSource {
            name: "t.yaml.tera".into(),
            text: text.into(),
        }])
    }

    fn render(text: &str, data: serde_json::Value) -> Result<String, String> {
        let t = templates(text).map_err(|e| e.join("; "))?;
        let context = Context::from_serialize(&data).unwrap();
        let rendered = t.render(&context, FileRoots::default())?;
        Ok(rendered.into_iter().map(|r| r.text).collect())
    }

    #[test]
    fn renders_with_helpers() {
        let out = render(
            "a: {{ spec.a | quote }}\nb: {{ spec.b | to_json }}\nc:\n  {{ spec.c | to_yaml | indent(width=2) }}",
            json!({"spec": {"a": "yes", "b": {"x": 1}, "c": {"k": ["v"]}}}),
        )
        .unwrap();
        assert_eq!(out, "a: \"yes\"\nb: {\"x\":1}\nc:\n  k:\n  - v");
    }

    #[test]
    fn templates_named_like_html_are_not_escaped() {
        let t = Templates::compile(&[TemplateSource {
            name: "cm.xml".into(),
            text: "a: {{ v | quote }}".into(),
        }])
        .unwrap();
        let context = Context::from_serialize(&json!({"v": "<b>&\"x\"</b>"})).unwrap();
        let out = t.render(&context, FileRoots::default()).unwrap();
        assert_eq!(out[0].text, r#"a: "<b>&\"x\"</b>""#);
    }

    #[test]
    fn syntax_errors_name_template_and_line() {
        let e = templates("a: 1\nb: {{ spec.a \n").err().unwrap();
        assert!(e[0].starts_with("template t.yaml.tera line 2"), "{e:?}");
    }

    #[test]
    fn missing_variables_name_the_line() {
        let e = render(
            "a: 1\n\nb: {{ spec.missing.deeper }}\n",
            json!({"spec": {}}),
        )
        .unwrap_err();
        assert!(e.starts_with("template t.yaml.tera line 3"), "{e}");
    }

    #[test]
    fn clock_random_and_environment_are_refused() {
        for f in [
            "now()",
            "get_random(start=1, end=5)",
            "get_env(name=\"HOME\")",
        ] {
            let e = render(&format!("x: {{{{ {f} }}}}"), json!({})).unwrap_err();
            assert!(e.contains("is disabled"), "{f}: {e}");
            assert!(e.starts_with("template t.yaml.tera line 1"), "{e}");
        }
    }

    /// Renders `text` as written (with the helpers, without the budget) and metered.
    fn both(
        text: &str,
        data: &serde_json::Value,
    ) -> (Result<String, String>, Result<String, String>) {
        let mut plain = Tera::new();
        plain.autoescape_on(Vec::<&'static str>::new());
        helpers::register(&mut plain, Arc::new(Mutex::new(FileRoots::default())));
        let context = Context::from_serialize(data).unwrap();
        let plain = plain
            .add_raw_template("t.yaml.tera", text)
            .and_then(|()| plain.render("t.yaml.tera", &context))
            .map_err(|e| describe(&e, "t.yaml.tera"));
        (plain, render(text, data.clone()))
    }

    #[test]
    fn metering_does_not_change_what_templates_render() {
        let data = json!({"spec": {"items": ["a", "b\"", "c"], "m": {"k": 1, "j": [1, 2]},
            "n": 3, "s": "x-y-z", "empty": []}});
        for text in [
            "{%- for i in spec.items -%}\n  - {{ i }}\n{%- endfor %}\nend",
            "{% for k, v in spec.m %}{{ k }}={{ v }};{% else %}none{% endfor %}",
            "{% for i in spec.empty %}x{% else %}empty {{ spec.n }}{% endfor %}",
            "{% for i in range(end=spec.n) %}{% if loop.first %}[{% endif %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}]",
            "{% for i in spec.items %}{% if i == 'b\"' %}{% continue %}{% endif %}{{ i }}{% if i == 'c' %}{% break %}{% endif %}{% endfor %}",
            "{{ [x ~ '!' for x in spec.items if x != 'a'] }} {{ [1, 2, ...spec.m.j] }} {{ {\"a\": spec.n, ...spec.m} }}",
            "{% set l = [spec.s, spec.n] %}{% set_global g = l | length %}{{ l }} {{ g }}",
            "{% set block -%}\n  {{ spec.s | upper }}\n{%- endset %}<{{ block }}>",
            "{% filter upper %}{{ spec.s }} text{% endfilter %}",
            "{{ spec.s | replace(from='-', to='+') }} {{ spec.items | join(sep=', ') }} {{ spec.s | indent(width=2, first=true) }}",
            "{{ spec.items | unique | reverse | str }} {{ spec.m | str }} {{ 'a\nb\n' | indent(indentation='*', blank=true) }}",
            "{% raw %}{{ not rendered }}{% endraw %} {# {{ comment }} #} {{ \"}}\" ~ '%}' }}",
            "{{ spec.m.j[1] }} {{ spec.items[0:2] }} {{ spec.m?.missing | default(value='-') }} {{ spec.s if spec.n > 2 else 'no' }}",
            "{% component Tag(name, value=\"v\") %}<{{ name }}={{ value }}>{% endcomponent %}{{ <Tag name=\"a\" /> }}{% <Tag name={spec.s}> %}body{% </Tag> %}",
            "{{ spec.missing }}",
            "a\n{% for i in spec.n %}{% endfor %}",
            "{{ range(end=3) | join(sep='-') }} {{ range(start=5, end=0, step_by=-2) }}",
            "{% for i in spec.items | sort | reverse %}{{ loop.index }}:{{ i }} {% endfor %}",
            "{% set up | upper | replace(from='X', to='+') %}x-{{ spec.s }}{% endset %}[{{ up }}]",
            "{{ spec.missing | default(value=[1, {\"k\": spec.n}]) | to_json }} {{ {\"a\": [1, {\"b\": spec.s}]} | to_json }}",
            "{% if spec.s is string and spec.s is containing(pat=\"y\") and spec.n in [1, 3] %}yes{% elif spec.n %}n{% else %}no{% endif %}",
            "{{ \"a\\\"b\" ~ 'c\\'d' }} {%- raw -%} {{ x }} {%- endraw -%} {#- c -#} end",
            "{% set_global g = 0 %}{% for i in range(end=3) %}{% set_global g = g + i %}{% endfor %}{{ g }}",
        ] {
            let (plain, metered) = both(text, &data);
            assert_eq!(plain, metered, "{text}");
        }
    }

    #[test]
    fn includes_are_metered_and_render_the_same() {
        // Tera checks an include when the including template is added: the part first.
        let t = Templates::compile(&[
            TemplateSource {
                name: "part".into(),
                text: "[{{ spec.n }}]".into(),
            },
            TemplateSource {
                name: "main".into(),
                text: "a {%- include \"part\" %} b".into(),
            },
        ])
        .unwrap_or_else(|e| panic!("{e:?}"));
        let context = Context::from_serialize(&json!({"spec": {"n": 1}})).unwrap();
        let out = t.render(&context, FileRoots::default()).unwrap();
        assert_eq!(out[1].text, "a[1] b");
    }

    /// The limits scaled down a hundredfold (the text tenfold), so that a debug build
    /// reaches them quickly; `tests/generator_cli.rs` runs the real ones.
    const SMALL: Limits = Limits {
        steps: 10_000,
        output: 40_000,
        value: 40_000,
        text: 6_400_000,
        time: budget::MAX_TIME,
    };

    /// A render that runs away stops at a limit, as an error naming the template.
    fn stops(text: &str, data: serde_json::Value, expected: &str) {
        let t = Templates::compile_with(
            &[TemplateSource {
                name: "t.yaml.tera".into(),
                text: text.into(),
            }],
            SMALL,
        )
        .unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let context = Context::from_serialize(&data).unwrap();
        let e = t.render(&context, FileRoots::default()).err();
        let e = e.unwrap_or_else(|| panic!("{text}: rendered"));
        assert!(
            e.starts_with("template t.yaml.tera") && e.contains(expected),
            "{text}: {e}"
        );
    }

    #[test]
    fn loops_comprehensions_and_fan_outs_stop_at_the_step_limit() {
        let steps = "template execution exceeded 10000 steps";
        let r = "{% set r = range(end=1000) %}";
        stops(
            &format!("{r}{{% for i in r %}}{{% for j in r %}}{{% endfor %}}{{% endfor %}}"),
            json!({}),
            steps,
        );
        stops(
            &format!("{r}{{{{ [[j for j in r] for i in r] | length }}}}"),
            json!({}),
            steps,
        );
        stops(
            "{% for i in range(end=1000) %}{% set x = range(end=1000) %}{% endfor %}",
            json!({}),
            steps,
        );
        stops("{{ range(end=1000) | unique | length }}", json!({}), steps);
        // Components calling each other ten times, twenty deep.
        let mut components = String::from("{% component C0() %}x{% endcomponent %}");
        for i in 1..20 {
            let calls = format!("{{{{ <C{} /> }}}}", i - 1).repeat(10);
            components.push_str(&format!(
                "{{% component C{i}() %}}{calls}{{% endcomponent %}}"
            ));
        }
        stops(&format!("{components}{{{{ <C19 /> }}}}"), json!({}), steps);
    }

    #[test]
    fn text_and_values_stop_at_their_limits() {
        let text = "more than 6400000 bytes of text and values";
        let value = "a value is larger than 40000 bytes";
        let big = json!({"big": "a".repeat(10_000)});
        // Captured text does not reach the output: it is counted as it is made.
        stops(
            "{% set x %}{% for i in range(end=1000) %}{{ big }}{% endfor %}{% endset %}",
            big.clone(),
            text,
        );
        stops(
            "{% set x %}{% for i in range(end=1000) %}{{ big ~ big }}{% endfor %}{% endset %}",
            big.clone(),
            text,
        );
        stops(
            "{% set s = 'ab' %}{% for i in range(end=64) %}{% set_global s = s ~ s %}{% endfor %}",
            json!({}),
            value,
        );
        stops(
            "{{ big | replace(from='a', to=big) | length }}",
            big.clone(),
            value,
        );
        stops(
            "{{ range(end=50) | join(sep=big) | length }}",
            big.clone(),
            value,
        );
        stops(
            "{{ big | indent(width=1000) | replace(from='a', to='\naa') | indent(width=1000) }}",
            big.clone(),
            value,
        );
        // Each round doubles the backslashes: Tera prints strings in lists escaped.
        let chain = format!(
            "{{{{ s{} | length }}}}",
            " | split(pat='x') | str".repeat(20)
        );
        stops(&chain, json!({"s": "\\".repeat(15_000)}), value);
        stops(
            &format!("{{{{ [{}] | length }}}}", "s, ".repeat(20)),
            json!({"s": "\\".repeat(1_000_000)}),
            "a value is larger than 40000 bytes",
        );
    }

    #[test]
    fn chained_helpers_stop_at_the_value_limit() {
        // Each `to_json` doubles the quotes; the real limit, as helpers check it.
        let chain = format!("{{{{ s{} | length }}}}", " | to_json".repeat(20));
        let e = render(&chain, json!({"s": "\"".repeat(1_500_000)})).unwrap_err();
        assert!(e.contains("a value is larger than 4194304 bytes"), "{e}");
    }

    #[test]
    fn the_output_and_the_time_are_limited() {
        stops(
            "{% for i in range(end=1000) %}{{ big }}{% endfor %}",
            json!({"big": "a".repeat(100)}),
            "template output exceeds 40000 bytes",
        );
        let t = Templates::compile_with(
            &[TemplateSource {
                name: "t.yaml.tera".into(),
                text: "{% for i in range(end=10) %}{% endfor %}".into(),
            }],
            Limits {
                time: std::time::Duration::ZERO,
                ..Limits::default()
            },
        )
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let e = t
            .render(&Context::new(), FileRoots::default())
            .err()
            .unwrap();
        assert!(e.contains("template execution took longer than 0s"), "{e}");
    }
}
