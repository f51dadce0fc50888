use super::*;

/// A temp `XDG_CONFIG_HOME` and the entry an app at `executable` would use there.
fn entry_in_temp_config(executable: &str) -> (tempfile::TempDir, AutostartEntry) {
    let config = tempfile::tempdir().expect("temp dir");
    let folder = autostart_dir(Some(config.path().as_os_str().to_owned()), None)
        .expect("an autostart folder");
    (
        config,
        AutostartEntry::new(&folder, PathBuf::from(executable)),
    )
}

#[test]
fn the_folder_follows_xdg_config_home_then_home() {
    assert_eq!(
        autostart_dir(Some("/cfg".into()), Some("/home/ann".into())),
        Some(PathBuf::from("/cfg/autostart"))
    );
    // Unset, empty or relative: the spec's fallback.
    for unusable in [None, Some(""), Some("relative/cfg")] {
        assert_eq!(
            autostart_dir(unusable.map(OsString::from), Some("/home/ann".into())),
            Some(PathBuf::from("/home/ann/.config/autostart")),
            "{unusable:?}"
        );
    }
    assert_eq!(autostart_dir(None, None), None);
}

#[test]
fn turning_it_on_writes_an_entry_that_starts_this_app_hidden() {
    let (config, entry) = entry_in_temp_config("/opt/pizza-bot/pizza-bot");
    assert!(!entry.is_on());
    entry.set(true).expect("written");

    assert_eq!(
        entry.path(),
        config.path().join("autostart").join("pizza-bot.desktop")
    );
    let contents = std::fs::read_to_string(entry.path()).expect("entry");
    assert!(contents.starts_with("[Desktop Entry]\n"), "{contents}");
    assert!(contents.contains("\nType=Application\n"), "{contents}");
    assert!(
        contents.contains("\nExec=/opt/pizza-bot/pizza-bot --hidden\n"),
        "{contents}"
    );
    assert!(entry.is_on());
    // Nothing else is left in the folder (the temporary file was renamed).
    let names: Vec<_> = std::fs::read_dir(config.path().join("autostart"))
        .expect("folder")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, vec![OsString::from("pizza-bot.desktop")]);

    // Writing again replaces it.
    entry.set(true).expect("rewritten");
    assert!(entry.is_on());
}

#[test]
fn turning_it_off_removes_the_entry_and_is_idempotent() {
    let (_config, entry) = entry_in_temp_config("/opt/pizza-bot/pizza-bot");
    entry.set(true).expect("written");
    entry.set(false).expect("removed");
    assert!(!entry.path().exists());
    assert!(!entry.is_on());
    entry.set(false).expect("already off");
}

#[test]
fn a_path_with_spaces_is_quoted_and_read_back() {
    let program = "/home/ann/My Apps/Pizza Bot/pizza-bot";
    let (_config, entry) = entry_in_temp_config(program);
    entry.set(true).expect("written");
    let contents = std::fs::read_to_string(entry.path()).expect("entry");
    assert!(
        contents.contains("\nExec=\"/home/ann/My Apps/Pizza Bot/pizza-bot\" --hidden\n"),
        "{contents}"
    );
    assert!(entry.is_on());
}

#[test]
fn exec_quoting_follows_the_desktop_entry_spec() {
    for (arg, written) in [
        ("/usr/bin/pizza-bot", "/usr/bin/pizza-bot"),
        ("", "\"\""),
        ("/opt/My App/app", "\"/opt/My App/app\""),
        ("100%", "100%%"),
        ("/a b/100%", "\"/a b/100%%\""),
        // A backslash is escaped for the quotes, then both for the string value.
        ("/a\\b", "\"/a\\\\\\\\b\""),
        (
            "say \"hi\" $HOME `x`",
            "\"say \\\\\"hi\\\\\" \\\\$HOME \\\\`x\\\\`\"",
        ),
        ("tab\there", "\"tab\\there\""),
    ] {
        assert_eq!(exec_line(&[arg]), written, "{arg:?}");
        assert_eq!(parse_exec(written), Some(vec![arg.to_owned()]), "{written}");
    }
}

#[test]
fn exec_lines_round_trip_and_field_codes_are_dropped() {
    let args = [
        "/opt/Pizza Bot/pizza-bot",
        "--hidden",
        "it's",
        "a\\b",
        "50%",
    ];
    assert_eq!(
        parse_exec(&exec_line(&args)),
        Some(args.map(str::to_owned).to_vec())
    );
    assert_eq!(
        parse_exec("pizza-bot %U --hidden"),
        Some(vec!["pizza-bot".to_owned(), "--hidden".to_owned()])
    );
    assert_eq!(parse_exec("\"/open quote"), None);
}

#[test]
fn an_entry_for_another_executable_or_a_hidden_one_is_off() {
    let (_config, entry) = entry_in_temp_config("/opt/pizza-bot/pizza-bot");
    let elsewhere = AutostartEntry::new(
        entry.path().parent().expect("folder"),
        PathBuf::from("/old/place/pizza-bot"),
    );
    elsewhere.set(true).expect("written");
    assert!(elsewhere.is_on());
    assert!(!entry.is_on());

    std::fs::write(
        entry.path(),
        "[Desktop Entry]\nType=Application\nExec=/opt/pizza-bot/pizza-bot --hidden\nHidden=true\n",
    )
    .expect("written by hand");
    assert!(!entry.is_on());
    std::fs::write(
        entry.path(),
        "[Desktop Entry]\nExec=/opt/pizza-bot/pizza-bot --hidden\nX-GNOME-Autostart-enabled=false\n",
    )
    .expect("written by hand");
    assert!(!entry.is_on());
    // Keys of other groups do not count.
    std::fs::write(
        entry.path(),
        "[Desktop Action other]\nExec=/opt/pizza-bot/pizza-bot\n[Desktop Entry]\nExec=/bin/true\n",
    )
    .expect("written by hand");
    assert!(!entry.is_on());
}
