//! Services the end-to-end tests need that a headless machine lacks: a display.

use anyhow::{Context, Result, bail};
use std::io::Read;
use std::process::{Child, Command, Stdio};

/// A private X server, stopped on drop.
#[derive(Debug)]
pub(crate) struct Xvfb {
    child: Child,
    pub(crate) display: String,
}

impl Xvfb {
    pub(crate) fn start() -> Result<Self> {
        // -displayfd: Xvfb picks a free display and writes its number when ready,
        // so there is no guessing and no sleeping. -noreset: an X server resets
        // when its last client leaves, and a client connecting meanwhile (the
        // next app a test or the bench starts, once the last one was stopped)
        // has its connection reset.
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-noreset",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting Xvfb (is the xvfb package installed?)")?;
        let mut number = String::new();
        let mut byte = [0u8; 1];
        if let Some(stdout) = child.stdout.as_mut() {
            while stdout.read(&mut byte)? == 1 && byte[0] != b'\n' {
                number.push(char::from(byte[0]));
            }
        }
        let number = number.trim().to_owned();
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
            let _ = child.kill();
            bail!("Xvfb did not report a display");
        }
        Ok(Self {
            child,
            display: format!(":{number}"),
        })
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A session bus configuration with no service directories, so nothing is
/// auto-started behind the tests' backs (portals, a second keyring): tests
/// start exactly the services they need.
pub(crate) fn session_bus_config(target: &std::path::Path) -> Result<std::path::PathBuf> {
    let path = target.join("test-session-bus.conf");
    let config = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#;
    std::fs::create_dir_all(target)?;
    std::fs::write(&path, config)?;
    Ok(path)
}
