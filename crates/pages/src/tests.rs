use super::*;
use std::sync::atomic::{AtomicU64, Ordering};

const SMAPS: &str = "\
55d0a0000000-55d0a0100000 r--p 00000000 08:01 1001 /usr/bin/pizza-bot
Size:               1024 kB
Rss:                 512 kB
Anonymous:             0 kB
Swap:                  0 kB
VmFlags: rd mr mw me sd
55d0a0100000-55d0a0200000 r-xp 00100000 08:01 1001 /usr/bin/pizza-bot
Rss:                 900 kB
Anonymous:             0 kB
Swap:                  0 kB
55d0a0200000-55d0a0210000 r--p 00200000 08:01 1001 /usr/bin/pizza-bot
Rss:                  64 kB
Anonymous:            64 kB
Swap:                  0 kB
55d0a0210000-55d0a0220000 rw-p 00210000 08:01 1001 /usr/bin/pizza-bot
Rss:                  64 kB
Anonymous:             0 kB
Swap:                  0 kB
55d0a0220000-55d0a0230000 rw-p 00000000 00:00 0 [heap]
Rss:                  64 kB
Anonymous:            64 kB
7f0000000000-7f0000100000 r-xp 00000000 08:01 2002 /usr/lib/libwebkit2gtk-4.1.so.0
Rss:                 700 kB
Anonymous:             0 kB
Swap:                  4 kB
7f0000100000-7f0000200000 r--p 00100000 08:01 2002 /usr/lib/libwebkit2gtk-4.1.so.0
Rss:                 300 kB
Anonymous:             0 kB
Swap:                  0 kB
7f1000000000-7f1000010000 r--s 00000000 08:01 3003 /usr/share/mime/mime.cache
Rss:                  16 kB
Anonymous:             0 kB
Swap:                  0 kB
7f2000000000-7f2000001000 r--p 00000000 08:01 1001 /usr/bin/pizza-bot
Rss:                   4 kB
Anonymous:             0 kB
Swap:                  0 kB
7f0000200000-7f0000300000 r--p 00200000 08:01 2002 /usr/lib/libwebkit2gtk-4.1.so.0
Rss:                   8 kB
Swap:                  0 kB
";

/// The listing's mappings as `main` saw them: the program and the library,
/// but not the file mapped later.
const AT_MAIN: &str = "\
55d0a0000000-55d0a0100000 r--p 00000000 08:01 1001 /usr/bin/pizza-bot
55d0a0100000-55d0a0200000 r-xp 00100000 08:01 1001 /usr/bin/pizza-bot
55d0a0200000-55d0a0220000 rw-p 00200000 08:01 1001 /usr/bin/pizza-bot
55d0a0220000-55d0a0230000 rw-p 00000000 00:00 0 [heap]
7f0000000000-7f0000200000 r-xp 00000000 08:01 2002 /usr/lib/libwebkit2gtk-4.1.so.0
7f0000200000-7f0000300000 r--p 00200000 08:01 2002 /usr/lib/libwebkit2gtk-4.1.so.0
";

#[test]
fn the_listing_reads_into_mappings_with_their_figures() {
    let all = mappings(SMAPS);
    assert_eq!(all.len(), 10);
    assert_eq!(
        all[0],
        Mapping {
            start: 0x55d0_a000_0000,
            end: 0x55d0_a010_0000,
            writable: false,
            file: Some(("08:01".to_owned(), 1001)),
            rss_kib: 512,
            anonymous_kib: Some(0),
            swap_kib: Some(0),
        }
    );
    assert!(all[3].writable);
    assert_eq!(all[4].file, None, "the heap maps no file");
    assert_eq!(all[4].swap_kib, None, "the heap's listing has no swap line");
    assert_eq!(all[5].swap_kib, Some(4));
}

#[test]
fn adjacent_ranges_of_one_file_are_joined() {
    let ranges = file_ranges(AT_MAIN);
    assert_eq!(
        ranges,
        vec![
            FileRange {
                start: 0x55d0_a000_0000,
                end: 0x55d0_a022_0000,
                file: Some(("08:01".to_owned(), 1001)),
            },
            FileRange {
                start: 0x7f00_0000_0000,
                end: 0x7f00_0030_0000,
                file: Some(("08:01".to_owned(), 2002)),
            },
        ]
    );
}

/// The indices of the listing's mappings [`eligible`] picks among `kept`.
fn picked_in_listing(kept: &[FileRange]) -> Vec<usize> {
    mappings(SMAPS)
        .iter()
        .enumerate()
        .filter(|(_, mapping)| eligible(mapping, kept))
        .map(|(index, _)| index)
        .collect()
}

