//! The attacks. Paths name the lab of `boundary.rs`: grants `ro` (read-only,
//! containing `rw`), `rw` (read-write), `deep`, `dev` (`/dev`, read-only)
//! and `/memories/`; secrets live in `<lab>/outside/`.

use serde_json::{Value, json};

use super::boundary::{Attack, Hook, Lab};

const TOOLS: [&str; 6] = ["ls", "read_file", "glob", "grep", "write_file", "edit_file"];

/// `path` through one tool, with arguments that would show or change a
/// secret if the path escaped.
fn through(tool: &'static str, path: &str) -> Attack {
    let args: Value = match tool {
        "ls" => json!({"path": path}),
        "read_file" => json!({"file_path": path}),
        "glob" => json!({"pattern": "**/*", "path": path}),
        "grep" => json!({"pattern": "S3CR3T.CONTENT|.", "path": path, "output_mode": "content"}),
        "write_file" => json!({"file_path": path, "content": "PWNED"}),
        _ => json!({"file_path": path, "old_string": "S3CR3T", "new_string": "PWNED"}),
    };
    Attack::new(format!("{tool} {path:?}"), tool, args)
}

fn every_tool(all: &mut Vec<Attack>, paths: &[&str]) {
    for path in paths {
        for tool in TOOLS {
            all.push(through(tool, path));
        }
    }
}

pub(super) fn corpus(lab: &Lab) -> Vec<Attack> {
    let mut all = Vec::new();
    traversal(&mut all);
    encoded_names(&mut all);
    absolute(&mut all, lab);
    links(&mut all);
    swaps_and_revocations(&mut all);
    long_paths(&mut all);
    special_files(&mut all);
    unicode_and_case(&mut all);
    read_only(&mut all);
    malformed_arguments(&mut all);
    all
}

/// `..` in every position, plain and encoded once; separators smuggled in
/// by encoding, backslashes, NUL. Every one through every tool.
fn traversal(all: &mut Vec<Attack>) {
    every_tool(
        all,
        &[
            "/local/ro/../outside/outside-secret.txt",
            "/local/ro/..",
            "/local/rw/../../outside",
            "/local/../../outside",
            "/..",
            "..",
            "../outside",
            "local/ro/../../outside",
            "/local/ro/sub/../../../outside",
            "/local/ro/./../outside",
            "/memories/../../outside",
            "/memories/../app.db",
            "/memories/%2e%2e/app.db",
            "/memories/%2e%2e",
            "/local/ro/%2e%2e/outside/outside-secret.txt",
            "/local/ro/%2E%2E/%2e%2e/outside",
            "/local/rw/.%2e/.%2e/outside",
            "/local/rw/%2e./%2e./outside",
            "/local/rw/%2e",
            "/local/rw/%2e%2e%2f%2e%2e%2foutside",
            "/local/rw/..%2f..%2foutside",
            "/local/rw/sub%2f..%2f..%2f..%2foutside",
            "/local/ro%2f..%2f..%2foutside",
            "/local/%2e%2e/outside",
            "/memories/%2e%2e/%2e%2e/outside",
            "/local/rw/%2fetc%2fpasswd",
            "/local/ro/\\..\\..\\outside",
            "/local/rw\\..\\..\\outside",
            "/local/rw/a%00b.md",
            "/local/rw/%00/../outside",
            "/local/ro/readme.md\u{0}.txt",
            "\u{0}/local/ro",
            "/local/rw/sub/%2E%2e",
        ],
    );
}

/// Doubly encoded and overlong forms decode (once) to harmless literal
/// names or to bytes that are refused; a write may create the literal name
/// inside the writable grant, which is contained.
fn encoded_names(all: &mut Vec<Attack>) {
    for path in [
        "/local/rw/%252e%252e/outside/x.txt",
        "/local/rw/%252e%252e%252foutside",
        "/local/ro/%25252e%25252e/outside",
        "/local/rw/%c0%ae%c0%ae/outside",
        "/local/rw/%c0%ae%c0%ae%c0%afoutside",
        "/local/rw/%e0%80%ae%e0%80%ae/outside",
        "/local/rw/%c0%2e%c0%2e/outside",
        "/local/rw/%c1%9c..%c1%9coutside",
        "/local/rw/%u002e%u002e/outside",
        "/local/rw/..%5c..%5coutside",
        "/local/rw/%5c..%5c..%5coutside",
    ] {
        for tool in TOOLS {
            all.push(through(tool, path).contained());
        }
    }
}

