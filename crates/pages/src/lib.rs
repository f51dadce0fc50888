//! Handing back the pages of code a process read.
//!
//! Showing a window runs a great deal of the program's and its libraries'
//! code (WebKit, GTK, JavaScriptCore, Mesa's LLVM, the app itself), and
//! those files' pages stay mapped in each process that read them, counted
//! in its memory, though an idle window, a window closed to the tray or a
//! finished run uses few of them again. `MADV_DONTNEED` on a read-only
//! mapping of a file ends the process's mapping of its pages: they stay in
//! the page cache, shared, and the first the kernel takes back when memory
//! is short; the next use maps them again with a minor fault.
//!
//! Only mappings that cannot hold anything but the file's bytes are
//! touched: not writable, no anonymous (copied-on-write) page, nothing
//! swapped out, and inside address ranges that stay mapped to that file
//! for the process's life ([`Kept`]), so a range cannot have been given to
//! other memory between reading `/proc/self/smaps` and the call. Two kinds
//! of such ranges: what the program and the libraries it was linked with
//! occupied when `main` began (the loader never unmaps those), and the
//! segments of the shared objects loaded now, each first made permanent
//! (`dlopen` with `RTLD_NOLOAD | RTLD_NODELETE`: the loader then never
//! unloads it), for a process that loads its libraries at run time, as a
//! WebKit web process loads Mesa's driver.
//!
//! The same processes also hold the C allocator's thresholds
//! ([`hold_allocator_thresholds`]), so its arenas keep little free memory
//! between the hand-backs, and return what they freed
//! ([`trim_allocator`]) at each.

// The calls into the C library below, each with its reasoning.
#![allow(unsafe_code)]

/// The name of the message the app sends its web processes' extension
/// (`crates/webext`) when they should hand back their pages of code.
pub const HAND_BACK_MESSAGE: &str = "pizza-bot.hand-back";

/// The name of the message a page's web process sends the app, through the
/// same extension, as the page is made: the app replies with a memory file
/// holding the UI's wasm module, which the page then compiles without
/// fetching it.
pub const UI_MODULE_MESSAGE: &str = "pizza-bot.ui-module";

/// Address ranges of files that stay mapped for the process's life.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Kept {
    ranges: Vec<FileRange>,
}

/// A range of addresses mapping one file: the device and inode when known
/// from the maps; `None` for a loaded object's own segment, which maps
/// nothing but that object.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileRange {
    start: usize,
    end: usize,
    file: Option<(String, u64)>,
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
pub struct HandedBack {
    /// Mappings whose pages were handed back.
    pub mappings: usize,
    /// Their resident size before, in KiB.
    pub kib: u64,
}

impl Kept {
    /// The program's and its libraries' mappings as they are now: first
    /// thing in `main`, before anything can be loaded at run time.
    pub fn at_start() -> Self {
        std::fs::read_to_string("/proc/self/maps")
            .map(|maps| Self {
                ranges: file_ranges(&maps),
            })
            .unwrap_or_default()
    }

    /// The segments of every shared object loaded now (and the program's),
    /// each object first made permanent: nothing loaded now is unloaded
    /// later.
    pub fn pinned() -> Self {
        Self {
            ranges: pinned_segments(),
        }
    }

    /// Whether no range is known (the maps could not be read).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// Hands back the pages of the mappings [`eligible`] picks among `kept`.
#[cfg(target_os = "linux")]
pub fn hand_back(kept: &Kept) -> HandedBack {
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return HandedBack::default();
    };
    let mut handed = HandedBack::default();
    for mapping in mappings(&smaps) {
        if !eligible(&mapping, &kept.ranges) {
            continue;
        }
        let length = mapping.end - mapping.start;
        // SAFETY: the range is a whole mapping, read-only, of a file that
        // stays mapped at that place for the process's life (see `Kept`),
        // and it holds no anonymous or swapped page: every page in it is
        // the file's own bytes. MADV_DONTNEED only ends the process's
        // mapping of them; any later read of the range maps the same bytes
        // again, so no memory seen through it changes.
        let result = unsafe {
            rustix::mm::madvise(
                mapping.start as *mut std::ffi::c_void,
                length,
                rustix::mm::Advice::LinuxDontNeed,
            )
        };
        if result.is_ok() {
            handed.mappings += 1;
            handed.kib += mapping.rss_kib;
        }
    }
    handed
}

/// Elsewhere there is nothing mapped the same way to hand back.
#[cfg(not(target_os = "linux"))]
pub fn hand_back(_kept: &Kept) -> HandedBack {
    HandedBack::default()
}

/// Where the C allocator's thresholds are held (glibc's starting value):
/// blocks this large or larger are mapped on their own, and free memory
/// above this at the top of an arena goes back to the system.
const ALLOCATOR_THRESHOLD: i32 = 128 * 1024;

/// Holds the C allocator's thresholds where they start; whether it could.
///
/// glibc raises its threshold for mapping a block on its own each time
/// such a block is freed (up to 32 MiB), and with it the free memory the
/// top of an arena may keep (twice that). After that, large blocks come
/// from the arenas, and each thread's arena keeps the free memory at its
/// top, which `malloc_trim` leaves alone (it trims only the main arena's
/// top): a process whose threads once handled a few large blocks holds
/// megabytes of free memory per arena for good. Held, each arena keeps at
/// most this much, and large blocks go back to the system when freed.
/// Called as early as each process can: first thing in the app's `main`,
/// and as a web process loads the app's WebKit extension (the limits
/// apply to every arena from then on).
pub fn hold_allocator_thresholds() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` takes two integers and has no precondition;
        // the C library locks its arenas while it changes them.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, ALLOCATOR_THRESHOLD) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, ALLOCATOR_THRESHOLD) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Returns the C allocator's free memory to the system; whether it could.
pub fn trim_allocator() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` takes no pointer and has no precondition;
        // the C library's allocator locks its arenas while it trims them.
        unsafe { libc::malloc_trim(0) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Whether `mapping`'s pages may be handed back: see the crate's notes.
fn eligible(mapping: &Mapping, kept: &[FileRange]) -> bool {
    let Some(file) = &mapping.file else {
        return false;
    };
    !mapping.writable
        && mapping.rss_kib > 0
        && mapping.anonymous_kib == Some(0)
        && mapping.swap_kib == Some(0)
        && kept.iter().any(|range| {
            range
                .file
                .as_ref()
                .is_none_or(|kept_file| kept_file == file)
                && range.start <= mapping.start
                && mapping.end <= range.end
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
            Some(last) if last.file.as_ref() == Some(&file) && last.end == header.start => {
                last.end = header.end;
            }
            _ => ranges.push(FileRange {
                start: header.start,
                end: header.end,
                file: Some(file),
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

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod loaded;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
use loaded::pinned_segments;

/// Without glibc's loader interface nothing is pinned.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn pinned_segments() -> Vec<FileRange> {
    Vec::new()
}

#[cfg(test)]
mod tests;
