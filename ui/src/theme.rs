//! The colour theme is a `data-theme` attribute on `<html>`; the stylesheet
//! maps it (and `system` through `prefers-color-scheme`) to CSS variables.

use pizza_protocol::Theme;

pub(crate) fn apply(theme: Theme) {
    if let Some(root) = leptos::prelude::document().document_element() {
        let _ = root.set_attribute("data-theme", theme.as_str());
    }
}