/// Host paths and other roots given as virtual paths: they name state
/// files (in memory, never on disk) or nothing.
fn absolute(all: &mut Vec<Attack>, lab: &Lab) {
    let root = lab.root.display().to_string();
    let host = format!("{root}/outside/outside-secret.txt");
    let inside_grant = format!("/local/ro{root}/outside/outside-secret.txt");
    let as_id = format!("/local{root}/outside/outside-secret.txt");
    for path in [
        host.as_str(),
        inside_grant.as_str(),
        as_id.as_str(),
        "/etc/passwd",
        "/proc/self/root/etc/passwd",
        "//etc/passwd",
        "/local/ro//etc/passwd",
        "/local//etc/passwd",
        "file:///etc/passwd",
        "~/.ssh/id_rsa",
        "/local/ro/~root/.ssh",
        "C:\\Windows\\win.ini",
    ] {
        // A state file of that name may be found empty or created (in
        // memory); nothing on disk is read or written.
        for tool in TOOLS {
            all.push(through(tool, path).contained());
        }
    }
}

/// Links inside the grants pointing out: files and folders, relative and
/// absolute targets, chains, a link to a device, a linked parent for
/// writes, a link back up into the read-only part.
fn links(all: &mut Vec<Attack>) {
    for path in [
        "/local/ro/link-file",
        "/local/ro/link-rel",
        "/local/ro/link-dir/outside-secret.txt",
        "/local/ro/link-dir/dir/outside-secret-2.txt",
        "/local/ro/link-dir-rel/outside-secret.txt",
        "/local/ro/chain1",
        "/local/ro/chain2",
        "/local/ro/link-dev",
        "/local/ro/\u{fb01}le-link",
        "/local/ro/file-link",
        "/local/ro/link-inside/a.md",
        "/local/rw/link-out/outside-secret.txt",
        "/local/rw/link-up/readme.md",
        "/local/rw/link-file-out",
        "/local/rw/dangling",
        "/local/dev/stdin",
        "/local/dev/fd/0",
    ] {
        all.push(through("read_file", path));
    }
    for path in [
        "/local/ro/link-dir",
        "/local/ro/link-dir-rel",
        "/local/ro/link-file",
        "/local/rw/link-out",
        "/local/rw/link-up",
        "/local/ro/link-dir/dir",
    ] {
        all.push(through("ls", path));
        all.push(through("glob", path));
        all.push(through("grep", path));
    }
    // Walks skip links: these succeed with only what is inside.
    for path in ["/", "/local", "/local/ro", "/local/rw"] {
        all.push(through("ls", path).contained());
        all.push(through("glob", path).contained());
        all.push(through("grep", path).contained());
    }
    for path in [
        "/local/rw/link-out/new.txt",
        "/local/rw/link-out/outside-secret.txt",
        "/local/rw/link-out/dir/new/deeper.md",
        "/local/rw/link-up/readme.md",
        "/local/rw/link-up/new.md",
        "/local/rw/link-up/sibling/new.md",
        "/local/rw/link-file-out",
        "/local/rw/dangling",
        "/local/rw/dangling-parent/new.md",
    ] {
        all.push(through("write_file", path));
        all.push(through("edit_file", path));
    }
}

/// A folder swapped for a link after the path was checked and before the
/// open; a grant removed or made read-only between two calls; memory
/// turned off.
fn swaps_and_revocations(all: &mut Vec<Attack>) {
    for path in [
        "/local/rw/swapdir/f.txt",
        "/local/rw/swapdir/new.txt",
        "/local/rw/swapdir",
    ] {
        for tool in TOOLS {
            all.push(through(tool, path).hook(Hook::SwapForLink("ro/rw/swapdir")));
        }
    }
    for tool in TOOLS {
        all.push(through(tool, "/local/rw/existing.md").hook(Hook::SwapForLink("ro/rw")));
        all.push(through(tool, "/local/rw/existing.md").hook(Hook::RemoveGrant("rw")));
        all.push(through(tool, "/local/ro/readme.md").hook(Hook::RemoveGrant("ro")));
        all.push(through(tool, "/memories/m.md").hook(Hook::MemoryOff));
    }
    for tool in ["write_file", "edit_file"] {
        all.push(through(tool, "/local/rw/existing.md").hook(Hook::MakeReadOnly("rw")));
        all.push(through(tool, "/local/rw/new.md").hook(Hook::MakeReadOnly("rw")));
    }
}

