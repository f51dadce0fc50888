//! A JSON document that keeps its keys in the order they were written.
//!
//! `serde_json::Value` sorts object keys (the workspace does not turn on
//! `preserve_order`: other crates hash and snapshot JSON and rely on the
//! sorted order), so rewriting `.mcp.json` through it would reorder the
//! person's file. This tree keeps document order; values we add are placed
//! after the existing ones.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Doc {
    Object(Vec<(String, Doc)>),
    Array(Vec<Doc>),
    /// `null`, a boolean, a number or a string.
    Scalar(Value),
}

impl Doc {
    pub(crate) fn empty_object() -> Self {
        Self::Object(Vec::new())
    }

    pub(crate) fn to_value(&self) -> Value {
        match self {
            Self::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| (key.clone(), value.to_value()))
                    .collect(),
            ),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Scalar(value) => value.clone(),
        }
    }

    pub(crate) fn from_value(value: Value) -> Self {
        match value {
            Value::Object(fields) => Self::Object(
                fields
                    .into_iter()
                    .map(|(key, value)| (key, Self::from_value(value)))
                    .collect(),
            ),
            Value::Array(items) => Self::Array(items.into_iter().map(Self::from_value).collect()),
            scalar => Self::Scalar(scalar),
        }
    }

    pub(crate) fn fields(&self) -> Option<&Vec<(String, Doc)>> {
        match self {
            Self::Object(fields) => Some(fields),
            _ => None,
        }
    }

    pub(crate) fn fields_mut(&mut self) -> Option<&mut Vec<(String, Doc)>> {
        match self {
            Self::Object(fields) => Some(fields),
            _ => None,
        }
    }
}

/// The position of `key` among an object's fields.
pub(crate) fn position(fields: &[(String, Doc)], key: &str) -> Option<usize> {
    fields.iter().position(|(name, _)| name == key)
}

/// Sets `key`, in place when it is there, else at the end.
pub(crate) fn set(fields: &mut Vec<(String, Doc)>, key: &str, value: Doc) {
    match position(fields, key) {
        Some(at) => fields[at].1 = value,
        None => fields.push((key.to_owned(), value)),
    }
}

impl Serialize for Doc {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            Self::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Self::Scalar(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::Number(v.into())))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::Number(v.into())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Doc, E> {
        Ok(Doc::Scalar(
            Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::String(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Doc, E> {
        Ok(Doc::Scalar(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Doc::Array(items))
    }

    /// A repeated key keeps its first place and its last value, as
    /// `serde_json::Value` would read it.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut fields = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Doc>()? {
            set(&mut fields, &key, value);
        }
        Ok(Doc::Object(fields))
    }
}
