//! Handing back the pages of code a window read, once no window is open.
//!
//! Making a window runs a great deal of the program's and its libraries'
//! code (WebKit, GTK, the app itself): ~70 MiB of those files' pages end up
//! mapped in the app's process, and they stay mapped after the window is
//! released, counted in the process's memory, though little of the tray's
//! life (runs, schedules, MCP) uses them. `MADV_DONTNEED` on a read-only
//! mapping of a file ends the process's mapping of its pages: they stay in
//! the page cache, shared, and the first the kernel takes back when memory
//! is short; the next use maps them again with a minor fault. With no
//! window open the app does that, and returns its allocator's free memory
//! to the system (`malloc_trim`); again each time the last live run ends
//! (with a window open, only the allocator's part).
//!
//! Only mappings that cannot hold anything but the file's bytes are
//! touched: not writable, no anonymous (copied-on-write) page, nothing
//! swapped out, and inside the address ranges that the program and the
//! libraries it was linked with occupied when `main` began. The loader never
//! unmaps those, so such a range cannot have been given to other memory
//! between reading `/proc/self/smaps` and the call.

// The two calls into the C library below, each with its reasoning.
#![allow(unsafe_code)]

use std::sync::OnceLock;

use pizza_host::Host;
use tauri::{AppHandle, Manager, Runtime};
use tokio::sync::broadcast::error::RecvError;

/// What the process's maps said when `main` began: the address ranges of
/// its mapped files and which file each one maps.
static AT_START: OnceLock<Vec<FileRange>> = OnceLock::new();

/// A range of addresses mapping a file (its device and inode).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileRange {
    start: usize,
    end: usize,
    file: (String, u64),
}

/// One mapping in `/proc/self/smaps`, with the figures that decide whether
/// its pages may be handed back.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Mapping {
    start: usize,
    end: usize,
    writable: bool,
    file: Option<(String, u64)>,
    rss_kib: u64,
    /// `None` until the listing gave the figure: a mapping whose figures
    /// are unknown is kept.
    anonymous_kib: Option<u64>,
    swap_kib: Option<u64>,
}

/// What one hand-back did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HandedBack {
    /// Mappings whose pages were handed back.
    pub(crate) mappings: usize,
    /// Their resident size before, in KiB.
    pub(crate) kib: u64,
}

/// Notes the program's and its libraries' mappings; first thing in `main`,
/// before anything can be loaded at run time.
pub(crate) fn note_start() {
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        let _ = AT_START.set(file_ranges(&maps));
    }
}

/// With no window open: hands back the pages of code the process maps and
/// its allocator's free memory, on a blocking thread, and logs how much.
pub(crate) fn hand_back_soon() {
    tauri::async_runtime::spawn_blocking(|| {
        let handed = hand_back();
        trim_allocator();
        if handed.mappings > 0 {
            tracing::info!(
                mappings = handed.mappings,
                mib = handed.kib / 1024,
                "no window open: pages of code handed back to the page cache"
            );
        } else {
            tracing::debug!("no window open: no pages of code to hand back");
        }
    });
}

/// Started hidden (at login): what starting read is handed back once it
/// has settled, as after a window is released.
pub(crate) fn after_hidden_start<R: Runtime>(app: &AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(crate::main_window::release_after()).await;
        if app.webview_windows().is_empty() {
            hand_back_soon();
        }
    });
}

/// Each time the last live run ends: the allocator's free memory goes back
/// to the system, and with no window open the pages of code the run read
/// as well. A run's streaming, tool calls and store writes leave freed
/// memory in the allocator, which it keeps otherwise: measured over 200
/// runs with the window shown, the app's process grew 9 MiB without this
/// and 5 with it (its heap ended at 6.9 MiB, and 3.9).
pub(crate) fn after_runs<R: Runtime>(app: &AppHandle<R>, host: &Host) {
    let mut events = host.subscribe();
    let host = host.clone();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let mut live = host.live_run_count();
        loop {
            match events.recv().await {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            }
            let now = host.live_run_count();
            if live > 0 && now == 0 {
                if app.webview_windows().is_empty() {
                    hand_back_soon();
                } else {
                    tauri::async_runtime::spawn_blocking(trim_allocator);
                }
            }
            live = now;
        }
    });
}

