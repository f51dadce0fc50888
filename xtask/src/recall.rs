//! The failing tests' reports, printed again at the very end of a run. In
//! the whole suite's output they sit in the middle, among the apps' logs and
//! before the later test binaries, where a log read from its end (or cut to
//! its last lines) does not reach them.

use anyhow::{Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// At most this many lines of one binary's failure report are kept.
const SECTION_LINES: usize = 150;
/// At most this many lines are printed again in all.
const TOTAL_LINES: usize = 600;

/// The lines of libtest's failure reports (from `failures:` to the
/// `test result:` line), seen one output line at a time.
#[derive(Default)]
struct Failures {
    lines: Vec<String>,
    section: Option<usize>,
}

impl Failures {
    fn see(&mut self, line: &str) {
        if self.section.is_none() && line == "failures:" {
            self.section = Some(0);
        }
        let Some(kept) = self.section.as_mut() else {
            return;
        };
        let last = line.starts_with("test result:");
        if (*kept < SECTION_LINES || last) && self.lines.len() < TOTAL_LINES {
            self.lines.push(line.to_owned());
            *kept += 1;
        }
        if last {
            self.section = None;
        }
    }
}

/// Runs `command` (a `cargo test`) as [`crate::step::run`] does, passing its
/// output through; when it fails, prints the failure reports again last.
pub(crate) fn run(command: &mut Command) -> Result<()> {
    crate::step::timed(command, |command, shown| {
        let mut child = command
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("could not start `{shown}`"))?;
        let mut failures = Failures::default();
        if let Some(stdout) = child.stdout.take() {
            let mut out = std::io::stdout().lock();
            for line in BufReader::new(stdout).lines() {
                let line = line.context("reading the tests' output")?;
                writeln!(out, "{line}")?;
                failures.see(&line);
            }
        }
        let status = child.wait()?;
        if !status.success() && !failures.lines.is_empty() {
            eprintln!("\nxtask: the failing tests' reports again:\n");
            for line in &failures.lines {
                eprintln!("{line}");
            }
        }
        Ok(status)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(output: &str) -> Vec<String> {
        let mut failures = Failures::default();
        output.lines().for_each(|line| failures.see(line));
        failures.lines
    }

    #[test]
    fn keeps_the_failure_reports_and_nothing_else() {
        let output = "running 2 tests\ntest a ... ok\ntest b ... FAILED\n\nfailures:\n\n---- b stdout ----\nstep: one\nError: it broke\n\nfailures:\n    b\n\ntest result: FAILED. 1 passed; 1 failed\n\nrunning 1 test\ntest c ... ok\n\ntest result: ok. 1 passed\n";
        let kept = seen(output);
        assert_eq!(kept.first().map(String::as_str), Some("failures:"));
        assert!(kept.contains(&"Error: it broke".to_owned()));
        assert_eq!(
            kept.last().map(String::as_str),
            Some("test result: FAILED. 1 passed; 1 failed")
        );
        assert!(
            !kept
                .iter()
                .any(|l| l.contains("test c") || l.contains("test a"))
        );
    }

    #[test]
    fn a_failing_command_fails_and_a_passing_one_passes() {
        // Nothing on standard output: it is the outer test run's own.
        let failing = run(Command::new("sh").args(["-c", "exit 101"]));
        assert!(failing.is_err_and(|e| e.to_string().contains("failed")));
        assert!(run(Command::new("sh").args(["-c", "true"])).is_ok());
    }

    #[test]
    fn a_long_report_is_cut_but_keeps_its_result_line() {
        let mut output = String::from("failures:\n");
        for n in 0..1000 {
            output.push_str(&format!("frame {n}\n"));
        }
        output.push_str("test result: FAILED. 0 passed; 1 failed\n");
        let kept = seen(&output);
        assert_eq!(kept.len(), SECTION_LINES + 1);
        assert!(kept[SECTION_LINES].starts_with("test result: FAILED"));
    }
}
