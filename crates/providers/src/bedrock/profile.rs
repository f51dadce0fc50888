//! AWS shared profiles: `~/.aws/credentials` and `~/.aws/config` (or the
//! files `AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE` name), read the
//! way the AWS CLI reads them for static keys.

use std::path::{Path, PathBuf};

use ini::{Ini, ParseOption};
use pizza_llm::{Error, Result};

use super::AccessKeys;

/// Where the shared files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsProfileFiles {
    pub credentials: PathBuf,
    pub config: PathBuf,
}

impl AwsProfileFiles {
    /// The files the AWS CLI reads: the environment's choice, else `~/.aws/`.
    pub fn from_env() -> Self {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from)
            .unwrap_or_default();
        let pick = |var: &str, file: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".aws").join(file))
        };
        Self {
            credentials: pick("AWS_SHARED_CREDENTIALS_FILE", "credentials"),
            config: pick("AWS_CONFIG_FILE", "config"),
        }
    }
}

/// What a profile gives Bedrock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsProfile {
    pub keys: AccessKeys,
    /// The profile's `region`, when it has one.
    pub region: Option<String>,
}

/// Keys that mean the profile gets credentials some other way, which
/// needs the AWS SDK's providers (not shipped here).
const INDIRECT: [&str; 5] = [
    "role_arn",
    "credential_process",
    "sso_session",
    "sso_start_url",
    "web_identity_token_file",
];

/// Reads profile `name`. The credentials file wins over the config file for
/// keys (as in the AWS CLI); the region comes from the config file, else the
/// credentials file. Blocking file reads: the files are small and local.
pub(crate) fn load_profile(files: &AwsProfileFiles, name: &str) -> Result<AwsProfile> {
    let name = name.trim();
    if name.is_empty() || name.contains([']', '[', '\n']) {
        return Err(Error::invalid_input(format!(
            "`{name}` is not an AWS profile name"
        )));
    }
    let credentials = read(&files.credentials)?;
    let config = read(&files.config)?;
    // `[name]` in credentials; `[profile name]` in config, `[default]` as is.
    let in_credentials = credentials.as_ref().and_then(|ini| ini.section(Some(name)));
    let config_section = format!("profile {name}");
    let in_config = config.as_ref().and_then(|ini| {
        ini.section(Some(config_section.as_str()))
            .or_else(|| (name == "default").then(|| ini.section(Some("default")))?)
    });
    if in_credentials.is_none() && in_config.is_none() {
        return Err(Error::invalid_input(format!(
            "there is no AWS profile `{name}` in {} or {}",
            files.credentials.display(),
            files.config.display()
        )));
    }
    let get = |key: &str| {
        in_credentials
            .and_then(|s| s.get(key))
            .or_else(|| in_config.and_then(|s| s.get(key)))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let region = in_config
        .and_then(|s| s.get("region"))
        .or_else(|| in_credentials.and_then(|s| s.get("region")))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned);
    match (get("aws_access_key_id"), get("aws_secret_access_key")) {
        (Some(access_key_id), Some(secret_access_key)) => Ok(AwsProfile {
            keys: AccessKeys {
                access_key_id,
                secret_access_key,
                session_token: get("aws_session_token"),
            },
            region,
        }),
        _ if INDIRECT.iter().any(|key| get(key).is_some()) => Err(Error::invalid_input(format!(
            "the AWS profile `{name}` uses SSO, a role or a credential process, which Pizza Bot \
             cannot run; give a profile with access keys (e.g. from \
             `aws configure export-credentials`) or a Bedrock API key"
        ))),
        _ => Err(Error::invalid_input(format!(
            "the AWS profile `{name}` has no aws_access_key_id and aws_secret_access_key"
        ))),
    }
}

/// A missing file is no profiles; an unreadable or malformed one is an error.
fn read(path: &Path) -> Result<Option<Ini>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(Error::invalid_input(format!(
                "could not read {}: {error}",
                path.display()
            )));
        }
    };
    let options = ParseOption {
        // Secrets are taken verbatim: no quote or backslash processing.
        enabled_quote: false,
        enabled_escape: false,
        // `s3 =` followed by indented settings, as the AWS config allows.
        enabled_indented_mutiline_value: true,
        enabled_preserve_key_leading_whitespace: false,
    };
    Ini::load_from_str_opt(&text, options)
        .map(Some)
        .map_err(|error| {
            Error::invalid_input(format!(
                "{} is not a valid AWS file: {error}",
                path.display()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn files(credentials: &str, config: &str) -> (tempfile::TempDir, AwsProfileFiles) {
        let dir = tempfile::tempdir().unwrap();
        let files = AwsProfileFiles {
            credentials: dir.path().join("credentials"),
            config: dir.path().join("config"),
        };
        std::fs::write(&files.credentials, credentials).unwrap();
        std::fs::write(&files.config, config).unwrap();
        (dir, files)
    }

    const CREDENTIALS: &str = "\
# comment
[default]
aws_access_key_id = AKIDEFAULT
aws_secret_access_key = secret/default+key

[work]
aws_access_key_id=AKIWORK
aws_secret_access_key=workSecret
aws_session_token = FwoGZXIvYXdzEJr//token==
";

    const CONFIG: &str = "\
[default]
region = eu-west-1

[profile work]
region = us-west-2
s3 =
  max_concurrent_requests = 20

[profile only-config]
aws_access_key_id = AKICONFIG
aws_secret_access_key = configSecret
region = ap-south-1

[profile sso]
sso_session = corp
sso_account_id = 1234

[profile work]
output = json
";

    #[test]
    fn a_profile_reads_keys_session_token_and_region() {
        let (_dir, files) = files(CREDENTIALS, CONFIG);
        assert_eq!(
            load_profile(&files, "work").unwrap(),
            AwsProfile {
                keys: AccessKeys {
                    access_key_id: "AKIWORK".into(),
                    secret_access_key: "workSecret".into(),
                    session_token: Some("FwoGZXIvYXdzEJr//token==".into()),
                },
                region: Some("us-west-2".into()),
            }
        );
        let default = load_profile(&files, "default").unwrap();
        assert_eq!(default.keys.secret_access_key, "secret/default+key");
        assert_eq!(default.keys.session_token, None);
        assert_eq!(default.region.as_deref(), Some("eu-west-1"));
    }

    #[test]
    fn keys_in_the_config_file_count_too() {
        let (_dir, files) = files(CREDENTIALS, CONFIG);
        let profile = load_profile(&files, "only-config").unwrap();
        assert_eq!(profile.keys.access_key_id, "AKICONFIG");
        assert_eq!(profile.region.as_deref(), Some("ap-south-1"));
    }

    #[test]
    fn missing_indirect_and_keyless_profiles_are_refused() {
        let (_dir, files) = files(CREDENTIALS, CONFIG);
        let missing = load_profile(&files, "nope").unwrap_err().to_string();
        assert!(missing.contains("no AWS profile `nope`"), "{missing}");
        let sso = load_profile(&files, "sso").unwrap_err().to_string();
        assert!(sso.contains("SSO"), "{sso}");
        assert!(load_profile(&files, "").is_err());

        // No files at all: the profile is missing, not a crash.
        let none = AwsProfileFiles {
            credentials: PathBuf::from("/nonexistent/credentials"),
            config: PathBuf::from("/nonexistent/config"),
        };
        assert!(load_profile(&none, "default").is_err());
    }
}
