//! A generator's templates compiled once, rendered per virtual resource; errors name the
//! template and the line.

use super::definition::TemplateSource;
use super::helpers::{self, FileRoots, SharedRoots};
use std::sync::{Arc, Mutex};
use tera::{Context, ErrorKind, Tera};

pub struct Templates {
    tera: Tera,
    names: Vec<String>,
    roots: SharedRoots,
}

/// One rendered template.
pub struct Rendered<'a> {
    pub template: &'a str,
    pub text: String,
}

impl Templates {
    /// Parses every template; a syntax error names the template and line.
    pub fn compile(sources: &[TemplateSource]) -> Result<Templates, Vec<String>> {
        let roots: SharedRoots = Arc::new(Mutex::new(FileRoots::default()));
        let mut tera = Tera::new();
        // Output is YAML whatever the template's file name: never HTML-escaped.
        tera.autoescape_on(Vec::<&'static str>::new());
        helpers::register(&mut tera, roots.clone());
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
        Ok(Templates {
            tera,
            names: sources.iter().map(|s| s.name.clone()).collect(),
            roots,
        })
    }

    /// Renders every template in definition order with `context`; `file()` reads within
    /// `roots`. The first failing template stops the render.
    pub fn render(&self, context: &Context, roots: FileRoots) -> Result<Vec<Rendered<'_>>, String> {
        *self
            .roots
            .lock()
            .map_err(|_| "the render state is unavailable")? = roots;
        let mut out = Vec::with_capacity(self.names.len());
        for name in &self.names {
            let text = self
                .tera
                .render(name, context)
                .map_err(|e| describe(&e, name))?;
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
}
