//! The example server must compile: it is the project's demo and the README's first command.

use std::process::Command;

#[test]
fn seed_server_example_compiles() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(root)
        .args([
            "check",
            "--locked",
            "--quiet",
            "--manifest-path",
            "examples/seed-server/Cargo.toml",
            "--target-dir",
            "target/seed-server-check",
        ])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo check of examples/seed-server failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
