//! Settings: key → JSON text. A value that no longer parses as the caller's type
//! reads as the default, so a changed settings shape never blocks startup.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::Result;
use crate::store::Store;
use crate::text::{required, to_json};

const KEY_MAX_CHARS: usize = 200;

impl Store {
    /// The value under `key`, or `T::default()` when missing or unparsable.
    pub async fn setting<T: DeserializeOwned + Default>(&self, key: &str) -> Result<T> {
        Ok(self.setting_opt(key).await?.unwrap_or_default())
    }

    /// The value under `key`; `None` when missing or unparsable.
    pub async fn setting_opt<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        let key = required("setting key", key, KEY_MAX_CHARS)?;
        let text: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(&key)
            .fetch_optional(self.reader())
            .await?;
        Ok(text.and_then(|t| match serde_json::from_str(&t) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!(%key, error = %e, "stored setting does not parse; using the default");
                None
            }
        }))
    }

    pub async fn set_setting<T: Serialize + ?Sized>(&self, key: &str, value: &T) -> Result<()> {
        let key = required("setting key", key, KEY_MAX_CHARS)?;
        let value = to_json(value)?;
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(&key)
        .bind(value)
        .bind(self.now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Removes `key`; reading it afterwards gives the default.
    pub async fn delete_setting(&self, key: &str) -> Result<()> {
        let key = required("setting key", key, KEY_MAX_CHARS)?;
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM settings WHERE key = ?")
            .bind(&key)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
