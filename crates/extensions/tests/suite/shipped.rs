//! The repo's own `skills/` folder, as the app ships it: every built-in
//! skill parses, validates and is ready with the built-in tools.

use std::path::PathBuf;

use pizza_extensions::{BuiltinToolResolver, Catalog, CatalogSources};

#[test]
fn every_shipped_skill_is_ready_and_the_guide_carries_its_references() {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let empty = tempfile::tempdir().unwrap();
    let catalog = Catalog::load(CatalogSources::new(
        Some(shipped),
        empty.path().join("skills"),
    ));
    let resolver = BuiltinToolResolver::default();
    let listing = catalog.listing(&resolver);
    assert!(!listing.is_empty());
    let ready = catalog.ready_skills(&resolver);
    assert_eq!(ready.len(), listing.len(), "{listing:#?}");
    let guide = ready
        .iter()
        .find(|b| b.manifest.name == "pizza-bot-guide")
        .expect("the guide ships");
    assert!(
        guide
            .files
            .iter()
            .any(|f| f.path.starts_with("references/") && f.path.ends_with(".md")),
        "its references are sibling files"
    );
}
