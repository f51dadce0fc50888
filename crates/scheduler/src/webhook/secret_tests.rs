use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_generated_secret_is_long_url_safe_and_new_each_time() {
    let first = generate_secret().unwrap();
    let second = generate_secret().unwrap();
    assert_ne!(first, second);
    assert!(first.starts_with("pzb_"), "{first}");
    assert_eq!(first.len(), 4 + 64);
    assert!(
        first[4..]
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)),
        "{first}"
    );
    assert_eq!(check_secret(&first), Ok(()));
}

#[test]
fn two_hashes_of_one_secret_differ_by_salt_and_both_verify() {
    let secret = generate_secret().unwrap();
    let first = hash_secret(&secret).unwrap();
    let second = hash_secret(&secret).unwrap();
    assert_ne!(first.salt, second.salt);
    assert_ne!(first.hash, second.hash);
    assert!(verify_secret(&secret, &first));
    assert!(verify_secret(&secret, &second));
}

#[test]
fn a_hash_fits_what_the_store_accepts() {
    let stored = hash_secret("0123456789abcdef").unwrap();
    assert_eq!(stored.hash.len(), 32);
    assert_eq!(stored.salt.len(), 16);
}

#[test]
fn the_hash_is_sha256_of_salt_then_secret() {
    let stored = SecretHash {
        salt: b"salt".to_vec(),
        hash: Sha256::digest(b"saltsecret-of-sixteen").to_vec(),
    };
    assert!(verify_secret("secret-of-sixteen", &stored));
}

#[test]
fn a_wrong_secret_does_not_verify() {
    let secret = generate_secret().unwrap();
    let stored = hash_secret(&secret).unwrap();
    let mut near_miss = secret.clone();
    near_miss.pop();
    near_miss.push('z');
    assert!(!verify_secret(&near_miss, &stored));
    assert!(!verify_secret("", &stored));
    assert!(!verify_secret(&format!("{secret} "), &stored));
    assert!(!verify_secret(&secret.to_uppercase(), &stored));
}

#[test]
fn a_stored_hash_of_another_length_never_matches() {
    let mut stored = hash_secret("0123456789abcdef").unwrap();
    stored.hash.truncate(16);
    assert!(!verify_secret("0123456789abcdef", &stored));
}

#[test]
fn a_secret_under_sixteen_characters_is_refused_naming_the_field() {
    assert_eq!(
        check_secret("fifteen-chars!!"),
        Err("webhook_secret: a secret needs at least 16 characters; this one has 15".to_owned())
    );
    assert_eq!(check_secret("sixteen-chars!!!"), Ok(()));
    // Characters, not bytes: eight two-byte letters are still too short.
    let refused = check_secret("éééééééé").unwrap_err();
    assert!(refused.starts_with("webhook_secret: "), "{refused}");
    assert!(refused.contains("this one has 8"), "{refused}");
}

#[test]
fn a_secret_a_header_cannot_carry_is_refused() {
    for secret in [
        "has a space in it!!",
        "tab\tseparated-secret",
        "ünïcödé-sëcrët-long",
    ] {
        let refused = check_secret(secret).unwrap_err();
        assert!(refused.starts_with("webhook_secret: "), "{refused}");
    }
}
