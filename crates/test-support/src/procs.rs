//! What Linux's `/proc` says of a process tree: which processes an app
//! started, their memory and their CPU time. For the end-to-end tests and
//! the desktop benchmark.

use std::time::Duration;

/// One process's memory.
#[derive(Debug, Clone)]
pub struct Usage {
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

/// The memory of each of `pids` that still runs.
pub fn usage(pids: &[u32]) -> Vec<Usage> {
    pids.iter()
        .filter_map(|&pid| {
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
            Some(Usage {
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
