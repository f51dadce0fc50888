//! Start at login: an XDG autostart entry,
//! `$XDG_CONFIG_HOME/autostart/pizza-bot.desktop` (`~/.config/autostart`
//! when the variable is unset), that starts this executable with
//! [`HIDDEN_FLAG`] so the app comes up in the tray without its window.
//!
//! The entry is written here rather than with the `auto-launch` crate: that
//! crate ignores `XDG_CONFIG_HOME`, writes the file in place (a crash leaves
//! half an entry) and counts any file of that name as "on".

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The entry's file name inside the autostart folder.
pub(crate) const FILE_NAME: &str = "pizza-bot.desktop";

/// The launch flag that keeps the main window hidden (see `LaunchArgs`).
pub(crate) const HIDDEN_FLAG: &str = "--hidden";

/// Characters that make the Desktop Entry spec require a quoted argument.
const RESERVED: &[char] = &[
    ' ', '\t', '\n', '\r', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(',
    ')', '`',
];

/// This app's autostart entry: where it lives and the executable it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AutostartEntry {
    path: PathBuf,
    executable: PathBuf,
}

impl AutostartEntry {
    /// The entry for the running executable in the user's autostart folder.
    pub(crate) fn for_this_app() -> Result<Self, String> {
        let folder = autostart_dir(
            std::env::var_os("XDG_CONFIG_HOME"),
            std::env::var_os("HOME").map(PathBuf::from),
        )
        .ok_or_else(|| "neither XDG_CONFIG_HOME nor HOME is set".to_owned())?;
        Ok(Self::new(&folder, running_executable()?))
    }

    /// The entry in `autostart_dir` that starts `executable`.
    pub(crate) fn new(autostart_dir: &Path, executable: PathBuf) -> Self {
        Self {
            path: autostart_dir.join(FILE_NAME),
            executable,
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// On when the entry exists, is not switched off (`Hidden=true`, or
    /// GNOME's `X-GNOME-Autostart-enabled=false` from its startup settings)
    /// and starts this executable: an entry left by a copy of the app
    /// elsewhere does not count.
    pub(crate) fn is_on(&self) -> bool {
        let Ok(contents) = std::fs::read_to_string(&self.path) else {
            return false;
        };
        let entry = desktop_entry_keys(&contents);
        let switched_off = entry.iter().any(|(k, v)| {
            (*k == "Hidden" && *v == "true") || (*k == "X-GNOME-Autostart-enabled" && *v == "false")
        });
        if switched_off {
            return false;
        }
        entry
            .iter()
            .find(|(k, _)| *k == "Exec")
            .and_then(|(_, exec)| parse_exec(exec))
            .and_then(|args| args.into_iter().next())
            .is_some_and(|program| Path::new(&program) == self.executable)
    }

    /// Writes the entry (atomically: a crash leaves the old one or the new
    /// one) or removes it.
    pub(crate) fn set(&self, on: bool) -> Result<(), String> {
        if on {
            self.write()
        } else {
            match std::fs::remove_file(&self.path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(format!("could not remove {}: {e}", self.path.display())),
            }
        }
    }

    fn write(&self) -> Result<(), String> {
        let contents = self.contents()?;
        let folder = self
            .path
            .parent()
            .ok_or_else(|| format!("{} has no folder", self.path.display()))?;
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("could not create {}: {e}", folder.display()))?;
        // A hidden name desktops skip, in the same folder so the rename is atomic.
        let temporary = folder.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
        let written = std::fs::File::create(&temporary).and_then(|mut file| {
            file.write_all(contents.as_bytes())?;
            file.sync_all()
        });
        let renamed = written.and_then(|()| std::fs::rename(&temporary, &self.path));
        renamed.map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("could not write {}: {e}", self.path.display())
        })
    }

    /// The entry's text.
    fn contents(&self) -> Result<String, String> {
        let program = self.executable.to_str().ok_or_else(|| {
            format!(
                "the app's path {} is not UTF-8, which an autostart entry cannot name",
                self.executable.display()
            )
        })?;
        Ok(format!(
            "[Desktop Entry]\n\
             Type=Application\n\
             Name=Pizza Bot\n\
             Comment=Starts Pizza Bot in the tray so schedules run after you log in\n\
             Exec={}\n\
             Terminal=false\n\
             X-GNOME-Autostart-enabled=true\n",
            exec_line(&[program, HIDDEN_FLAG])
        ))
    }
}

