#![doc = include_str!("../README.md")]

mod app;
mod command;
mod error;
mod settings;

pub use app::{AppInfo, AppInfoParams, BuildProfile};
pub use command::{COMMANDS, Command, cmd};
pub use error::{ApiError, ErrorCode};
pub use settings::{Settings, SettingsGetParams, SettingsPatch, Theme};

/// Bumped whenever a command or DTO changes incompatibly.
pub const PROTOCOL_VERSION: u32 = 1;
