use std::fs;
use std::io::{Cursor, Write};
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::*;
use crate::plugin::tests::{skill_md, write_tree};
use crate::plugin::{PluginState, load_plugins};

enum Item<'a> {
    File(&'a str, &'a [u8]),
    Exec(&'a str, &'a [u8]),
    Link(&'a str, &'a str),
}

fn zip_of(items: &[Item<'_>]) -> Vec<u8> {
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for item in items {
        match item {
            Item::File(path, bytes) => {
                writer.start_file(*path, options).unwrap();
                writer.write_all(bytes).unwrap();
            }
            Item::Exec(path, bytes) => {
                writer
                    .start_file(*path, options.unix_permissions(0o755))
                    .unwrap();
                writer.write_all(bytes).unwrap();
            }
            Item::Link(path, target) => writer.add_symlink(*path, *target, options).unwrap(),
        }
    }
    writer.finish().unwrap().into_inner()
}

const MANIFEST: &str =
    r#"{"name": "acme", "version": "1.0.0", "description": "Acme.", "commands": "./commands"}"#;

fn acme_items(top: &str) -> Vec<(String, Vec<u8>)> {
    let mcp = serde_json::to_vec(
        &json!({"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db"}}}),
    )
    .unwrap();
    vec![
        (
            format!("{top}{PLUGIN_MANIFEST}"),
            MANIFEST.as_bytes().to_vec(),
        ),
        (
            format!("{top}skills/report/SKILL.md"),
            skill_md("report", "").into_bytes(),
        ),
        (
            format!("{top}skills/hooked/SKILL.md"),
            skill_md("hooked", "hooks: {}\n").into_bytes(),
        ),
        (format!("{top}.mcp.json"), mcp),
    ]
}

