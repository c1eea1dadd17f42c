fn main() -> std::process::ExitCode {
    cargo_mcp_lint::cli::run(cargo_mcp_lint::cli::arguments())
}
