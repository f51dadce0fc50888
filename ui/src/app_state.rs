//! State shared by every screen, provided as context by the root component.

use leptos::prelude::*;
use pizza_protocol::{AppInfo, Settings};

#[derive(Debug, Clone, Copy)]
pub(crate) struct AppState {
    pub(crate) info: RwSignal<Option<AppInfo>>,
    pub(crate) settings: RwSignal<Settings>,
}

impl AppState {
    pub(crate) fn new() -> Self {
        Self {
            info: RwSignal::new(None),
            settings: RwSignal::new(Settings::default()),
        }
    }
}
