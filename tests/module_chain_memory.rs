//! Memory stays in proportion to the input on a deep chain of module files (issue 30). Alone in
//! its test binary: the peak it measures is that of the one child this process runs.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

mod support;

use support::write;

/// The largest resident set of the children this process waited for, in bytes.
#[cfg(target_os = "linux")]
fn children_peak_memory() -> u64 {
    // SAFETY: `getrusage` only writes the struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        (usage.ru_maxrss as u64) * 1024
    }
}

/// A chain of ten thousand `#[path]` module files (a few hundred KB in all): the module tree is
/// followed 64 levels deep (a finding says where it stopped), so memory stays far under 1 GiB
/// (it took 1.6 GB, and twenty thousand files ran out of memory).
#[cfg(target_os = "linux")]
#[test]
fn a_deep_chain_of_module_files_costs_memory_by_the_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"ch\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let n = 10_000;
    write(&root.join("src/lib.rs"), "#[path = \"m1.rs\"]\nmod m;\n");
    for i in 1..n {
        write(
            &root.join(format!("src/m{i}.rs")),
            &format!("#[path = \"m{}.rs\"]\nmod m;\n", i + 1),
        );
    }
    write(
        &root.join(format!("src/m{n}.rs")),
        "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"Request cancelled\");\n}\n",
    );
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(root)
        .args(["mcp-lint", "--no-cache", "--format", "concise"])
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The gate still fails: the tree it did not follow is a finding.
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("nested 64 levels deep"), "{stdout}");
    let peak = children_peak_memory();
    assert!(peak < 512 << 20, "{} MiB", peak >> 20);
}
