//! Full-text search over message text (FTS5, porter stemming).

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::error::{Error, Result};
use crate::messages::Role;
use crate::store::Store;
use crate::text::clamp_limit;

/// Opens a highlighted match in [`SearchHit::snippet`]. Control characters, so they
/// cannot collide with message text (the store strips them from indexed text).
pub const MARK_START: char = '\u{2}';
/// Closes a highlighted match in [`SearchHit::snippet`].
pub const MARK_END: char = '\u{3}';

pub const SEARCH_LIMIT_MAX: u32 = 200;
const QUERY_MAX_CHARS: usize = 1000;
const QUERY_MAX_TERMS: usize = 32;
/// Tokens of context the snippet keeps around the matches.
const SNIPPET_TOKENS: i64 = 16;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub thread_id: String,
    pub message_id: String,
    pub seq: i64,
    pub role: Role,
    /// Text around the matches, each match between [`MARK_START`] and [`MARK_END`].
    pub snippet: String,
}

/// Turns what the user typed into an FTS5 query that cannot be a syntax error: every
/// term is a quoted string (so `AND`, `NEAR(`, `*`, `"`, `:` are plain text), terms are
/// ANDed, and the last one matches as a prefix so results follow typing.
pub(crate) fn fts_query(input: &str) -> Result<String> {
    if input.chars().count() > QUERY_MAX_CHARS {
        return Err(Error::invalid(format!(
            "the search is longer than {QUERY_MAX_CHARS} characters"
        )));
    }
    // A term without a letter or digit has no tokens and would match nothing.
    let terms: Vec<&str> = input
        .split_whitespace()
        .filter(|t| t.chars().any(char::is_alphanumeric))
        .take(QUERY_MAX_TERMS)
        .collect();
    if terms.is_empty() {
        return Err(Error::invalid("type a word to search for"));
    }
    let last = terms.len() - 1;
    let mut query = String::new();
    for (i, term) in terms.iter().enumerate() {
        if i > 0 {
            query.push(' ');
        }
        query.push('"');
        query.push_str(&term.replace('"', "\"\""));
        query.push('"');
        if i == last {
            query.push('*');
        }
    }
    Ok(query)
}

impl Store {
    /// Messages matching every word of `query`, newest first.
    ///
    /// Newest rather than best-ranked: FTS5 walks its index in rowid order and stops at
    /// `limit`, where ranking must score every match (tens of ms for a common word over
    /// 100k messages); an inbox reader looks for recent work first anyway.
    pub async fn search(&self, query: &str, limit: u32) -> Result<Vec<SearchHit>> {
        let fts = fts_query(query)?;
        let limit = clamp_limit(limit, SEARCH_LIMIT_MAX);
        let rows = sqlx::query(
            "SELECT m.thread_id, m.id, m.seq, m.role, \
                    snippet(messages_fts, 0, ?, ?, '…', ?) AS snippet \
             FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid \
             WHERE messages_fts MATCH ? ORDER BY messages_fts.rowid DESC LIMIT ?",
        )
        .bind(MARK_START.to_string())
        .bind(MARK_END.to_string())
        .bind(SNIPPET_TOKENS)
        .bind(fts)
        .bind(limit)
        .fetch_all(self.reader())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(SearchHit {
                    thread_id: row.try_get("thread_id")?,
                    message_id: row.try_get("id")?,
                    seq: row.try_get("seq")?,
                    role: crate::messages::parse_role(row.try_get("role")?)?,
                    snippet: row.try_get("snippet")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_every_term_and_prefixes_the_last() {
        assert_eq!(
            fts_query("hello world").ok().as_deref(),
            Some("\"hello\" \"world\"*")
        );
        assert_eq!(
            fts_query("say \"hi\" NEAR(x").ok().as_deref(),
            Some("\"say\" \"\"\"hi\"\"\" \"NEAR(x\"*")
        );
    }

    #[test]
    fn refuses_queries_without_words() {
        for q in ["", "   ", "* - \" ( )", "\u{2}"] {
            assert!(matches!(fts_query(q), Err(Error::InvalidInput(_))), "{q:?}");
        }
        assert!(matches!(
            fts_query(&"a".repeat(1001)),
            Err(Error::InvalidInput(_))
        ));
    }
}
