//! The worker caps its own address space before any guest runs, so a
//! memory bomb ends in a failed allocation (the process aborts with
//! "memory allocation of N bytes failed") instead of swapping the machine.

/// Address space on top of the guest's budget for what is mapped lazily
/// after the cap is set: boa's contexts, malloc's per-thread arena
/// reservation, pipes' buffers.
const SLACK_BYTES: u64 = 32 * 1024 * 1024;

/// Sets `RLIMIT_AS` to the current virtual size plus `budget` and slack.
#[cfg(target_os = "linux")]
pub(super) fn cap(budget: u64) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let current = virtual_size()?;
    let limit = current.saturating_add(budget).saturating_add(SLACK_BYTES);
    let hard = getrlimit(Resource::As).maximum;
    let limit = hard.map_or(limit, |hard| hard.min(limit));
    setrlimit(
        Resource::As,
        Rlimit {
            current: Some(limit),
            maximum: Some(limit),
        },
    )?;
    Ok(())
}

/// Elsewhere the worker runs uncapped; the host's timeout still holds.
#[cfg(not(target_os = "linux"))]
pub(super) fn cap(_budget: u64) -> std::io::Result<()> {
    Ok(())
}

/// The process's virtual size in bytes: the first field of
/// `/proc/self/statm`, in pages.
#[cfg(target_os = "linux")]
fn virtual_size() -> std::io::Result<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm")?;
    let pages: u64 = statm
        .split_whitespace()
        .next()
        .and_then(|field| field.parse().ok())
        .ok_or_else(|| std::io::Error::other("unreadable /proc/self/statm"))?;
    let page = rustix::param::page_size() as u64;
    Ok(pages * page)
}
