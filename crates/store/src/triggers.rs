//! Automations: cron and webhook triggers as stored. The store keeps what it
//! is given; whether a cron expression or time zone means anything is the
//! scheduler's to decide before a row gets here. A webhook secret reaches the
//! store only as a salted hash.

use serde::{Deserialize, Serialize};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::occurrences::{OCCURRENCE_COLUMNS, Occurrence, occurrence_from_prefixed_row};
use crate::store::Store;
use crate::text::required;

/// Longest trigger name, in characters.
pub const TRIGGER_NAME_MAX_CHARS: usize = 200;
/// Longest saved prompt, in characters.
pub const TRIGGER_PROMPT_MAX_CHARS: usize = 100_000;
/// Longest cron expression or time zone name, in characters.
pub const TRIGGER_SCHEDULE_MAX_CHARS: usize = 200;
const MODEL_MAX_CHARS: usize = 200;
/// Bounds of a stored secret hash and its salt, in bytes.
const SECRET_HASH_BYTES: std::ops::RangeInclusive<usize> = 16..=128;
const SECRET_SALT_BYTES: std::ops::RangeInclusive<usize> = 8..=128;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    Cron,
    Webhook,
}

impl TriggerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cron => "cron",
            Self::Webhook => "webhook",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        match s {
            "cron" => Ok(Self::Cron),
            "webhook" => Ok(Self::Webhook),
            other => Err(Error::Corrupt(format!("unknown trigger kind {other:?}"))),
        }
    }
}

/// A webhook secret as stored: its salted hash, never the secret itself.
/// Hashing and the constant-time comparison belong to the caller.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretHash {
    pub hash: Vec<u8>,
    pub salt: Vec<u8>,
}

// Not the secret, but there is no reason for it to reach a log either.
impl std::fmt::Debug for SecretHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretHash").finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trigger {
    pub id: String,
    pub name: String,
    pub kind: TriggerKind,
    /// May be empty.
    pub prompt: String,
    pub model: Option<String>,
    pub enabled: bool,
    /// Set for cron triggers.
    pub cron: Option<String>,
    /// An IANA zone name; `None` means the machine's own zone.
    pub timezone: Option<String>,
    /// Set for webhook triggers.
    pub webhook_secret: Option<SecretHash>,
    pub created_at: i64,
    pub updated_at: i64,
    /// When an occurrence of this trigger last started a run.
    pub last_run_at: Option<i64>,
    /// The thread that run was given (it may have been deleted since).
    pub last_thread_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTrigger {
    pub name: String,
    pub kind: TriggerKind,
    pub prompt: String,
    pub model: Option<String>,
    pub enabled: bool,
    /// Required for cron triggers, refused for webhooks.
    pub cron: Option<String>,
    pub timezone: Option<String>,
    /// Required for webhook triggers, refused for cron.
    pub webhook_secret: Option<SecretHash>,
}

/// A partial update; `None` leaves a field as it is. The kind never changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TriggerUpdate {
    pub name: Option<String>,
    pub prompt: Option<String>,
    /// `Some(None)` clears the model (the default model is used).
    pub model: Option<Option<String>>,
    /// Cron triggers only.
    pub cron: Option<String>,
    /// Cron triggers only; `Some(None)` means the machine's zone.
    pub timezone: Option<Option<String>>,
    /// Webhook triggers only: a rotated secret.
    pub webhook_secret: Option<SecretHash>,
}

/// A trigger with its newest occurrence, for the Automations list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerSummary {
    pub trigger: Trigger,
    pub last_occurrence: Option<Occurrence>,
}

const TRIGGER_COLUMNS: &str = "id, name, kind, prompt, model, enabled, cron, timezone, \
     secret_hash, secret_salt, created_at, updated_at, last_run_at, last_thread_id";

fn trigger_from_row(row: &SqliteRow) -> Result<Trigger> {
    let hash: Option<Vec<u8>> = row.try_get("secret_hash")?;
    let salt: Option<Vec<u8>> = row.try_get("secret_salt")?;
    Ok(Trigger {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        kind: TriggerKind::parse(row.try_get("kind")?)?,
        prompt: row.try_get("prompt")?,
        model: row.try_get("model")?,
        enabled: row.try_get("enabled")?,
        cron: row.try_get("cron")?,
        timezone: row.try_get("timezone")?,
        webhook_secret: hash.zip(salt).map(|(hash, salt)| SecretHash { hash, salt }),
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        last_run_at: row.try_get("last_run_at")?,
        last_thread_id: row.try_get("last_thread_id")?,
    })
}

