//! Safe fixes keep a `-D warnings` build green (issue 30): a std-only server that compiles
//! without a warning before its fix compiles without one after it (rustc, the toolchain's own).

use std::path::Path;
use std::process::Command;

mod support;

/// Compile `file` as a library with every warning an error; rustc's stderr when it fails.
fn compiles(file: &Path) -> Result<(), String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = file.with_extension("rmeta");
    let output = Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "lib",
            "-D",
            "warnings",
            "--emit=metadata",
        ])
        .arg("-o")
        .arg(&out)
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

const CASES: &[&str] = &[
    // A hook whose parameter only the send used.
    "use std::io::Write;\n\npub struct Server;\n\nimpl Server {\n    fn send_error(&self, id: u64, code: i64, message: &str) {\n        let _ = writeln!(std::io::stdout(), \"{{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":{id},\\\"error\\\":{{\\\"code\\\":{code},\\\"message\\\":\\\"{message}\\\"}}}}\");\n    }\n\n    pub fn respond(&self, id: u64) {\n        self.send_error(id, -32602, \"bad params\");\n    }\n\n    pub fn on_cancelled(&self, id: u64) {\n        self.send_error(id, -32800, \"Request cancelled\");\n    }\n}\n",
    // `let`s only the send used, one computed with effects, and parameters.
    "use std::io::Write;\n\npub struct Server;\n\nfn reason_text(reason: &str) -> String {\n    format!(\"cancelled: {reason}\")\n}\n\nimpl Server {\n    fn send_error(&self, id: u64, code: i64, message: &str) {\n        let _ = writeln!(std::io::stdout(), \"{id} {code} {message}\");\n    }\n\n    pub fn respond(&self, id: u64) {\n        self.send_error(id, -32602, \"bad params\");\n    }\n\n    pub fn cancel(&self, request: u64, reason: String) {\n        let code = -32800;\n        let text = reason_text(&reason);\n        self.send_error(request, code, &text);\n    }\n}\n",
    // A binding of an outer block, used only by the send in an inner one.
    "use std::io::Write;\n\npub struct Server;\n\nimpl Server {\n    fn send_error(&self, id: u64, code: i64, message: &str) {\n        let _ = writeln!(std::io::stdout(), \"{id} {code} {message}\");\n    }\n\n    pub fn respond(&self, id: u64) {\n        self.send_error(id, -32602, \"bad params\");\n    }\n\n    pub fn on_cancelled(&self, id: u64, verbose: bool) {\n        let code = -32800;\n        if verbose {\n            let message = \"Request cancelled\";\n            self.send_error(id, code, message);\n        }\n    }\n}\n",
];

#[test]
fn safe_fixes_keep_a_warning_free_build() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut fixed_any = 0;
    for (i, case) in CASES.iter().enumerate() {
        let file = dir.path().join(format!("case{i}.rs"));
        std::fs::write(&file, case).expect("write");
        if let Err(stderr) = compiles(&file) {
            panic!("case {i} must compile before its fix:\n{stderr}");
        }
        let name = format!("case{i}.rs");
        let (code, stdout, stderr) = support::mcp_lint(
            dir.path(),
            &["--no-cache", "--fix", "--allow-no-vcs", &name],
        );
        assert!(code == 0 || code == 1, "case {i}: {stdout}{stderr}");
        let fixed = std::fs::read_to_string(&file).expect("read");
        if fixed != *case {
            fixed_any += 1;
        }
        if let Err(stderr) = compiles(&file) {
            panic!("case {i} does not compile after its fix:\n{fixed}\n{stderr}");
        }
    }
    assert_eq!(fixed_any, CASES.len(), "every case has a safe fix applied");
}
