//! Small components shared by several screens.

pub(crate) mod attachments;
pub(crate) mod model_picker;
pub(crate) mod status_bar;
