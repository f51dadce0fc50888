//! Where the eval tool's worker program is: beside the app's binary (a
//! build's target folder: `cargo xtask run` and the tests build it there),
//! else in the bundle's resources (the `.deb` installs it in
//! `/usr/lib/Pizza Bot/`).

use pizza_host::{EVAL_WORKER_PROGRAM, WorkerCommand};

/// The worker; `None` (with a warning) when it was not built or installed,
/// and the app runs without the eval tool.
pub(crate) fn resolve(package_info: &tauri::PackageInfo) -> Option<WorkerCommand> {
    let found = WorkerCommand::find_in(shipped_folders(package_info));
    match &found {
        Some(worker) => tracing::info!(program = %worker.program.display(), "eval worker"),
        None => tracing::warn!(
            "no {EVAL_WORKER_PROGRAM} beside the app or in its resources: the eval tool is off"
        ),
    }
    found
}

/// Where the files shipped beside the app are looked for, in order: the
/// folder of the app's binary (a build's target folder), then the bundle's
/// resources. The eval worker and the web process extension are found so.
pub(crate) fn shipped_folders(package_info: &tauri::PackageInfo) -> Vec<std::path::PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(std::path::Path::to_path_buf));
    let resources = tauri::utils::platform::resource_dir(package_info, &tauri::Env::default()).ok();
    beside.into_iter().chain(resources).collect()
}
