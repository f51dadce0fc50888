//! Small components shared by several screens.

pub(crate) mod model_picker;