/// Whether the app starts at login; `None` where this build has no
/// autostart (only XDG autostart, on Linux and the BSDs, is written).
pub(crate) fn start_at_login() -> Option<bool> {
    if !SUPPORTED {
        return None;
    }
    match AutostartEntry::for_this_app() {
        Ok(entry) => Some(entry.is_on()),
        Err(reason) => {
            tracing::info!(reason, "no autostart entry can be written here");
            None
        }
    }
}

/// Writes or removes this app's autostart entry.
pub(crate) fn set_start_at_login(on: bool) -> Result<(), String> {
    if !SUPPORTED {
        return Err("starting Pizza Bot at login is not available on this system yet".to_owned());
    }
    let entry = AutostartEntry::for_this_app()?;
    entry.set(on)?;
    tracing::info!(on, path = %entry.path().display(), "start at login changed");
    Ok(())
}

/// Desktops that read XDG autostart entries.
const SUPPORTED: bool = cfg!(all(unix, not(target_os = "macos")));

/// The autostart folder: `$XDG_CONFIG_HOME/autostart` when that is an
/// absolute path (the base-directory spec ignores a relative one), else
/// `$HOME/.config/autostart`.
pub(crate) fn autostart_dir(
    xdg_config_home: Option<OsString>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    let config = xdg_config_home
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| {
            home.filter(|h| !h.as_os_str().is_empty())
                .map(|h| h.join(".config"))
        })?;
    Some(config.join("autostart"))
}

/// The path a login should start: inside an AppImage the image, not the
/// copy mounted for this run.
fn running_executable() -> Result<PathBuf, String> {
    if let Some(image) = std::env::var_os("APPIMAGE").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(image));
    }
    std::env::current_exe().map_err(|e| format!("could not find the app's executable: {e}"))
}

/// An `Exec` value starting `args`, quoted and escaped as the Desktop Entry
/// spec says: arguments with reserved characters in double quotes (with
/// `"`, `` ` ``, `$` and `\` backslash-escaped), `%` doubled, then the
/// string-value escapes, which readers undo first.
pub(crate) fn exec_line(args: &[&str]) -> String {
    args.iter()
        .map(|arg| escape_string_value(&quote_argument(arg)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quote_argument(arg: &str) -> String {
    let quoted = if arg.is_empty() || arg.contains(RESERVED) {
        let mut quoted = String::with_capacity(arg.len() + 2);
        quoted.push('"');
        for c in arg.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push('"');
        quoted
    } else {
        arg.to_owned()
    };
    quoted.replace('%', "%%")
}

fn escape_string_value(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            '\t' => escaped.push_str("\\t"),
            '\r' => escaped.push_str("\\r"),
            other => escaped.push(other),
        }
    }
    escaped
}

fn unescape_string_value(value: &str) -> String {
    let mut plain = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            plain.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => plain.push(' '),
            Some('n') => plain.push('\n'),
            Some('t') => plain.push('\t'),
            Some('r') => plain.push('\r'),
            Some('\\') => plain.push('\\'),
            // Not a string escape: left for the quoting rules.
            Some(other) => {
                plain.push('\\');
                plain.push(other);
            }
            None => plain.push('\\'),
        }
    }
    plain
}

/// Splits an `Exec` value into its arguments, undoing [`exec_line`]; `None`
/// when a quote is left open. Field codes other than `%%` are dropped.
pub(crate) fn parse_exec(value: &str) -> Option<Vec<String>> {
    let value = unescape_string_value(value);
    let mut args = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => args.extend(current.take()),
            '"' => {
                let arg = current.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('"' | '`' | '$' | '\\') => arg.push(chars.next()?),
                            _ => arg.push('\\'),
                        },
                        '%' if chars.peek() == Some(&'%') => {
                            chars.next();
                            arg.push('%');
                        }
                        other => arg.push(other),
                    }
                }
            }
            '%' => {
                let code = chars.next();
                if code == Some('%') {
                    current.get_or_insert_with(String::new).push('%');
                }
            }
            other => current.get_or_insert_with(String::new).push(other),
        }
    }
    args.extend(current);
    Some(args)
}

/// The `key=value` lines of the `[Desktop Entry]` group.
fn desktop_entry_keys(contents: &str) -> Vec<(&str, &str)> {
    let mut in_entry = false;
    let mut keys = Vec::new();
    for line in contents.lines().map(str::trim) {
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
        } else if in_entry && let Some((key, value)) = line.split_once('=') {
            keys.push((key.trim(), value.trim_start()));
        }
    }
    keys
}

#[cfg(test)]
#[path = "autostart_tests.rs"]
mod tests;
