//! The expression-bearing lists of a policy spec (validation.go `validateMatchConditions`,
//! `validateVariable`, `validateValidation`, `validateAuditAnnotation`), with the CEL
//! compilation of their expressions (`kadmit_schema::cel::expression`).
//!
//! Each function is handed the policy's [`Scope`]: `params` is declared only when the
//! policy has a `spec.paramKind` (`undeclared reference to 'params'` otherwise), and
//! validations, messageExpressions and auditAnnotations see the policy's variables with
//! their types (`undefined field` for any other). MAP mutation expressions are checked in
//! `policy` and are not compiled yet.

use super::gofmt::{duplicate, invalid_rendered, not_supported};
use super::{opt_str, str_at};
use kadmit_go::strconv::quote;
use kadmit_schema::cel::expression::{compile, Declarations, ResultType, VariablesDecl};
use kadmit_schema::cel::is_identifier;
use kadmit_schema::field_error::{ErrorType, FieldError};
use kadmit_schema::objectmeta::qualified_name_errors;
use serde_json::Value;

/// `maxAuditAnnotations`.
const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// `maxAuditAnnotationValueExpressionLength` (5 KiB).
const MAX_VALUE_EXPRESSION_LENGTH: usize = 5 * 1024;
/// The limit of `validateMatchConditions`.
const MAX_MATCH_CONDITIONS: usize = 64;
/// `supportedValidationPolicyReason.List()` (sorted). The API docs also name
/// `Unauthorized`; validation.go (@afd5df58 and later reads) does not accept it.
const REASONS: [&str; 3] = ["Forbidden", "Invalid", "RequestEntityTooLarge"];

/// `convertCELErrorToValidationError` of compiling `source` (the field's text as the error
/// shows it: `shown`) in `declarations`, with the return types of the field.
fn compile_check(
    source: &str,
    shown: &str,
    declarations: &Declarations,
    returns: &[ResultType],
    path: &str,
    errors: &mut Vec<FieldError>,
) -> ResultType {
    match compile(source, declarations) {
        Ok(program) => {
            if let Err(reason) = program.check_output(returns) {
                errors.push(FieldError::invalid(path, Value::from(shown), reason));
            }
            program.output_type()
        }
        Err(e) if e.internal => {
            errors.push(FieldError::new(
                ErrorType::Internal,
                path,
                Value::Null,
                e.detail,
            ));
            ResultType::Dyn
        }
        Err(e) => {
            errors.push(FieldError::invalid(path, Value::from(shown), e.detail));
            ResultType::Dyn
        }
    }
}

/// What a policy's expressions may reference.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The policy has a `spec.paramKind`: `params` is declared.
    pub params: bool,
    /// The policy's `spec.variables`, with the type each compiles to.
    pub variables: Vec<(String, ResultType)>,
}

/// The environment of validations, messageExpressions and auditAnnotations; no authorizer
/// in messageExpressions.
fn policy_env(scope: &Scope, authorizer: bool) -> Declarations {
    Declarations::admission(scope.params, authorizer)
        .with_variables(VariablesDecl::Fields(scope.variables.clone()))
}

/// Go's `strings.TrimSpace` (Unicode white space).
fn trim(s: &str) -> &str {
    s.trim()
}

/// `validateMatchConditions`.
pub fn match_conditions(list: &[Value], path: &str, scope: &Scope, errors: &mut Vec<FieldError>) {
    if list.len() > MAX_MATCH_CONDITIONS {
        errors.push(FieldError::new(
            ErrorType::TooMany,
            path,
            Value::from(list.len()),
            format!("must have at most {MAX_MATCH_CONDITIONS} items"),
        ));
    }
    let mut names: Vec<&str> = Vec::new();
    for (i, mc) in list.iter().enumerate() {
        let at = format!("{path}[{i}]");
        // validateMatchCondition: the expression (trimmed, then compiled), then the name.
        let expression = trim(str_at(mc, "expression"));
        if expression.is_empty() {
            errors.push(FieldError::required(format!("{at}.expression"), ""));
        } else {
            compile_check(
                expression,
                expression,
                &Declarations::admission(scope.params, true),
                &[ResultType::Bool],
                &format!("{at}.expression"),
                errors,
            );
        }
        let name = str_at(mc, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), ""));
        } else {
            for msg in qualified_name_errors(name) {
                errors.push(FieldError::invalid(
                    format!("{at}.name"),
                    Value::from(name),
                    msg,
                ));
            }
            if names.contains(&name) {
                errors.push(duplicate(&format!("{at}.name"), name));
            } else {
                names.push(name);
            }
        }
    }
}

