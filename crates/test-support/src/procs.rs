//! What Linux's `/proc` says of a process tree: which processes an app
//! started, their memory and their CPU time. For the end-to-end tests and
//! the desktop benchmark.

use std::time::Duration;

/// One process's memory.
#[derive(Debug, Clone)]
pub struct Usage {
    pub pid: u32,
    pub name: String,
    pub pss_kib: u64,
    pub rss_kib: u64,
}

/// `(pid, ppid)` of every process.
fn parents() -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // The parent pid follows the parenthesised command name.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok())?;
            Some((pid, ppid))
        })
        .collect()
}

/// `root` and everything it started.
pub fn tree(root: u32) -> Vec<u32> {
    let parents = parents();
    let mut tree = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for &(pid, ppid) in &parents {
            if tree.contains(&ppid) && !tree.contains(&pid) {
                tree.push(pid);
                grew = true;
            }
        }
    }
    tree
}

fn field(file: &str, pid: u32, name: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/{file}"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<u64>().ok())
        })
        .unwrap_or(0)
}

/// What a process's PSS is made of, in KiB: pages of mapped files (which
/// the kernel can drop and read again) and anonymous memory; and how much
/// of it is dirty (written: only swap can take it).
#[derive(Debug, Clone, Copy, Default)]
pub struct PssKinds {
    pub file_kib: u64,
    pub anon_kib: u64,
    pub dirty_kib: u64,
}

/// [`PssKinds`] of `pid`, from its `smaps_rollup` (zero for a process
/// gone or a kernel without these lines).
pub fn pss_kinds(pid: u32) -> PssKinds {
    PssKinds {
        file_kib: field("smaps_rollup", pid, "Pss_File:"),
        anon_kib: field("smaps_rollup", pid, "Pss_Anon:"),
        dirty_kib: field("smaps_rollup", pid, "Pss_Dirty:"),
    }
}

/// The memory of each of `pids` that still runs.
pub fn usage(pids: &[u32]) -> Vec<Usage> {
    pids.iter()
        .filter_map(|&pid| {
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
            Some(Usage {
                pid,
                name: name.trim().to_owned(),
                pss_kib: field("smaps_rollup", pid, "Pss:"),
                rss_kib: field("status", pid, "VmRSS:"),
            })
        })
        .collect()
}

/// User and system clock ticks `pids` have used.
pub fn cpu_ticks(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (_, rest) = stat.rsplit_once(')')?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
            let utime = fields.get(11)?.parse::<u64>().ok()?;
            let stime = fields.get(12)?.parse::<u64>().ok()?;
            Some(utime + stime)
        })
        .sum()
}

/// `ticks` of CPU over `window`, as a percentage of one core.
pub fn percent(ticks: u64, window: Duration) -> f64 {
    let per_second = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(100.0);
    ticks as f64 / per_second / window.as_secs_f64() * 100.0
}

/// Where one process's memory is: PSS in KiB per mapped file (its path) or
/// kind of anonymous memory (`[heap]`, `[anon]`, `[stack]`…), largest first.
pub fn mappings(pid: u32) -> Vec<(String, u64)> {
    let Ok(smaps) = std::fs::read_to_string(format!("/proc/{pid}/smaps")) else {
        return Vec::new();
    };
    mappings_of(&smaps)
}

fn mappings_of(smaps: &str) -> Vec<(String, u64)> {
    let mut by_name: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut current = String::from("[anon]");
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            continue;
        };
        if first.contains('-') && !first.ends_with(':') {
            // A mapping's header: range, perms, offset, device, inode, path.
            current = words
                .nth(4)
                .map_or_else(|| "[anon]".to_owned(), str::to_owned);
        } else if first == "Pss:" {
            let kib = words
                .next()
                .and_then(|k| k.parse::<u64>().ok())
                .unwrap_or(0);
            *by_name.entry(current.clone()).or_default() += kib;
        }
    }
    let mut mappings: Vec<(String, u64)> = by_name.into_iter().collect();
    mappings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    mappings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_add_up_pss_per_path_and_anonymous_kind() {
        let smaps = "\
55d0c0000000-55d0c1000000 r-xp 00000000 08:01 1234 /usr/bin/app
Size:              16384 kB
Pss:                 900 kB
55d0c1000000-55d0c1100000 r--p 01000000 08:01 1234 /usr/bin/app
Pss:                 100 kB
7f0000000000-7f0000100000 rw-p 00000000 00:00 0
Pss:                 300 kB
55d0c2000000-55d0c3000000 rw-p 00000000 00:00 0 [heap]
Pss:                 2000 kB
";
        assert_eq!(
            mappings_of(smaps),
            vec![
                ("[heap]".to_owned(), 2000),
                ("/usr/bin/app".to_owned(), 1000),
                ("[anon]".to_owned(), 300),
            ]
        );
    }

    #[test]
    fn this_process_has_mappings() {
        let mine = mappings(std::process::id());
        assert!(mine.iter().any(|(_, kib)| *kib > 0), "{mine:?}");
    }
}