#[test]
fn only_read_only_pages_of_files_mapped_before_main_holding_the_files_bytes_are_picked() {
    let picked = picked_in_listing(&file_ranges(AT_MAIN));
    // 0, 1: the program's read-only data and code; 6: the library's data.
    // Not 2 (a copied-on-write page), 3 (writable), 4 (the heap), 5 (a page
    // swapped out), 7 (a file mapped after main), 8 (the program's file
    // mapped again elsewhere, after main), 9 (no anonymous figure given).
    assert_eq!(picked, vec![0, 1, 6]);
}

/// Read-only data of this test binary, over 256 pages: more than the
/// kernel maps around one fault (16), so what reading other data maps back
/// cannot cover it.
static TABLE: [u64; 131_072] = {
    let mut table = [0u64; 131_072];
    let mut i = 0;
    while i < table.len() {
        table[i] = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        i += 1;
    }
    table
};

/// Writable data of this test binary, changed before the hand-back.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The resident KiB of the mapping holding `address`.
fn resident_kib_at(address: usize) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    mappings(&smaps)
        .iter()
        .find(|mapping| mapping.start <= address && address < mapping.end)
        .map(|mapping| mapping.rss_kib)
        .unwrap()
}

/// The tests that read the process's figures or its allocator's, in turn.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Checks that handing back the pages `kept` names leaves this process's
/// code and data as they were, and returns what was handed back.
fn hand_back_and_check(kept: &Kept) -> HandedBack {
    // One at a time: both tests write the same counter.
    let _turn = one_at_a_time();
    assert!(!kept.is_empty());
    let sum = |table: &[u64]| {
        table
            .iter()
            .fold(0u64, |acc, value| acc ^ value.rotate_left(7))
    };
    let table = TABLE.as_ptr() as usize;
    let before_sum = sum(std::hint::black_box(&TABLE));
    COUNTER.store(41, Ordering::SeqCst);
    let resident_before = resident_kib_at(table);

    let handed = hand_back(kept);
    let resident_after = resident_kib_at(table);
    trim_allocator();

    assert!(handed.mappings > 0 && handed.kib > 0, "{handed:?}");
    // The table was read whole just before: its pages went.
    assert!(
        resident_before >= 1024 && resident_after + 512 <= resident_before,
        "the table's mapping: resident before {resident_before} KiB, after {resident_after} KiB"
    );
    // The same bytes come back on the next read, and written data stays.
    assert_eq!(sum(std::hint::black_box(&TABLE)), before_sum);
    assert_eq!(COUNTER.fetch_add(1, Ordering::SeqCst), 41);
    let text = format!("{:?}", vec![1, 2, 3]);
    assert_eq!(text, "[1, 2, 3]");
    handed
}

#[cfg(target_os = "linux")]
#[test]
fn handing_back_the_pages_mapped_at_start_keeps_code_and_data_as_they_were() {
    hand_back_and_check(&Kept::at_start());
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn handing_back_the_pinned_objects_pages_keeps_code_and_data_as_they_were() {
    let kept = Kept::pinned();
    // The C library is loaded in every test process, and pinned.
    let libc_code = libc::malloc_trim as *const () as usize;
    assert!(
        kept.ranges
            .iter()
            .any(|range| range.file.is_none() && range.start <= libc_code && libc_code < range.end),
        "{kept:?}"
    );
    hand_back_and_check(&kept);
}

#[test]
fn a_loaded_objects_segment_keeps_any_file_mapping_inside_it_and_nothing_outside() {
    let kept = [FileRange {
        start: 0x7f00_0000_0000,
        end: 0x7f00_0020_0000,
        file: None,
    }];
    let picked = picked_in_listing(&kept);
    // 6: the library's data; not 5 (a page swapped out) nor 9 (outside).
    assert_eq!(picked, vec![6]);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn held_thresholds_keep_a_large_block_mapped_on_its_own_after_one_was_freed() {
    const LARGE: usize = 1024 * 1024;
    // No other test maps or frees large blocks meanwhile (the hand-back
    // tests read the process's maps into a large string).
    let _turn = one_at_a_time();
    assert!(hold_allocator_thresholds());
    // SAFETY: each block is checked, then freed once; `mallinfo2` only
    // reads the allocator's figures.
    unsafe {
        let first = libc::malloc(LARGE);
        assert!(!first.is_null());
        // Left to itself, glibc raises its thresholds here, to this size,
        // and would serve the next such block from an arena.
        libc::free(first);
        let mapped_before = libc::mallinfo2().hblks;
        let second = libc::malloc(LARGE);
        assert!(!second.is_null());
        let mapped_with_second = libc::mallinfo2().hblks;
        libc::free(second);
        assert_eq!(mapped_with_second, mapped_before + 1);
        assert_eq!(libc::mallinfo2().hblks, mapped_before);
    }
}