fn long_paths(all: &mut Vec<Attack>) {
    let virtual_long = format!("/local/rw/{}", "a/".repeat(520));
    let component = format!("/local/rw/{}", "a".repeat(256));
    let encoded_component = format!("/local/rw/{}", "%41".repeat(256));
    let host_long = format!("/local/deep/{}/{}", "c".repeat(150), "x".repeat(100));
    for path in [&virtual_long, &component, &encoded_component, &host_long] {
        for tool in TOOLS {
            all.push(through(tool, path));
        }
    }
}

/// Devices, FIFOs and sockets are never opened for reading or writing.
fn special_files(all: &mut Vec<Attack>) {
    for path in [
        "/local/dev/zero",
        "/local/dev/null",
        "/local/dev/urandom",
        "/local/dev/random",
        "/local/dev/full",
        "/local/dev/tty",
        "/local/rw/fifo",
        "/local/rw/sock",
    ] {
        all.push(through("read_file", path));
        all.push(through("write_file", path));
        all.push(through("edit_file", path));
        all.push(through("ls", path));
    }
    for path in ["/local/dev", "/local/rw"] {
        all.push(through("grep", path).contained());
        all.push(through("glob", path).contained());
    }
}

/// Confusable and case-only spellings never reach another file than the
/// one they name exactly (or uniquely, after NFKC, for reads).
fn unicode_and_case(all: &mut Vec<Attack>) {
    for path in [
        "/local/RO/readme.md",
        "/local/Ro/readme.md",
        "/local/ｒｏ/readme.md",
        "/local/ro/README.md",
        "/local/ro/COLLIDE.md",
        "/local/ro/ＣＯＬＬＩＤＥ.md",
        "/local/ro/\u{212b}.md",
        "/local/ro/%E2%84%AB.md",
        "/local/rw/．．/outside/outside-secret.txt",
        "/local/rw/\u{2025}/outside/outside-secret.txt",
        "/local/rw/%E2%80%A5/outside",
        "/local/rw/%EF%BC%8E%EF%BC%8E/outside",
        "/local/rw/a\u{ff0f}..\u{ff0f}outside",
        "/local/rw/%EF%BC%8F..%EF%BC%8Foutside",
        "/local/rw/\u{fe30}/outside",
        "/local/rw/\u{ff0e}",
    ] {
        for tool in ["ls", "read_file", "write_file", "edit_file"] {
            all.push(through(tool, path));
        }
    }
}

/// Writes to the read-only grant, including the part of it that a
/// writable grant covers, and writes back into it from the writable one.
fn read_only(all: &mut Vec<Attack>) {
    for path in [
        "/local/ro/readme.md",
        "/local/ro/new.md",
        "/local/ro/sub/new/deep.md",
        "/local/ro/sibling/keep.md",
        "/local/ro/sibling/new.md",
        "/local/ro/rw/existing.md",
        "/local/ro/rw/new.md",
        "/local/ro/Collide.md",
        "/local/ro",
        "/local/dev/new.txt",
        "/local/rw/../readme.md",
        "/local/rw/%2e%2e/sibling/keep.md",
        "/local/rw/..%2fsibling%2fkeep.md",
        "/local",
        "/memories",
        "/local/rw",
    ] {
        all.push(through("write_file", path));
        all.push(through("edit_file", path));
    }
}

fn malformed_arguments(all: &mut Vec<Attack>) {
    for (tool, args) in [
        ("read_file", json!({"file_path": ["/local/ro/link-file"]})),
        ("read_file", json!({"file_path": {"path": "/etc/passwd"}})),
        (
            "read_file",
            json!({"file_path": "/local/ro/readme.md", "follow": true}),
        ),
        ("ls", json!({"path": 7})),
        ("write_file", json!({"file_path": "/local/rw/x.md"})),
        ("glob", json!({"pattern": "[", "path": "/local/ro"})),
        ("grep", json!({"pattern": "(", "path": "/local/ro"})),
    ] {
        all.push(Attack::new(format!("{tool} {args}"), tool, args));
    }
}
