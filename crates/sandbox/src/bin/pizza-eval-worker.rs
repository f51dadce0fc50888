fn main() -> std::process::ExitCode {
    pizza_sandbox::worker_main()
}
