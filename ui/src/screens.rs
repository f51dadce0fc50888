//! One module per screen of the main pane.

pub(crate) mod automations;
pub(crate) mod inbox;
pub(crate) mod mcp;
pub(crate) mod settings;
pub(crate) mod skills;
