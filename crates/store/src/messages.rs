//! Append-only messages, keyed by (thread, seq); seq starts at 1.

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::error::{Error, Result};
use crate::search::{MARK_END, MARK_START};
use crate::store::Store;
use crate::text::{clamp_limit, from_json, to_json};
use crate::transcript::{self, Part};

/// The largest page `messages_before` returns.
pub const MESSAGE_PAGE_MAX: u32 = 500;

/// Who wrote a message: one role type, the protocol's.
pub use pizza_protocol::Role;

pub(crate) fn role_str(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

pub(crate) fn parse_role(s: &str) -> Result<Role> {
    match s {
        "system" => Ok(Role::System),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        "tool" => Ok(Role::Tool),
        other => Err(Error::Corrupt(format!("unknown message role {other:?}"))),
    }
}

/// A message to append. `text` is what search indexes.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub role: Role,
    pub content: Vec<Part>,
    pub text: String,
    /// Assistant only: the tool calls this message issued.
    pub tool_call_ids: Vec<String>,
    /// Tool only: the tool call this message answers.
    pub tool_call_id: Option<String>,
}

impl NewMessage {
    pub fn new(role: Role, content: Vec<Part>, text: impl Into<String>) -> Self {
        Self {
            role,
            content,
            text: text.into(),
            tool_call_ids: Vec::new(),
            tool_call_id: None,
        }
    }

    #[must_use]
    pub fn with_tool_calls(mut self, ids: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.tool_call_ids = ids.into_iter().map(Into::into).collect();
        self
    }

    #[must_use]
    pub fn answering(mut self, tool_call_id: impl Into<String>) -> Self {
        self.tool_call_id = Some(tool_call_id.into());
        self
    }

