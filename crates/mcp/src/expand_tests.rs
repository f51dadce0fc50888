use std::collections::BTreeMap;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/me".into()),
        "EMPTY" => Some(String::new()),
        "TOKEN" => Some("t0k".into()),
        "LOOKS_LIKE" => Some("${TOKEN}".into()),
        _ => None,
    }
}

fn secrets(name: &str) -> Option<String> {
    (name == "mcp/web/header/Authorization").then(|| "Bearer s3cret".into())
}

fn user() -> Expander<'static> {
    Expander {
        env: &env,
        secrets: &secrets,
        plugin_root: None,
    }
}

#[test]
fn expands_each_kind_of_placeholder() {
    let ex = user();
    let cases = [
        ("plain", "plain"),
        ("${HOME}/bin", "/home/me/bin"),
        ("a${TOKEN}b${TOKEN}", "at0kbt0k"),
        ("${MISSING:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${HOME:-fallback}", "/home/me"),
        ("${MISSING:-}", ""),
        ("${EMPTY}", ""),
        ("${secret:mcp/web/header/Authorization}", "Bearer s3cret"),
        // Literal: a lone `$`, `$$`, `${` without `}`, not a name.
        ("cost: $5 and $$", "cost: $5 and $$"),
        ("${HOME", "${HOME"),
        ("x ${not a name} y", "x ${not a name} y"),
        ("${}", "${}"),
        ("${secret:}", "${secret:}"),
        // An expanded value is not expanded again.
        ("${LOOKS_LIKE}", "${TOKEN}"),
    ];
    for (text, expected) in cases {
        assert_eq!(expand(text, &ex).as_deref(), Ok(expected), "{text}");
    }
}

#[test]
fn unset_variables_and_missing_secrets_are_errors() {
    let ex = user();
    assert_eq!(expand("${NOPE}", &ex), Err("${NOPE} is not set".into()));
    assert_eq!(
        expand("${secret:mcp/x/env/KEY}", &ex),
        Err("${secret:mcp/x/env/KEY} is not in the OS keychain".into())
    );
    assert_eq!(
        expand("${CLAUDE_PLUGIN_ROOT}/run", &ex),
        Err("${CLAUDE_PLUGIN_ROOT} only means something in a plugin's server".into())
    );
}

#[test]
fn plugin_root_only_for_plugin_servers() {
    let ex = Expander {
        plugin_root: Some(Path::new("/plugins/tools")),
        ..user()
    };
    assert_eq!(
        expand("${CLAUDE_PLUGIN_ROOT}/bin/server", &ex).unwrap(),
        "/plugins/tools/bin/server"
    );
    assert_eq!(expand("${PLUGIN_ROOT}/x", &ex).unwrap(), "/plugins/tools/x");
}

#[test]
fn expands_every_string_of_a_transport_and_names_the_field() {
    let ex = Expander {
        plugin_root: Some(Path::new("/p")),
        ..user()
    };
    let stdio = ServerTransport::Stdio {
        command: "${CLAUDE_PLUGIN_ROOT}/server".into(),
        args: vec!["--home".into(), "${HOME}".into()],
        env: BTreeMap::from([("API".into(), "${TOKEN}".into())]),
        cwd: Some("${HOME}/work".into()),
    };
    assert_eq!(
        expand_transport(&stdio, &ex).unwrap(),
        ServerTransport::Stdio {
            command: "/p/server".into(),
            args: vec!["--home".into(), "/home/me".into()],
            env: BTreeMap::from([("API".into(), "t0k".into())]),
            cwd: Some("/home/me/work".into()),
        }
    );
    let http = ServerTransport::Http {
        url: "https://${MISSING:-example.com}/mcp".into(),
        headers: BTreeMap::from([(
            "Authorization".into(),
            "${secret:mcp/web/header/Authorization}".into(),
        )]),
    };
    assert_eq!(
        expand_transport(&http, &ex).unwrap(),
        ServerTransport::Http {
            url: "https://example.com/mcp".into(),
            headers: BTreeMap::from([("Authorization".into(), "Bearer s3cret".into())]),
        }
    );

    let errors = [
        (
            ServerTransport::Stdio {
                command: "x".into(),
                args: vec![],
                env: BTreeMap::from([("FOO".into(), "${X}".into())]),
                cwd: None,
            },
            "env FOO: ${X} is not set",
        ),
        (
            ServerTransport::Stdio {
                command: "x".into(),
                args: vec!["ok".into(), "${X}".into()],
                env: BTreeMap::new(),
                cwd: None,
            },
            "args[1]: ${X} is not set",
        ),
        (
            ServerTransport::Stdio {
                command: "${X}".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            },
            "command: ${X} is not set",
        ),
        (
            ServerTransport::Sse {
                url: "${X}".into(),
                headers: BTreeMap::new(),
            },
            "url: ${X} is not set",
        ),
        (
            ServerTransport::Sse {
                url: "https://x".into(),
                headers: BTreeMap::from([("Key".into(), "${secret:nope}".into())]),
            },
            "header Key: ${secret:nope} is not in the OS keychain",
        ),
    ];
    for (transport, expected) in errors {
        assert_eq!(expand_transport(&transport, &ex), Err(expected.into()));
    }
}

#[test]
fn secret_references() {
    let name = secret_name("web", SecretKind::Header, "Authorization");
    assert_eq!(name, "mcp/web/header/Authorization");
    assert_eq!(
        secret_name("db", SecretKind::Env, "PASSWORD"),
        "mcp/db/env/PASSWORD"
    );
    let reference = secret_reference(&name);
    assert_eq!(reference, "${secret:mcp/web/header/Authorization}");
    assert_eq!(secret_reference_name(&reference), Some(name.as_str()));
    for not_one in [
        "Bearer ${secret:x}",
        "${secret:x} ",
        "${secret:}",
        "${TOKEN}",
        "${secret:a}${secret:b}",
        "plain",
    ] {
        assert_eq!(secret_reference_name(not_one), None, "{not_one}");
    }
}