fn prompt(value: &str) -> Result<String> {
    let len = value.chars().count();
    if len > TRIGGER_PROMPT_MAX_CHARS {
        return Err(Error::invalid(format!(
            "prompt is {len} characters long; the limit is {TRIGGER_PROMPT_MAX_CHARS}"
        )));
    }
    Ok(value.to_owned())
}

fn model(value: Option<&str>) -> Result<Option<String>> {
    value
        .map(|m| required("model", m, MODEL_MAX_CHARS))
        .transpose()
}

fn timezone(value: Option<&str>) -> Result<Option<String>> {
    value
        .map(|z| required("timezone", z, TRIGGER_SCHEDULE_MAX_CHARS))
        .transpose()
}

fn secret(value: &SecretHash) -> Result<()> {
    if !SECRET_HASH_BYTES.contains(&value.hash.len()) {
        return Err(Error::invalid(format!(
            "webhook_secret: the hash must have {} to {} bytes",
            SECRET_HASH_BYTES.start(),
            SECRET_HASH_BYTES.end()
        )));
    }
    if !SECRET_SALT_BYTES.contains(&value.salt.len()) {
        return Err(Error::invalid(format!(
            "webhook_secret: the salt must have {} to {} bytes",
            SECRET_SALT_BYTES.start(),
            SECRET_SALT_BYTES.end()
        )));
    }
    Ok(())
}

fn wrong_kind(field: &str, kind: TriggerKind) -> Error {
    Error::invalid(format!(
        "{field} does not apply to a {} trigger",
        kind.as_str()
    ))
}

/// A whole trigger checked before anything is written; errors name the field.
fn validated(new: NewTrigger) -> Result<NewTrigger> {
    let cron = new
        .cron
        .as_deref()
        .map(|c| required("cron", c, TRIGGER_SCHEDULE_MAX_CHARS))
        .transpose()?;
    match new.kind {
        TriggerKind::Cron => {
            if cron.is_none() {
                return Err(Error::invalid("cron must not be empty"));
            }
            if new.webhook_secret.is_some() {
                return Err(wrong_kind("webhook_secret", new.kind));
            }
        }
        TriggerKind::Webhook => {
            if cron.is_some() {
                return Err(wrong_kind("cron", new.kind));
            }
            if new.timezone.is_some() {
                return Err(wrong_kind("timezone", new.kind));
            }
            match &new.webhook_secret {
                Some(s) => secret(s)?,
                None => return Err(Error::invalid("webhook_secret is required")),
            }
        }
    }
    Ok(NewTrigger {
        name: required("name", &new.name, TRIGGER_NAME_MAX_CHARS)?,
        kind: new.kind,
        prompt: prompt(&new.prompt)?,
        model: model(new.model.as_deref())?,
        enabled: new.enabled,
        cron,
        timezone: timezone(new.timezone.as_deref())?,
        webhook_secret: new.webhook_secret,
    })
}

