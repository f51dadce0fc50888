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
                file: ("08:01".to_owned(), 1001),
            },
            FileRange {
                start: 0x7f00_0000_0000,
                end: 0x7f00_0030_0000,
                file: ("08:01".to_owned(), 2002),
            },
        ]
    );
}

#[test]
fn only_read_only_pages_of_files_mapped_before_main_holding_the_files_bytes_are_picked() {
    let at_start = file_ranges(AT_MAIN);
    let picked: Vec<usize> = mappings(SMAPS)
        .iter()
        .enumerate()
        .filter(|(_, mapping)| eligible(mapping, &at_start))
        .map(|(index, _)| index)
        .collect();
    // 0, 1: the program's read-only data and code; 6: the library's data.
    // Not 2 (a copied-on-write page), 3 (writable), 4 (the heap), 5 (a page
    // swapped out), 7 (a file mapped after main), 8 (the program's file
    // mapped again elsewhere, after main), 9 (no anonymous figure given).
    assert_eq!(picked, vec![0, 1, 6]);
}

/// Read-only data of this test binary, spread over several pages.
static TABLE: [u64; 8192] = {
    let mut table = [0u64; 8192];
    let mut i = 0;
    while i < table.len() {
        table[i] = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        i += 1;
    }
    table
};

/// Writable data of this test binary, changed before the hand-back.
static COUNTER: AtomicU64 = AtomicU64::new(0);

fn resident_kib_of_eligible(at_start: &[FileRange]) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    mappings(&smaps)
        .iter()
        .filter(|mapping| eligible(mapping, at_start))
        .map(|mapping| mapping.rss_kib)
        .sum()
}

#[cfg(target_os = "linux")]
#[test]
fn handing_back_this_process_pages_keeps_its_code_and_data_as_they_were() {
    note_start();
    let at_start = AT_START.get().expect("maps read");
    assert!(!at_start.is_empty());
    let sum = |table: &[u64]| {
        table
            .iter()
            .fold(0u64, |acc, value| acc ^ value.rotate_left(7))
    };
    let before_sum = sum(std::hint::black_box(&TABLE));
    COUNTER.store(41, Ordering::SeqCst);
    let resident_before = resident_kib_of_eligible(at_start);

    let handed = hand_back();
    let resident_after = resident_kib_of_eligible(at_start);
    trim_allocator();

    assert!(handed.mappings > 0 && handed.kib > 0, "{handed:?}");
    assert!(
        resident_after < resident_before,
        "resident before {resident_before} KiB, after {resident_after} KiB"
    );
    // The same bytes come back on the next read, and written data stays.
    assert_eq!(sum(std::hint::black_box(&TABLE)), before_sum);
    assert_eq!(COUNTER.fetch_add(1, Ordering::SeqCst), 41);
    let text = format!("{:?}", vec![1, 2, 3]);
    assert_eq!(text, "[1, 2, 3]");
}
