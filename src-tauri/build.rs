fn main() {
    // The config lives at the repository root so the whole workspace shares one.
    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json");
    if let Err(error) = tauri_build::try_build(attributes) {
        println!("cargo::error=tauri build step failed: {error:#}");
    }
}
