//! Webhook secrets: made by the app from the OS's randomness, stored only as
//! a salted SHA-256 hash, and compared in constant time.
//!
//! A secret is 32 random bytes, so a fast hash is enough: there is no
//! dictionary to guess from, and the listener's rate limit caps guesses
//! anyway. The salt keeps two triggers with one secret from sharing a hash.

use pizza_store::SecretHash;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::WebhookError;

/// The shortest secret a webhook trigger accepts, in characters.
pub const MIN_SECRET_CHARS: usize = 16;

/// What every generated secret starts with, so one is recognisable in a
/// config file or a leaked-credential scan.
const SECRET_PREFIX: &str = "pzb_";
/// Random bytes in a generated secret (256 bits).
const SECRET_RANDOM_BYTES: usize = 32;
/// Random bytes in a salt; the store accepts 8 to 128.
const SALT_BYTES: usize = 16;

/// A new secret: `pzb_` followed by 32 random bytes in lower-case hex, safe
/// in a URL, a header and a shell command without quoting.
pub fn generate_secret() -> Result<String, WebhookError> {
    let random: [u8; SECRET_RANDOM_BYTES] = random_bytes()?;
    let mut secret = String::with_capacity(SECRET_PREFIX.len() + 2 * SECRET_RANDOM_BYTES);
    secret.push_str(SECRET_PREFIX);
    for byte in random {
        secret.push(hex_digit(byte >> 4));
        secret.push(hex_digit(byte & 0x0f));
    }
    Ok(secret)
}

/// The form a secret is stored in: a fresh random salt and
/// SHA-256(salt ‖ secret). Two calls with one secret give different hashes.
pub fn hash_secret(secret: &str) -> Result<SecretHash, WebhookError> {
    let salt: [u8; SALT_BYTES] = random_bytes()?;
    Ok(SecretHash {
        hash: salted_hash(&salt, secret),
        salt: salt.to_vec(),
    })
}

/// Whether `given` is the secret `stored` was made from. The comparison
/// takes the same time wherever the hashes differ, so timing tells a
/// guesser nothing.
pub fn verify_secret(given: &str, stored: &SecretHash) -> bool {
    let computed = salted_hash(&stored.salt, given);
    // Lengths are not secret: a stored hash of another length never matches.
    computed.ct_eq(&stored.hash).into()
}

/// Refuses a secret a webhook trigger cannot use, with a sentence that
/// starts with the field (`webhook_secret: …`) for `INVALID_INPUT`.
pub fn check_secret(secret: &str) -> Result<(), String> {
    let chars = secret.chars().count();
    if chars < MIN_SECRET_CHARS {
        return Err(format!(
            "webhook_secret: a secret needs at least {MIN_SECRET_CHARS} characters; this one has {chars}"
        ));
    }
    // A header value is trimmed and cannot carry control characters, so a
    // secret with spaces or non-ASCII could never be sent back correctly.
    if !secret.bytes().all(|byte| byte.is_ascii_graphic()) {
        return Err(
            "webhook_secret: use only visible ASCII characters, without spaces, so it can be sent in an HTTP header"
                .to_owned(),
        );
    }
    Ok(())
}

fn salted_hash(salt: &[u8], secret: &str) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(salt);
    hasher.update(secret.as_bytes());
    hasher.finalize().to_vec()
}

fn random_bytes<const N: usize>() -> Result<[u8; N], WebhookError> {
    let mut bytes = [0_u8; N];
    getrandom::fill(&mut bytes).map_err(|error| WebhookError::Randomness(error.to_string()))?;
    Ok(bytes)
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble & 0x0f)])
}

#[cfg(test)]
#[path = "secret_tests.rs"]
mod tests;