fn write_zip(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// Every file under `dir`, relative, sorted (dot-folders included).
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(listing) = fs::read_dir(dir) else {
            return;
        };
        for item in listing.flatten() {
            if item.file_type().unwrap().is_dir() {
                walk(root, &item.path(), out);
            } else {
                out.push(
                    item.path()
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[track_caller]
fn assert_refused(err: &Error, field: &str, part: &str) {
    match err {
        Error::Invalid {
            field: found,
            message,
        } => {
            assert_eq!(found, field, "{err}");
            assert!(message.contains(part), "{err}");
        }
        other => panic!("expected bad input naming {field}, got {other:?}"),
    }
}

#[test]
fn a_zip_with_a_top_folder_previews_then_installs() {
    let work = tempfile::tempdir().unwrap();
    let user = work.path().join("plugins");
    let mut items: Vec<Item<'_>> = Vec::new();
    let files = acme_items("acme-1.0/");
    for (path, bytes) in &files {
        items.push(Item::File(path, bytes));
    }
    items.push(Item::Exec("acme-1.0/bin/db", b"#!/bin/sh\n"));
    items.push(Item::File("__MACOSX/acme-1.0/._x", b"junk"));
    let source = write_zip(work.path(), "acme.zip", &zip_of(&items));

    let preview = preview_install(&source, &user).unwrap();
    assert_eq!(
        preview,
        InstallPreview {
            name: "acme".to_owned(),
            version: Some("1.0.0".to_owned()),
            description: "Acme.".to_owned(),
            skills: vec!["report".to_owned()],
            mcp_servers: Some(json!({"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db"}})),
            detail: vec![
                "commands are not supported and were left out".to_owned(),
                "The skill hooked was left out: SKILL.md: a plugin's skill may not declare hooks"
                    .to_owned(),
            ],
            replaces: false,
        }
    );
    assert!(!user.exists(), "a preview writes nothing");

    let plugin = install(&source, &user).unwrap();
    assert_eq!(
        (plugin.name.as_str(), plugin.state),
        ("acme", PluginState::Loaded)
    );
    assert_eq!(plugin.root, user.join("acme"));
    assert_eq!(
        tree(&user),
        vec![
            "acme/.claude-plugin/plugin.json",
            "acme/.mcp.json",
            "acme/bin/db",
            "acme/skills/hooked/SKILL.md",
            "acme/skills/report/SKILL.md",
        ]
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(user.join("acme/bin/db"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o111,
            0o111,
            "an MCP server's script stays executable"
        );
    }
    let loaded = load_plugins(None, &user);
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].server_ids(), vec!["db"]);
    assert!(preview_install(&source, &user).unwrap().replaces);
}

#[test]
fn a_folder_installs_and_replaces_the_old_copy() {
    let work = tempfile::tempdir().unwrap();
    let user = work.path().join("plugins");
    let source = work.path().join("src");
    let files = acme_items("");
    for (path, bytes) in &files {
        write_tree(&source, &[(path, std::str::from_utf8(bytes).unwrap())]);
    }
    write_tree(
        &source,
        &[(".git/HEAD", "ref"), ("skills/report/notes.md", "n")],
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        source.join("skills/report/notes.md"),
        source.join("skills/report/linked.md"),
    )
    .unwrap();
    write_tree(
        &user,
        &[
            ("acme/old.txt", "old"),
            ("acme/.claude-plugin/plugin.json", MANIFEST),
        ],
    );

    let plugin = install(&source, &user).unwrap();
    assert_eq!(plugin.state, PluginState::Loaded);
    let mut expected = vec![
        "acme/.claude-plugin/plugin.json",
        "acme/.mcp.json",
        "acme/skills/hooked/SKILL.md",
        "acme/skills/report/SKILL.md",
        "acme/skills/report/notes.md",
    ];
    if cfg!(unix) {
        expected.insert(4, "acme/skills/report/linked.md");
    }
    assert_eq!(tree(&user), expected, "the old copy is gone, .git left out");

    // The manifest may sit in one top folder of the chosen folder too.
    let wrapped = work.path().join("wrapped");
    write_tree(
        &wrapped,
        &[("inner/.claude-plugin/plugin.json", r#"{"name": "inner"}"#)],
    );
    assert_eq!(install(&wrapped, &user).unwrap().name, "inner");
}

#[test]
fn remove_deletes_installed_plugins_only() {
    let work = tempfile::tempdir().unwrap();
    let user = work.path().join("plugins");
    write_tree(&user, &[("acme/.claude-plugin/plugin.json", MANIFEST)]);
    remove_plugin("acme", &user).unwrap();
    assert!(tree(&user).is_empty());
    for name in ["acme", "shipped-one", "../etc", ""] {
        let err = remove_plugin(name, &user).unwrap_err();
        assert!(matches!(err, Error::PluginNotFound(_)), "{err:?}");
        assert_eq!(err.code(), pizza_protocol::ErrorCode::NotFound);
    }
}

#[test]
fn bad_zips_are_refused_and_nothing_is_written() {
    let work = tempfile::tempdir().unwrap();
    let user = work.path().join("plugins");
    let m = MANIFEST.as_bytes();
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (b"not a zip".to_vec(), "zip", "not a readable ZIP"),
        (
            zip_of(&[Item::File("readme.md", b"r")]),
            "zip",
            "has no .claude-plugin/plugin.json",
        ),
        (
            zip_of(&[
                Item::File(".claude-plugin/plugin.json", m),
                Item::File("nested/.claude-plugin/plugin.json", m),
            ]),
            "nested/.claude-plugin/plugin.json",
            "second plugin manifest",
        ),
        (
            zip_of(&[Item::File("a/b/.claude-plugin/plugin.json", m)]),
            "a/b/.claude-plugin/plugin.json",
            "one top folder",
        ),
        (
            zip_of(&[
                Item::File("top/.claude-plugin/plugin.json", m),
                Item::File("stray.md", b"s"),
            ]),
            "stray.md",
            "outside the plugin's folder top",
        ),
        (
            zip_of(&[
                Item::File(".claude-plugin/plugin.json", m),
                Item::File("/etc/passwd", b"x"),
            ]),
            "/etc/passwd",
            "absolute",
        ),
        (
            zip_of(&[
                Item::File(".claude-plugin/plugin.json", m),
                Item::File("a/../../x", b"x"),
            ]),
            "a/../../x",
            "..",
        ),
        (
            zip_of(&[
                Item::File(".claude-plugin/plugin.json", m),
                Item::Link("bin/db", "/bin/sh"),
            ]),
            "bin/db",
            "is a link",
        ),
        (
            zip_of(&[
                Item::File(".claude-plugin/plugin.json", m),
                Item::File("skills/CON.md", b"x"),
            ]),
            "skills/CON.md",
            "reserves for a device",
        ),
        (
            zip_of(&[Item::File(
                ".claude-plugin/plugin.json",
                br#"{"name": "Nope"}"#,
            )]),
            "plugin.json",
            "name \"Nope\" must be kebab-case",
        ),
        (
            zip_of(&[Item::File(
                ".claude-plugin/plugin.json",
                br#"{"name": "x", "skills": "../y"}"#,
            )]),
            "plugin.json",
            "must stay inside",
        ),
        (
            zip_of(&[Item::File(".claude-plugin/plugin.json", b"{")]),
            "plugin.json",
            "is not valid JSON",
        ),
    ];
    for (i, (bytes, field, part)) in cases.iter().enumerate() {
        let source = write_zip(work.path(), &format!("case{i}.zip"), bytes);
        assert_refused(&preview_install(&source, &user).unwrap_err(), field, part);
        assert_refused(&install(&source, &user).unwrap_err(), field, part);
    }
    assert!(!user.exists(), "nothing written");
}

#[test]
fn zip_limits_are_refused_and_nothing_is_written() {
    let work = tempfile::tempdir().unwrap();
    let user = work.path().join("plugins");
    let m = MANIFEST.as_bytes();

    let big = work.path().join("big.zip");
    fs::File::create(&big)
        .unwrap()
        .set_len(MAX_PLUGIN_PACKED_BYTES + 1)
        .unwrap();
    assert_refused(&install(&big, &user).unwrap_err(), "zip", "over 50 MiB");

    let names: Vec<String> = (0..=MAX_PLUGIN_FILES)
        .map(|i| format!("f/{i}.txt"))
        .collect();
    let mut items = vec![Item::File(".claude-plugin/plugin.json", m)];
    items.extend(names.iter().map(|n| Item::File(n, b"x")));
    let many = write_zip(work.path(), "many.zip", &zip_of(&items));
    assert_refused(&install(&many, &user).unwrap_err(), "zip", "2048");

    // Inflates past 200 MiB from a small packed file: counted as it inflates.
    let zeros = vec![0u8; 64 * 1024 * 1024];
    let bomb = zip_of(&[
        Item::File(".claude-plugin/plugin.json", m),
        Item::File("z1.bin", &zeros),
        Item::File("z2.bin", &zeros),
        Item::File("z3.bin", &zeros),
        Item::File("z4.bin", &zeros),
    ]);
    assert!(bomb.len() < 1024 * 1024, "{} bytes", bomb.len());
    let bomb = write_zip(work.path(), "bomb.zip", &bomb);
    assert_refused(
        &install(&bomb, &user).unwrap_err(),
        "z4.bin",
        "past 200 MiB",
    );
    assert!(!user.exists(), "nothing written");
}

#[test]
fn folder_limits_are_refused_and_nothing_is_written() {
    let work = tempfile::tempdir().unwrap();
    let user = work.path().join("plugins");

    let many = work.path().join("many");
    write_tree(&many, &[(".claude-plugin/plugin.json", MANIFEST)]);
    for i in 0..MAX_PLUGIN_FILES {
        write_tree(&many, &[(&format!("f/{i:04}.txt"), "x")]);
    }
    assert_refused(&install(&many, &user).unwrap_err(), "folder", "2048");

    let large = work.path().join("large");
    write_tree(&large, &[(".claude-plugin/plugin.json", MANIFEST)]);
    // Sparse: refused by its size before it is read.
    fs::File::create(large.join("huge.bin"))
        .unwrap()
        .set_len(MAX_PLUGIN_UNPACKED_BYTES + 1)
        .unwrap();
    assert_refused(
        &install(&large, &user).unwrap_err(),
        "huge.bin",
        "past 200 MiB",
    );

    let two = work.path().join("two");
    write_tree(
        &two,
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("x/.claude-plugin/plugin.json", MANIFEST),
        ],
    );
    assert_refused(
        &install(&two, &user).unwrap_err(),
        "x/.claude-plugin/plugin.json",
        "second plugin manifest",
    );

    #[cfg(unix)]
    {
        let secret = work.path().join("secret.txt");
        fs::write(&secret, "s").unwrap();
        let linked = work.path().join("linked");
        write_tree(&linked, &[(".claude-plugin/plugin.json", MANIFEST)]);
        std::os::unix::fs::symlink(&secret, linked.join("secret.txt")).unwrap();
        assert_refused(
            &install(&linked, &user).unwrap_err(),
            "secret.txt",
            "outside",
        );
    }
    assert!(!user.exists(), "nothing written");
}
