//! Dev-only helpers shared by the workspace's tests. Never a dependency of
//! shipping code.

pub mod data_root;
pub mod mcp;
pub mod mock_provider;
pub mod notification_server;
pub mod procs;
pub mod secret_service;
pub mod tray_watcher;
