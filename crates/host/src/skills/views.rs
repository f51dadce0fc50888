//! The protocol's views of catalog entries: what the Skills page and the
//! editor are shown.

use pizza_extensions::{BundleFile, Readiness, SkillListing, SkillManifest, SkillSource};
use pizza_protocol::{
    SKILL_FILE_TEXT_MAX_BYTES, SkillFields, SkillFileView, SkillInterrupt, SkillReadiness,
    SkillReadinessState, SkillSourceKind, SkillView,
};

use super::roster;

pub(super) fn source_kind(source: &SkillSource) -> SkillSourceKind {
    match source {
        SkillSource::Builtin => SkillSourceKind::Builtin,
        SkillSource::Plugin(_) => SkillSourceKind::Plugin,
        SkillSource::User => SkillSourceKind::User,
    }
}

pub(super) fn readiness_view(readiness: Readiness) -> SkillReadiness {
    match readiness {
        Readiness::Ready => SkillReadiness {
            state: SkillReadinessState::Ready,
            reasons: Vec::new(),
        },
        Readiness::Loading => SkillReadiness {
            state: SkillReadinessState::Loading,
            reasons: Vec::new(),
        },
        Readiness::Unavailable { reasons } => SkillReadiness {
            state: SkillReadinessState::Unavailable,
            reasons,
        },
    }
}

pub(super) fn skill_view(listing: SkillListing) -> SkillView {
    SkillView {
        source: source_kind(&listing.source),
        readiness: readiness_view(listing.readiness),
        name: listing.name,
        display_name: listing.display_name,
        description: listing.description,
        overridden: listing.overridden,
        enabled: listing.enabled,
    }
}

pub(super) fn fields(manifest: &SkillManifest) -> SkillFields {
    SkillFields {
        display_name: manifest.display_name.clone().unwrap_or_default(),
        description: manifest.description.clone(),
        tools: manifest.tools.iter().map(ToString::to_string).collect(),
        interrupt_on: manifest
            .interrupt_on
            .iter()
            .map(|rule| SkillInterrupt {
                tool: rule.tool.to_string(),
                allowed: rule
                    .allowed_decisions
                    .iter()
                    .copied()
                    .map(roster::decision_kind)
                    .collect(),
            })
            .collect(),
        body: manifest.body.clone(),
    }
}

/// Whether the editor is shown a file's text (and so can send it back).
pub(super) fn shown_as_text(file: &BundleFile) -> Option<String> {
    if file.bytes.len() as u64 > SKILL_FILE_TEXT_MAX_BYTES {
        return None;
    }
    file.text().map(str::to_owned)
}

pub(super) fn file_view(file: &BundleFile) -> SkillFileView {
    SkillFileView {
        path: file.path.clone(),
        size: file.bytes.len() as u64,
        text: shown_as_text(file),
    }
}
