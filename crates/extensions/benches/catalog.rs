//! Plain timing benchmark: `cargo bench -p pizza-extensions`.
//!
//! Prints, for a catalog of 200 skills (100 built-in, 100 user, 20 of them
//! overrides, each with a SKILL.md of ~2 KiB and two reference files):
//! loading it whole (target < 50 ms), a `reload()` (what a live change
//! costs), and the listing with readiness. Each figure is the median of
//! several rounds.

use std::error::Error;
use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use pizza_extensions::{BuiltinToolResolver, Catalog, CatalogSources};

const PER_SOURCE: usize = 100;
const OVERRIDES: usize = 20;
const ROUNDS: usize = 9;

fn write_skill(dir: &Path, name: &str) -> Result<(), Box<dyn Error>> {
    let folder = dir.join(name);
    fs::create_dir_all(folder.join("references"))?;
    let body = "Follow the steps, check each result, and report what you verified.\n".repeat(28);
    fs::write(
        folder.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Use for {name}; returns a report.\nmetadata:\n  display-name: Skill {name}\ntools: [read_file, grep, glob]\ninterruptOn:\n  write_file: true\n---\n\n{body}"
        ),
    )?;
    fs::write(folder.join("references/guide.md"), "# Guide\n".repeat(100))?;
    fs::write(folder.join("references/table.csv"), "a,b,c\n".repeat(100))?;
    Ok(())
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() -> Result<(), Box<dyn Error>> {
    let root = tempfile::tempdir()?;
    let builtin = root.path().join("builtin");
    let user = root.path().join("skills");
    for i in 0..PER_SOURCE {
        write_skill(&builtin, &format!("builtin-{i}"))?;
        let user_name = if i < OVERRIDES {
            format!("builtin-{i}")
        } else {
            format!("user-{i}")
        };
        write_skill(&user, &user_name)?;
    }
    let sources = CatalogSources::new(Some(builtin), user);
    let resolver = BuiltinToolResolver::default();

    let mut load = Vec::new();
    let mut reload = Vec::new();
    let mut listing = Vec::new();
    let mut entries = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let mut catalog = Catalog::load(sources.clone());
        load.push(started.elapsed());
        entries = catalog.entries().len();

        let started = Instant::now();
        catalog.reload();
        reload.push(started.elapsed());

        let started = Instant::now();
        black_box(catalog.listing(&resolver));
        black_box(catalog.ready_skills(&resolver));
        listing.push(started.elapsed());
    }
    println!(
        "catalog of {} skill folders ({entries} entries after {OVERRIDES} overrides):",
        2 * PER_SOURCE
    );
    println!("  load        {:>8.2?} (target < 50 ms)", median(load));
    println!("  reload      {:>8.2?}", median(reload));
    println!(
        "  listing     {:>8.2?} (listing + ready_skills)",
        median(listing)
    );
    Ok(())
}