    /// Refuses role/tool-call combinations that would break fork safety checks.
    pub(crate) fn validate(&self) -> Result<()> {
        if !self.tool_call_ids.is_empty() && self.role != Role::Assistant {
            return Err(Error::invalid(
                "only assistant messages can issue tool calls",
            ));
        }
        if self.tool_call_ids.iter().any(|id| id.trim().is_empty()) {
            return Err(Error::invalid("a tool-call id must not be empty"));
        }
        match (self.role, &self.tool_call_id) {
            (Role::Tool, None) => Err(Error::invalid("a tool message must name its tool call")),
            (Role::Tool, Some(id)) if id.trim().is_empty() => {
                Err(Error::invalid("a tool-call id must not be empty"))
            }
            (Role::Tool, Some(_)) | (_, None) => Ok(()),
            (_, Some(_)) => Err(Error::invalid("only tool messages answer a tool call")),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: String,
    pub thread_id: String,
    pub seq: i64,
    pub role: Role,
    pub content: Vec<Part>,
    pub text: String,
    pub tool_call_ids: Vec<String>,
    pub tool_call_id: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MessagePage {
    /// Ascending by seq.
    pub messages: Vec<Message>,
    /// More messages exist before the first one returned.
    pub has_more: bool,
}

pub(crate) const MESSAGE_COLUMNS: &str = "id, thread_id, seq, role, content, content_version, \
     text, tool_call_ids, tool_call_id, created_at";

pub(crate) fn message_from_row(row: &SqliteRow) -> Result<Message> {
    let content: String = row.try_get("content")?;
    let version: i64 = row.try_get("content_version")?;
    let text: String = row.try_get("text")?;
    let calls: Option<String> = row.try_get("tool_call_ids")?;
    Ok(Message {
        id: row.try_get("id")?,
        thread_id: row.try_get("thread_id")?,
        seq: row.try_get("seq")?,
        role: parse_role(row.try_get("role")?)?,
        content: transcript::decode(version, &content, &text)?,
        text,
        tool_call_ids: calls
            .map(|c| from_json("tool-call ids", &c))
            .transpose()?
            .unwrap_or_default(),
        tool_call_id: row.try_get("tool_call_id")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Which transcript a message belongs to: the thread's own (searchable), or
/// one delegation's (the `task` call's id), kept apart from it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Transcript<'a> {
    Thread,
    Task(&'a str),
}

/// Inserts one message row (for the thread's transcript the FTS row follows
/// by trigger) and returns it as stored.
pub(crate) async fn insert_message(
    conn: &mut SqliteConnection,
    thread_id: &str,
    seq: i64,
    id: String,
    message: NewMessage,
    created_at: i64,
) -> Result<Message> {
    insert_into(
        conn,
        Transcript::Thread,
        thread_id,
        seq,
        id,
        message,
        created_at,
    )
    .await
}

pub(crate) async fn insert_into(
    conn: &mut SqliteConnection,
    transcript: Transcript<'_>,
    thread_id: &str,
    seq: i64,
    id: String,
    message: NewMessage,
    created_at: i64,
) -> Result<Message> {
    // The highlight markers must only ever come from FTS.
    let text = message.text.replace([MARK_START, MARK_END], " ");
    let calls = if message.tool_call_ids.is_empty() {
        None
    } else {
        Some(to_json(&message.tool_call_ids)?)
    };
    let (table, task_id) = match transcript {
        Transcript::Thread => ("messages (", None),
        Transcript::Task(task_id) => ("task_messages (task_id, ", Some(task_id)),
    };
    let placeholders = if task_id.is_some() { "?, " } else { "" };
    let sql = format!(
        "INSERT INTO {table}thread_id, seq, id, role, content, content_version, text, \
         tool_call_ids, tool_call_id, created_at) VALUES ({placeholders}?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    );
    let mut query = sqlx::query(&sql);
    if let Some(task_id) = task_id {
        query = query.bind(task_id);
    }
    query
        .bind(thread_id)
        .bind(seq)
        .bind(&id)
        .bind(role_str(message.role))
        .bind(to_json(&message.content)?)
        .bind(transcript::CONTENT_VERSION)
        .bind(&text)
        .bind(calls)
        .bind(&message.tool_call_id)
        .bind(created_at)
        .execute(conn)
        .await?;
    Ok(Message {
        id,
        thread_id: thread_id.to_owned(),
        seq,
        role: message.role,
        content: message.content,
        text,
        tool_call_ids: message.tool_call_ids,
        tool_call_id: message.tool_call_id,
        created_at,
    })
}

/// Messages with `seq <= upto`, ascending.
pub(crate) async fn messages_upto(
    conn: &mut SqliteConnection,
    thread_id: &str,
    upto: i64,
) -> Result<Vec<Message>> {
    let sql = format!(
        "SELECT {MESSAGE_COLUMNS} FROM messages WHERE thread_id = ? AND seq <= ? ORDER BY seq"
    );
    let rows = sqlx::query(&sql)
        .bind(thread_id)
        .bind(upto)
        .fetch_all(conn)
        .await?;
    rows.iter().map(message_from_row).collect()
}

impl Store {
    /// The last `limit` messages before `before_seq` (or the end), ascending.
    pub async fn messages_before(
        &self,
        thread_id: &str,
        before_seq: Option<i64>,
        limit: u32,
    ) -> Result<MessagePage> {
        let limit = clamp_limit(limit, MESSAGE_PAGE_MAX);
        let mut conn = self.reader().acquire().await?;
        crate::checkpoints::ensure_thread(&mut conn, thread_id).await?;
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE thread_id = ? AND seq < ? \
             ORDER BY seq DESC LIMIT ?"
        );
        let rows = sqlx::query(&sql)
            .bind(thread_id)
            .bind(before_seq.unwrap_or(i64::MAX))
            .bind(limit + 1)
            .fetch_all(&mut *conn)
            .await?;
        let mut messages = rows
            .iter()
            .map(message_from_row)
            .collect::<Result<Vec<_>>>()?;
        let has_more = messages.len() > usize::try_from(limit).unwrap_or(usize::MAX);
        messages.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        messages.reverse();
        Ok(MessagePage { messages, has_more })
    }
}