/// `validateVariable`: the name a CEL identifier, an expression present that compiles with
/// the earlier variables declared. Returns the variables with their types.
pub fn variables(
    list: &[Value],
    path: &str,
    params: bool,
    errors: &mut Vec<FieldError>,
) -> Vec<(String, ResultType)> {
    let mut declared: Vec<(String, ResultType)> = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let name = str_at(v, "name");
        if trim(name).is_empty() {
            errors.push(FieldError::required(
                format!("{at}.name"),
                "name is not specified",
            ));
        } else if !is_identifier(name) {
            errors.push(FieldError::invalid(
                format!("{at}.name"),
                Value::from(name),
                "name is not a valid CEL identifier",
            ));
        }
        let expression = str_at(v, "expression");
        let output = if trim(expression).is_empty() {
            errors.push(FieldError::required(
                format!("{at}.expression"),
                "expression is not specified",
            ));
            ResultType::Dyn
        } else {
            let env = Declarations::admission(params, true)
                .with_variables(VariablesDecl::Fields(declared.clone()));
            compile_check(
                expression,
                expression,
                &env,
                &[],
                &format!("{at}.expression"),
                errors,
            )
        };
        declared.push((name.to_owned(), output));
    }
    declared
}

/// `validateValidation`.
pub fn validation(v: &Value, path: &str, scope: &Scope, errors: &mut Vec<FieldError>) {
    let expression = str_at(v, "expression");
    if trim(expression).is_empty() {
        errors.push(FieldError::required(
            format!("{path}.expression"),
            "expression is not specified",
        ));
    } else {
        compile_check(
            expression,
            expression,
            &policy_env(scope, true),
            &[ResultType::Bool],
            &format!("{path}.expression"),
            errors,
        );
    }
    let message_expression = str_at(v, "messageExpression");
    if !message_expression.is_empty() && trim(message_expression).is_empty() {
        errors.push(FieldError::invalid(
            format!("{path}.messageExpression"),
            Value::from(message_expression),
            "must be non-empty if specified",
        ));
    } else if !message_expression.is_empty() {
        // Untrimmed, so that the compiler's columns are the field's.
        compile_check(
            message_expression,
            message_expression,
            &policy_env(scope, false),
            &[ResultType::String],
            &format!("{path}.messageExpression"),
            errors,
        );
    }
    let message = str_at(v, "message");
    let trimmed = trim(message);
    if !message.is_empty() && trimmed.is_empty() {
        errors.push(FieldError::invalid(
            format!("{path}.message"),
            Value::from(message),
            "message must be non-empty if specified",
        ));
    } else if trimmed.contains(['\n', '\r']) {
        errors.push(FieldError::invalid(
            format!("{path}.message"),
            Value::from(message),
            "message must not contain line breaks",
        ));
    }
    if let Some(reason) = opt_str(v, "reason") {
        if !REASONS.contains(&reason) {
            errors.push(not_supported(&format!("{path}.reason"), reason, &REASONS));
        }
    }
}