/// Elsewhere there is nothing mapped the same way to hand back.
#[cfg(not(target_os = "linux"))]
fn hand_back() -> HandedBack {
    HandedBack::default()
}

/// Hands back the pages of the mappings [`eligible`] picks.
#[cfg(target_os = "linux")]
fn hand_back() -> HandedBack {
    let Some(at_start) = AT_START.get() else {
        return HandedBack::default();
    };
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return HandedBack::default();
    };
    let mut handed = HandedBack::default();
    for mapping in mappings(&smaps) {
        if !eligible(&mapping, at_start) {
            continue;
        }
        let length = mapping.end - mapping.start;
        // SAFETY: the range is a whole mapping, read-only, of a file the
        // process mapped before `main` (the program or a library it was
        // linked with, which stay mapped at that place for the process's
        // life), and it holds no anonymous or swapped page: every page in
        // it is the file's own bytes. MADV_DONTNEED only ends the process's
        // mapping of them; any later read of the range maps the same bytes
        // again, so no memory seen through it changes.
        let result = unsafe {
            rustix::mm::madvise(
                mapping.start as *mut std::ffi::c_void,
                length,
                rustix::mm::Advice::LinuxDontNeed,
            )
        };
        match result {
            Ok(()) => {
                handed.mappings += 1;
                handed.kib += mapping.rss_kib;
            }
            Err(error) => tracing::debug!(%error, start = mapping.start, "mapping kept"),
        }
    }
    handed
}

/// Returns the allocator's free memory to the system.
fn trim_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` takes no pointer and has no precondition;
        // the C library's allocator locks its arenas while it trims them.
        let released = unsafe { libc::malloc_trim(0) };
        tracing::debug!(released = released == 1, "allocator trimmed");
    }
}

/// Whether `mapping`'s pages may be handed back: see the module's notes.
fn eligible(mapping: &Mapping, at_start: &[FileRange]) -> bool {
    let Some(file) = &mapping.file else {
        return false;
    };
    !mapping.writable
        && mapping.rss_kib > 0
        && mapping.anonymous_kib == Some(0)
        && mapping.swap_kib == Some(0)
        && at_start.iter().any(|range| {
            &range.file == file && range.start <= mapping.start && mapping.end <= range.end
        })
}

/// The file mappings in a maps (or smaps) listing, with adjacent ranges of
/// one file joined (the loader's later `mprotect` splits and re-joins them).
fn file_ranges(maps: &str) -> Vec<FileRange> {
    let mut ranges: Vec<FileRange> = Vec::new();
    for line in maps.lines() {
        let Some(header) = header(line) else {
            continue;
        };
        let Some(file) = header.file else {
            continue;
        };
        match ranges.last_mut() {
            Some(last) if last.file == file && last.end == header.start => last.end = header.end,
            _ => ranges.push(FileRange {
                start: header.start,
                end: header.end,
                file,
            }),
        }
    }
    ranges
}

/// The mappings of an smaps listing.
fn mappings(smaps: &str) -> Vec<Mapping> {
    let mut all: Vec<Mapping> = Vec::new();
    for line in smaps.lines() {
        if let Some(mapping) = header(line) {
            all.push(mapping);
            continue;
        }
        let Some(current) = all.last_mut() else {
            continue;
        };
        let mut fields = line.split_whitespace();
        let (Some(key), Some(value)) = (fields.next(), fields.next()) else {
            continue;
        };
        let Ok(kib) = value.parse::<u64>() else {
            continue;
        };
        match key {
            "Rss:" => current.rss_kib = kib,
            "Anonymous:" => current.anonymous_kib = Some(kib),
            "Swap:" => current.swap_kib = Some(kib),
            _ => {}
        }
    }
    all
}

/// A mapping's header line, `start-end perms offset dev inode [path]`;
/// `None` for any other line.
fn header(line: &str) -> Option<Mapping> {
    let mut fields = line.split_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    let perms = fields.next()?;
    let _offset = fields.next()?;
    let device = fields.next()?;
    let inode: u64 = fields.next()?.parse().ok()?;
    Some(Mapping {
        start,
        end,
        writable: perms.contains('w'),
        file: (inode != 0).then(|| (device.to_owned(), inode)),
        ..Mapping::default()
    })
}

#[cfg(test)]
#[path = "mapped_pages_tests.rs"]
mod tests;
