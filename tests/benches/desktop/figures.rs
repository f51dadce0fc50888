//! The figures printed beside the last run's.

use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The figures of this run, printed as they come beside the last run's.
pub(crate) struct Figures {
    last: BTreeMap<String, String>,
    now: BTreeMap<String, String>,
}

impl Figures {
    pub(crate) fn new(results: Option<&Path>) -> Self {
        let last = results
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Self {
            last,
            now: BTreeMap::new(),
        }
    }

    pub(crate) fn text(&mut self, name: &str, value: &str) {
        let last = self
            .last
            .get(name)
            .map_or_else(String::new, |last| format!("   (last: {last})"));
        println!("FIGURE {name}: {value}{last}");
        self.now.insert(name.to_owned(), value.to_owned());
    }

    pub(crate) fn ms(&mut self, name: &str, elapsed: Duration) {
        self.text(name, &format!("{} ms", elapsed.as_millis()));
    }

    pub(crate) fn mib(&mut self, name: &str, kib: u64) {
        self.text(name, &format!("{:.1} MiB", kib as f64 / 1024.0));
    }

    pub(crate) fn percent(&mut self, name: &str, value: f64) {
        self.text(name, &format!("{value:.2} %"));
    }

    /// Keeps this run's figures for the next run to compare with.
    pub(crate) fn save(&self, results: Option<&Path>) -> Result<()> {
        if let Some(path) = results {
            std::fs::write(path, serde_json::to_string_pretty(&self.now)?)?;
        }
        Ok(())
    }
}