/// The auditAnnotations of a ValidatingAdmissionPolicy spec: count, each entry
/// (`validateAuditAnnotation`), unique keys.
pub fn audit_annotations(
    policy_name: &str,
    list: &[Value],
    path: &str,
    scope: &Scope,
    errors: &mut Vec<FieldError>,
) {
    if list.len() > MAX_AUDIT_ANNOTATIONS {
        let items: Vec<String> = list
            .iter()
            .map(|a| {
                format!(
                    "admissionregistration.AuditAnnotation{{Key:{}, ValueExpression:{}}}",
                    quote(str_at(a, "key"), false),
                    quote(str_at(a, "valueExpression"), false)
                )
            })
            .collect();
        errors.push(invalid_rendered(
            path,
            format!(
                "[]admissionregistration.AuditAnnotation{{{}}}",
                items.join(", ")
            ),
            &format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
        ));
    }
    let mut keys: Vec<&str> = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let key = str_at(a, "key");
        if policy_name.is_empty() {
            errors.push(FieldError::invalid(
                format!("{at}.key"),
                Value::from(key),
                "requires metadata.name be non-empty",
            ));
        } else {
            let full = format!("{policy_name}/{key}");
            for msg in qualified_name_errors(&full) {
                errors.push(FieldError::invalid(
                    format!("{at}.key"),
                    Value::from(full.as_str()),
                    msg,
                ));
            }
        }
        let untrimmed = str_at(a, "valueExpression");
        let value_expression = trim(untrimmed);
        if value_expression.is_empty() {
            errors.push(FieldError::required(
                format!("{at}.valueExpression"),
                "valueExpression is not specified",
            ));
        } else if value_expression.len() > MAX_VALUE_EXPRESSION_LENGTH {
            errors.push(FieldError::required(
                format!("{at}.valueExpression"),
                format!("must not exceed {MAX_VALUE_EXPRESSION_LENGTH} bytes in length"),
            ));
        } else {
            // Compiled trimmed, shown as written.
            compile_check(
                value_expression,
                untrimmed,
                &policy_env(scope, true),
                &[ResultType::String, ResultType::Null],
                &format!("{at}.valueExpression"),
                errors,
            );
        }
        if keys.contains(&key) {
            errors.push(duplicate(&format!("{at}.key"), key));
        }
        keys.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn match_conditions_compile_trimmed_to_bool() {
        let mut errors = Vec::new();
        let list = [
            json!({"name": "a", "expression": "  object.x in [1, 2, "}),
            json!({"name": "b", "expression": "'not a bool'"}),
            json!({"name": "c", "expression": "variables.x"}),
            json!({"name": "d", "expression": "request.operation == 'CREATE'"}),
        ];
        match_conditions(
            &list,
            "spec.matchConditions",
            &Scope::default(),
            &mut errors,
        );
        let texts = texts(&errors);
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[0].starts_with("spec.matchConditions[0].expression: Invalid value: \"object.x in [1, 2,\": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'"), "{}", texts[0]);
        assert_eq!(
            texts[1],
            "spec.matchConditions[1].expression: Invalid value: \"'not a bool'\": must evaluate to bool"
        );
        assert!(texts[2].ends_with("undeclared reference to 'variables' (in container '')"));
    }

    #[test]
    fn variables_see_only_earlier_variables() {
        let mut errors = Vec::new();
        let list = [
            json!({"name": "a", "expression": "variables.b + 1"}),
            json!({"name": "b", "expression": "1"}),
            json!({"name": "c", "expression": "variables.b + 'x'"}),
        ];
        variables(&list, "spec.variables", false, &mut errors);
        assert_eq!(
            texts(&errors),
            [
                "spec.variables[0].expression: Invalid value: \"variables.b + 1\": compilation failed: ERROR: <input>:1:10: undefined field 'b'",
                "spec.variables[2].expression: Invalid value: \"variables.b + 'x'\": compilation failed: ERROR: <input>:1:13: found no matching overload for '_+_' applied to '(int, string)'",
            ]
        );
    }

    #[test]
    fn message_expressions_have_no_authorizer() {
        let mut errors = Vec::new();
        let v = json!({"expression": "authorizer.group('').resource('pods').check('get').allowed()",
            "messageExpression": "string(authorizer)"});
        validation(&v, "spec.validations[0]", &Scope::default(), &mut errors);
        assert_eq!(
            texts(&errors),
            ["spec.validations[0].messageExpression: Invalid value: \"string(authorizer)\": compilation failed: ERROR: <input>:1:8: undeclared reference to 'authorizer' (in container '')"]
        );
    }

    #[test]
    fn audit_values_are_strings_or_null() {
        let mut errors = Vec::new();
        let list = [
            json!({"key": "a", "valueExpression": "null"}),
            json!({"key": "b", "valueExpression": "'v-' + object.metadata.name"}),
            json!({"key": "c", "valueExpression": "1 + 1"}),
        ];
        audit_annotations(
            "p",
            &list,
            "spec.auditAnnotations",
            &Scope::default(),
            &mut errors,
        );
        assert_eq!(
            texts(&errors),
            ["spec.auditAnnotations[2].valueExpression: Invalid value: \"1 + 1\": must evaluate to one of [string null_type]"]
        );
    }
}
