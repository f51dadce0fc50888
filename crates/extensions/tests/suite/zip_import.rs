use std::io::{Cursor, Write};

use pizza_extensions::{
    MAX_ZIP_FILES, MAX_ZIP_PACKED_BYTES, import_zip, import_zip_file, write_user_skill,
};
use pretty_assertions::assert_eq;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::support::{assert_invalid, skill_md, tree};

enum Item<'a> {
    File(&'a str, &'a [u8]),
    Dir(&'a str),
    Link(&'a str, &'a str),
}

fn deflated() -> SimpleFileOptions {
    SimpleFileOptions::default().compression_method(CompressionMethod::Deflated)
}

fn zip_of(items: &[Item<'_>]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for item in items {
        match item {
            Item::File(path, bytes) => {
                writer.start_file(*path, deflated()).unwrap();
                writer.write_all(bytes).unwrap();
            }
            Item::Dir(path) => writer.add_directory(*path, deflated()).unwrap(),
            Item::Link(path, target) => writer.add_symlink(*path, *target, deflated()).unwrap(),
        }
    }
    writer.finish().unwrap().into_inner()
}

#[test]
fn a_zip_with_a_top_folder_or_a_root_skill_md_imports_and_saves() {
    let md = skill_md("mine", "");
    let zipped = zip_of(&[
        Item::Dir("mine/"),
        Item::File("mine/SKILL.md", md.as_bytes()),
        Item::File("mine/references/a.md", b"A"),
        Item::File("mine/bin/data.bin", &[0, 1, 2, 255]),
        Item::File("__MACOSX/mine/._SKILL.md", b"junk"),
    ]);
    let bundle = import_zip(&zipped).unwrap();
    assert_eq!(bundle.name(), "mine");
    let paths: Vec<&str> = bundle.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["bin/data.bin", "references/a.md"]);

    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("skills");
    write_user_skill(&user, &bundle).unwrap();
    assert_eq!(
        tree(&user),
        vec!["mine/SKILL.md", "mine/bin/data.bin", "mine/references/a.md"]
    );

    let root = zip_of(&[
        Item::File("SKILL.md", md.as_bytes()),
        Item::File("notes.md", b"n"),
    ]);
    let bundle = import_zip(&root).unwrap();
    assert_eq!((bundle.name(), bundle.files.len()), ("mine", 1));

    let path = dir.path().join("mine.zip");
    std::fs::write(&path, &root).unwrap();
    assert_eq!(import_zip_file(&path).unwrap().name(), "mine");
}

#[test]
fn bad_zips_are_refused_naming_the_file() {
    let md = skill_md("mine", "");
    let md = md.as_bytes();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"not a zip at all".to_vec(), "zip"),
        (zip_of(&[Item::File("notes.md", b"n")]), "zip"),
        (
            zip_of(&[
                Item::File("mine/SKILL.md", md),
                Item::File("mine/sub/SKILL.md", md),
            ]),
            "mine/sub/SKILL.md",
        ),
        (
            zip_of(&[Item::File("a/SKILL.md", md), Item::File("b/SKILL.md", md)]),
            "b/SKILL.md",
        ),
        (zip_of(&[Item::File("a/b/SKILL.md", md)]), "a/b/SKILL.md"),
        (zip_of(&[Item::File("other/SKILL.md", md)]), "name"),
        (
            zip_of(&[
                Item::File("mine/SKILL.md", md),
                Item::File("elsewhere.md", b"x"),
            ]),
            "elsewhere.md",
        ),
        (
            zip_of(&[
                Item::File("SKILL.md", md),
                Item::File("../../etc/evil", b"x"),
            ]),
            "../../etc/evil",
        ),
        (
            zip_of(&[Item::File("SKILL.md", md), Item::File("a/../../evil", b"x")]),
            "a/../../evil",
        ),
        (
            zip_of(&[Item::File("SKILL.md", md), Item::File("/etc/evil", b"x")]),
            "/etc/evil",
        ),
        (
            zip_of(&[Item::File("SKILL.md", md), Item::File("C:\\evil.txt", b"x")]),
            "C:\\evil.txt",
        ),
        (
            zip_of(&[
                Item::File("SKILL.md", md),
                Item::Link("link", "/etc/passwd"),
            ]),
            "link",
        ),
        (
            zip_of(&[Item::File("SKILL.md", b"---\nname: mine\n---\nbody\n")]),
            "description",
        ),
        (zip_of(&[Item::File("SKILL.md", &[0xff, 0xfe])]), "SKILL.md"),
    ];
    for (bytes, field) in cases {
        let err = import_zip(&bytes).unwrap_err();
        assert_invalid(&err, field);
    }
}

#[test]
fn too_many_files_or_too_many_packed_bytes_are_refused() {
    let md = skill_md("mine", "");
    let names: Vec<String> = (0..MAX_ZIP_FILES).map(|i| format!("f{i}.md")).collect();
    let mut items = vec![Item::File("SKILL.md", md.as_bytes())];
    items.extend(names.iter().map(|n| Item::File(n, b"x")));
    let message = assert_invalid(&import_zip(&zip_of(&items)).unwrap_err(), "zip");
    assert!(message.contains("256"), "{message}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.zip");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_ZIP_PACKED_BYTES + 1).unwrap();
    let message = assert_invalid(&import_zip_file(&path).unwrap_err(), "zip");
    assert!(message.contains("20 MiB"), "{message}");
}

#[test]
fn a_zip_bomb_stops_at_the_limit_by_the_bytes_it_inflates() {
    let md = skill_md("mine", "");
    // One small entry that inflates past the one-file limit.
    let zeros = vec![0u8; 12 * 1024 * 1024];
    let bomb = zip_of(&[
        Item::File("SKILL.md", md.as_bytes()),
        Item::File("zeros.bin", &zeros),
    ]);
    assert!(
        bomb.len() < 64 * 1024,
        "the bomb is small: {} bytes",
        bomb.len()
    );
    let message = assert_invalid(&import_zip(&bomb).unwrap_err(), "zeros.bin");
    assert!(message.contains("inflates past"), "{message}");

    // Six entries each under the file limit that together pass 50 MiB.
    let nine = vec![0u8; 9 * 1024 * 1024];
    let names: Vec<String> = (0..6).map(|i| format!("part{i}.bin")).collect();
    let mut items = vec![Item::File("SKILL.md", md.as_bytes())];
    items.extend(names.iter().map(|n| Item::File(n, &nine)));
    let bombs = zip_of(&items);
    assert!(bombs.len() < 256 * 1024, "{} bytes", bombs.len());
    let message = assert_invalid(&import_zip(&bombs).unwrap_err(), "part5.bin");
    assert!(message.contains("50 MiB"), "{message}");
}

#[test]
fn windows_separators_and_a_leading_dot_folder_are_read_as_paths() {
    let md = skill_md("mine", "");
    let zipped = zip_of(&[
        Item::File("./mine/SKILL.md", md.as_bytes()),
        Item::File("mine\\references\\a.md", b"A"),
    ]);
    let bundle = import_zip(&zipped).unwrap();
    let paths: Vec<&str> = bundle.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!((bundle.name(), paths), ("mine", vec!["references/a.md"]));
}
