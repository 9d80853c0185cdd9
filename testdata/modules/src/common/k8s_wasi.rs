//! The k8s-wasi envelope: read `{"request": …, "settings": …}` from stdin,
//! run the use-case handler, write `{"response": …, "error": …}` to stdout.
//!
//! In a wasm module the exported function (`validate`, `authn`, `authz`)
//! calls `serve`. Built natively, `main` calls `native_main`, so the same
//! source is also an exec module run as `program <use-case>`.
#![allow(dead_code)]

use crate::json::{self, Value};
use std::io::{Read, Write};

/// Gets the request data and the settings (`None` when the key is absent
/// or null) and answers the response data, or an error message.
pub type Handler = fn(&Value, Option<&Value>) -> Result<Value, String>;

pub fn serve(handler: Handler) {
    let mut input = String::new();
    let output = match std::io::stdin().read_to_string(&mut input) {
        Ok(_) => answer(&input, handler),
        Err(e) => envelope(Err(format!("cannot read stdin: {}", e))),
    };
    let mut stdout = std::io::stdout();
    // A wasm export returns without std's exit-time flush: flush here.
    let _ = stdout.write_all(output.as_bytes()).and_then(|_| stdout.flush());
}

/// The whole exchange without I/O: input text in, output text out.
pub fn answer(input: &str, handler: Handler) -> String {
    let result = json::parse(input).and_then(|input| {
        let request = input.get("request").ok_or("the input has no \"request\"")?;
        let settings = input.get("settings").filter(|s| !s.is_null());
        handler(request, settings)
    });
    envelope(result)
}

/// Both keys are always written, as the k8s-wasi-rs crate does.
fn envelope(result: Result<Value, String>) -> String {
    let (response, error) = match result {
        Ok(response) => (response, Value::Null),
        Err(message) => (Value::Null, Value::String(message)),
    };
    let mut text = Value::object(vec![("response", response), ("error", error)]).to_json();
    text.push('\n');
    text
}

/// `program <use-case>`: anything else is a usage error (exit 2).
#[cfg(not(target_arch = "wasm32"))]
pub fn native_main(use_case: &str, handler: Handler) {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 2 && args[1] == use_case {
        serve(handler);
    } else {
        eprintln!("usage: {} {}   (k8s-wasi request JSON on stdin)", args[0], use_case);
        std::process::exit(2);
    }
}
