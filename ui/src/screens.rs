//! One module per screen of the main pane.

pub(crate) mod inbox;
pub(crate) mod settings;
