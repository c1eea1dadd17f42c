use std::process::ExitCode;

// Parsing allocates many small nodes on two threads: mimalloc's thread-local heaps make that
// markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        // A panic the engine catches is reported as an MCP999 diagnostic, which carries its
        // message: printing it here as well would only be noise.
        if cargo_mcp_lint::rules::internal_error::silence_caught_panic(info) {
            return;
        }
        eprintln!(
            "error: internal error in cargo-mcp-lint {}: {info}\n\
             This is a bug: please report it with the file that triggered it.",
            env!("CARGO_PKG_VERSION")
        );
    }));
    let args = cargo_mcp_lint::cli::arguments();
    std::panic::catch_unwind(|| cargo_mcp_lint::cli::run(args)).unwrap_or(ExitCode::from(2))
}
