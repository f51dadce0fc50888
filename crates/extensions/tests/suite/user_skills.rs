use std::fs;

use pizza_extensions::{BundleFile, Error, delete_user_skill, save_user_skill};
use pretty_assertions::assert_eq;

use super::support::{assert_invalid, skill_md, tree};

#[test]
fn a_save_writes_the_bundle_and_a_second_save_replaces_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("skills");
    let bundle = save_user_skill(
        &user,
        "mine",
        &skill_md("mine", ""),
        vec![
            BundleFile::new("references/a.md", "A"),
            BundleFile::new("img/logo.png", vec![0x89, b'P', b'N', b'G', 0, 0xff]),
        ],
    )
    .unwrap();
    assert_eq!(bundle.files[0].path, "img/logo.png");
    assert_eq!(bundle.files[0].text(), None);
    assert_eq!(bundle.files[1].text(), Some("A"));
    assert_eq!(
        tree(&user),
        vec!["mine/SKILL.md", "mine/img/logo.png", "mine/references/a.md"]
    );
    assert_eq!(
        fs::read(user.join("mine/img/logo.png")).unwrap(),
        bundle.files[0].bytes
    );

    save_user_skill(
        &user,
        "mine",
        &skill_md("mine", ""),
        vec![BundleFile::new("b.md", "B")],
    )
    .unwrap();
    assert_eq!(tree(&user), vec!["mine/SKILL.md", "mine/b.md"]);

    delete_user_skill(&user, "mine").unwrap();
    assert_eq!(tree(&user), Vec::<String>::new());
    assert!(matches!(delete_user_skill(&user, "mine"), Err(Error::NotFound(n)) if n == "mine"));
    assert_invalid(&delete_user_skill(&user, "../x").unwrap_err(), "name");
}

#[test]
fn a_refused_save_writes_nothing_and_keeps_the_old_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("skills");
    save_user_skill(
        &user,
        "mine",
        &skill_md("mine", ""),
        vec![BundleFile::new("a.md", "A")],
    )
    .unwrap();
    let before = tree(&user);
    let big = vec![0u8; (pizza_extensions::MAX_FILE_BYTES + 1) as usize];
    let cases: Vec<(&str, String, Vec<BundleFile>, &str)> = vec![
        ("Mine", skill_md("Mine", ""), vec![], "name"),
        ("mine", skill_md("other", ""), vec![], "name"),
        (
            "mine",
            "---\nname: mine\n---\nbody".into(),
            vec![],
            "description",
        ),
        (
            "mine",
            "---\nname: mine\ndescription: d\n---\n".into(),
            vec![],
            "body",
        ),
        (
            "mine",
            skill_md("mine", "tools: [mcp:x]\n"),
            vec![],
            "tools[0]",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("../escape.md", "x")],
            "../escape.md",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("/etc/passwd", "x")],
            "/etc/passwd",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("a\\b.md", "x")],
            "a\\b.md",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("a//b.md", "x")],
            "a//b.md",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("SKILL.md", "x")],
            "SKILL.md",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("a.md", "x"), BundleFile::new("a.md", "y")],
            "a.md",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("a", "x"), BundleFile::new("a/b.md", "y")],
            "a",
        ),
        (
            "mine",
            skill_md("mine", ""),
            vec![BundleFile::new("big.bin", big)],
            "big.bin",
        ),
        (
            "mine",
            skill_md("mine", ""),
            (0..256)
                .map(|i| BundleFile::new(format!("f{i}.md"), "x"))
                .collect(),
            "files",
        ),
    ];
    for (name, text, files, field) in cases {
        let err = save_user_skill(&user, name, &text, files).unwrap_err();
        assert_invalid(&err, field);
        assert_eq!(tree(&user), before, "{field}");
    }
    assert_eq!(fs::read_to_string(user.join("mine/a.md")).unwrap(), "A");
}
