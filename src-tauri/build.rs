fn main() {
    // The embedded UI: files rewritten in place don't change the folder's
    // mtime, so name each one or an app build can keep a stale UI.
    println!("cargo::rerun-if-changed=../ui/dist");
    if let Ok(entries) = std::fs::read_dir("../ui/dist") {
        for entry in entries.flatten() {
            println!("cargo::rerun-if-changed={}", entry.path().display());
        }
    }
    // The config lives at the repository root so the whole workspace shares one.
    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json");
    if let Err(error) = tauri_build::try_build(attributes) {
        println!("cargo::error=tauri build step failed: {error:#}");
    }
}
