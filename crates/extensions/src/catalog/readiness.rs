use crate::bundle::SkillBundle;
use crate::catalog::fold_resolutions;
use crate::tool_ref::ToolResolver;

/// Whether a skill can become a subagent now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// Every declared tool exists (a skill with no external dependency is ready at once).
    Ready,
    /// A dependency is still connecting or listing its tools.
    Loading,
    /// It cannot be used, with a sentence per reason.
    Unavailable { reasons: Vec<String> },
}

/// A bundle's readiness: every declared ref resolved through `resolver`.
/// Any unavailable ref makes it unavailable (with every reason, once
/// each); otherwise any loading ref makes it loading.
pub fn readiness(bundle: &SkillBundle, resolver: &dyn ToolResolver) -> Readiness {
    fold_resolutions(bundle.manifest.tools.iter().map(|t| resolver.resolve(t)))
}
