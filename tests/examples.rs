//! The bundled examples produce what their expected files say (the README runs them).

use assert_cmd::Command;

/// examples/basic shows the reading alone (YAML 1.1 scalars, merge keys, Lists): with no
/// rules, kadmit writes exactly what kubectl would send. `--no-defaults` keeps the native
/// defaults of the Deployment and the Secret out of it, which would bury what the example
/// shows. Regenerate with
/// `kadmit transform --no-defaults < examples/basic/resources.yaml > examples/basic/expected.yaml`.
#[test]
fn basic_example_output_is_as_committed() {
    let root = env!("CARGO_MANIFEST_DIR");
    let input = std::fs::read(format!("{root}/examples/basic/resources.yaml")).unwrap();
    let expected = std::fs::read_to_string(format!("{root}/examples/basic/expected.yaml")).unwrap();
    Command::cargo_bin("kadmit")
        .unwrap()
        .args(["transform", "--no-defaults"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout(expected);
}
