//! The bundled examples produce what their expected files say (the README runs them).

use assert_cmd::Command;

#[test]
fn basic_example_output_is_as_committed() {
    let root = env!("CARGO_MANIFEST_DIR");
    let input = std::fs::read(format!("{root}/examples/basic/resources.yaml")).unwrap();
    let expected = std::fs::read_to_string(format!("{root}/examples/basic/expected.yaml")).unwrap();
    Command::cargo_bin("kadmit")
        .unwrap()
        .arg("transform")
        .write_stdin(input)
        .assert()
        .success()
        .stdout(expected);
}