/// The trigger as it is now, read inside a write transaction.
pub(crate) async fn trigger_in(conn: &mut SqliteConnection, id: &str) -> Result<Trigger> {
    let row = sqlx::query(&format!(
        "SELECT {TRIGGER_COLUMNS} FROM triggers WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(|| Error::not_found("trigger", id))?;
    trigger_from_row(&row)
}

async fn write(conn: &mut SqliteConnection, t: &Trigger) -> Result<()> {
    let secret = t.webhook_secret.as_ref();
    sqlx::query(
        "INSERT INTO triggers (id, name, kind, prompt, model, enabled, cron, timezone, \
         secret_hash, secret_salt, created_at, updated_at, last_run_at, last_thread_id) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, prompt = excluded.prompt, \
         model = excluded.model, cron = excluded.cron, timezone = excluded.timezone, \
         secret_hash = excluded.secret_hash, secret_salt = excluded.secret_salt, \
         updated_at = excluded.updated_at",
    )
    .bind(&t.id)
    .bind(&t.name)
    .bind(t.kind.as_str())
    .bind(&t.prompt)
    .bind(&t.model)
    .bind(t.enabled)
    .bind(&t.cron)
    .bind(&t.timezone)
    .bind(secret.map(|s| s.hash.as_slice()))
    .bind(secret.map(|s| s.salt.as_slice()))
    .bind(t.created_at)
    .bind(t.updated_at)
    .bind(t.last_run_at)
    .bind(&t.last_thread_id)
    .execute(conn)
    .await?;
    Ok(())
}

impl Store {
    /// Saves a new trigger. `InvalidInput` naming the field, and nothing
    /// written, for a bad one.
    pub async fn create_trigger(&self, new: NewTrigger) -> Result<Trigger> {
        let new = validated(new)?;
        let now = self.now();
        let trigger = Trigger {
            id: new_id(),
            name: new.name,
            kind: new.kind,
            prompt: new.prompt,
            model: new.model,
            enabled: new.enabled,
            cron: new.cron,
            timezone: new.timezone,
            webhook_secret: new.webhook_secret,
            created_at: now,
            updated_at: now,
            last_run_at: None,
            last_thread_id: None,
        };
        let mut tx = self.write_tx().await?;
        write(&mut tx, &trigger).await?;
        tx.commit().await?;
        Ok(trigger)
    }

    pub async fn trigger(&self, id: &str) -> Result<Trigger> {
        let mut conn = self.reader().acquire().await?;
        trigger_in(&mut conn, id).await
    }

    /// Changes the given fields; the merged trigger is validated as a whole.
    pub async fn update_trigger(&self, id: &str, update: TriggerUpdate) -> Result<Trigger> {
        let mut tx = self.write_tx().await?;
        let old = trigger_in(&mut tx, id).await?;
        let kind = old.kind;
        if kind == TriggerKind::Webhook {
            if update.cron.is_some() {
                return Err(wrong_kind("cron", kind));
            }
            if update.timezone.is_some() {
                return Err(wrong_kind("timezone", kind));
            }
        } else if update.webhook_secret.is_some() {
            return Err(wrong_kind("webhook_secret", kind));
        }
        let merged = validated(NewTrigger {
            name: update.name.unwrap_or(old.name),
            kind,
            prompt: update.prompt.unwrap_or(old.prompt),
            model: update.model.unwrap_or(old.model),
            enabled: old.enabled,
            cron: update.cron.or(old.cron),
            timezone: update.timezone.unwrap_or(old.timezone),
            webhook_secret: update.webhook_secret.or(old.webhook_secret),
        })?;
        let trigger = Trigger {
            name: merged.name,
            prompt: merged.prompt,
            model: merged.model,
            cron: merged.cron,
            timezone: merged.timezone,
            webhook_secret: merged.webhook_secret,
            updated_at: self.now(),
            ..old
        };
        write(&mut tx, &trigger).await?;
        tx.commit().await?;
        Ok(trigger)
    }

    /// Arms or disarms one trigger (the app-wide switch is a setting, not this).
    pub async fn set_trigger_enabled(&self, id: &str, enabled: bool) -> Result<Trigger> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query("UPDATE triggers SET enabled = ?, updated_at = ? WHERE id = ?")
            .bind(enabled)
            .bind(self.now())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("trigger", id));
        }
        let trigger = trigger_in(&mut tx, id).await?;
        tx.commit().await?;
        Ok(trigger)
    }

    /// Deletes the trigger and its history. Threads its runs created stay.
    pub async fn delete_trigger(&self, id: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query("DELETE FROM triggers WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("trigger", id));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every trigger by creation (oldest first), each with its newest
    /// occurrence, in one query.
    pub async fn list_triggers(&self) -> Result<Vec<TriggerSummary>> {
        let occurrence_columns = OCCURRENCE_COLUMNS
            .split(", ")
            .map(|c| format!("o.{c} AS o_{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            // The correlated subquery walks the history index backwards one step
            // per trigger, so the cost follows the number of triggers, not of fires.
            "SELECT t.*, {occurrence_columns} FROM triggers t \
             LEFT JOIN trigger_occurrences o ON o.id = (SELECT id FROM trigger_occurrences \
               WHERE trigger_id = t.id ORDER BY scheduled_at DESC, id DESC LIMIT 1) \
             ORDER BY t.created_at, t.id"
        );
        let rows = sqlx::query(&sql).fetch_all(self.reader()).await?;
        rows.iter()
            .map(|row| {
                let occurrence_id: Option<String> = row.try_get("o_id")?;
                Ok(TriggerSummary {
                    trigger: trigger_from_row(row)?,
                    last_occurrence: match occurrence_id {
                        Some(_) => Some(occurrence_from_prefixed_row(row, "o_")?),
                        None => None,
                    },
                })
            })
            .collect()
    }
}
