//! Native fast paths for the string searches a paging program leans on.
//! Boa 0.21 finds a substring with `windows(..).skip(from)`, which walks
//! from the start on every call: `split('\n')` and an `indexOf` loop are
//! quadratic, seconds for a 1 MiB page. These replacements take the common
//! shape (a primitive string searched for a string) and hand everything
//! else to the original built-in, so semantics stay the engine's.

use boa_engine::native_function::NativeFunction;
use boa_engine::object::FunctionObjectBuilder;
use boa_engine::object::builtins::{JsArray, JsRegExp};
use boa_engine::property::PropertyDescriptor;
use boa_engine::string::{JsStr, JsStrVariant};
use boa_engine::{Context, JsObject, JsResult, JsString, JsValue};

type FastPath = fn(&JsValue, &[JsValue], &JsObject, &mut Context) -> JsResult<JsValue>;

/// Replaces `split`, `indexOf` and `includes` on `String.prototype`.
pub(super) fn install(context: &mut Context) -> JsResult<()> {
    let prototype = context.intrinsics().constructors().string().prototype();
    let replacements: [(&str, FastPath, usize); 3] = [
        ("split", split, 2),
        ("indexOf", index_of, 1),
        ("includes", includes, 1),
    ];
    for (name, fast, length) in replacements {
        let name = JsString::from(name);
        let Some(original) = prototype.get(name.clone(), context)?.as_callable() else {
            continue;
        };
        let function = FunctionObjectBuilder::new(
            context.realm(),
            NativeFunction::from_copy_closure_with_captures(fast, original),
        )
        .name(name.clone())
        .length(length)
        .build();
        prototype.define_property_or_throw(
            name,
            PropertyDescriptor::builder()
                .value(function)
                .writable(true)
                .enumerable(false)
                .configurable(true),
            context,
        )?;
    }
    Ok(())
}

/// `s.split(sep)` with no limit, for a non-empty string separator or one
/// of the line-splitting regexes models write (`/\n/`, `/\r?\n/`,
/// `/\r\n/`): boa's regex split takes over a minute on a 1 MiB page.
fn split(
    this: &JsValue,
    args: &[JsValue],
    original: &JsObject,
    context: &mut Context,
) -> JsResult<JsValue> {
    let (Some(text), Some(separator), true) = (
        this.as_string(),
        args.first(),
        args.get(1).is_none_or(JsValue::is_undefined),
    ) else {
        return original.call(this, args, context);
    };
    let (needle, strip_cr) = match separator.as_string() {
        Some(separator) if !separator.is_empty() => (separator, false),
        Some(_) => return original.call(this, args, context),
        None => match line_regex(separator, context)? {
            Some(line) => line,
            None => return original.call(this, args, context),
        },
    };
    let (hay, needle) = (text.as_str(), needle.as_str());
    let mut parts = Vec::new();
    let mut start = 0;
    while let Some(at) = find(hay, needle, start) {
        // `\r?\n`: a `\r` before the newline belongs to the separator.
        let end = if strip_cr && at > start && unit_at(hay, at - 1) == Some(u16::from(b'\r')) {
            at - 1
        } else {
            at
        };
        parts.push(substring(hay, start, end));
        start = at + needle.len();
    }
    parts.push(substring(hay, start, hay.len()));
    Ok(JsArray::from_iter(parts, context).into())
}

/// For a RegExp that splits lines, the string to split on and whether a
/// `\r` before it goes too; `None` for any other separator.
fn line_regex(separator: &JsValue, context: &mut Context) -> JsResult<Option<(JsString, bool)>> {
    let Some(object) = separator.as_object() else {
        return Ok(None);
    };
    if JsRegExp::from_object(object.clone()).is_err() {
        return Ok(None);
    }
    let flags = object.get(JsString::from("flags"), context)?;
    if flags
        .as_string()
        .is_none_or(|f| f.to_std_string_lossy().contains('y'))
    {
        return Ok(None);
    }
    let source = object.get(JsString::from("source"), context)?;
    let Some(source) = source.as_string() else {
        return Ok(None);
    };
    Ok(match source.to_std_string_lossy().as_str() {
        "\\n" => Some((JsString::from("\n"), false)),
        "\\r\\n" => Some((JsString::from("\r\n"), false)),
        "\\r?\\n" | "\\n|\\r\\n" | "\\r\\n|\\n" => Some((JsString::from("\n"), true)),
        _ => None,
    })
}

/// The UTF-16 code unit at `index`.
fn unit_at(text: JsStr<'_>, index: usize) -> Option<u16> {
    match text.variant() {
        JsStrVariant::Latin1(units) => units.get(index).map(|&b| u16::from(b)),
        JsStrVariant::Utf16(units) => units.get(index).copied(),
    }
}

/// `s.indexOf(search, position)` for a string `search`.
fn index_of(
    this: &JsValue,
    args: &[JsValue],
    original: &JsObject,
    context: &mut Context,
) -> JsResult<JsValue> {
    Ok(match search(this, args, context)? {
        Some(found) => found.map_or(-1.0, |at| at as f64).into(),
        None => original.call(this, args, context)?,
    })
}

/// `s.includes(search, position)` for a string `search`.
fn includes(
    this: &JsValue,
    args: &[JsValue],
    original: &JsObject,
    context: &mut Context,
) -> JsResult<JsValue> {
    Ok(match search(this, args, context)? {
        Some(found) => found.is_some().into(),
        None => original.call(this, args, context)?,
    })
}

/// Where `(search, position)` first occurs in a string `this`; `None` when
/// the arguments are not the common shape, for the original to handle.
fn search(
    this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<Option<Option<usize>>> {
    let (Some(text), Some(search)) = (this.as_string(), args.first().and_then(JsValue::as_string))
    else {
        return Ok(None);
    };
    let Some(from) = start_position(args.get(1), text.len(), context)? else {
        return Ok(None);
    };
    Ok(Some(find(text.as_str(), search.as_str(), from)))
}

/// The clamped start of a search; `None` for an argument that is not a
/// plain number (the original handles its conversion and side effects).
fn start_position(
    position: Option<&JsValue>,
    len: usize,
    context: &mut Context,
) -> JsResult<Option<usize>> {
    match position {
        None => Ok(Some(0)),
        Some(value) if value.is_undefined() => Ok(Some(0)),
        Some(value) if value.is_number() => {
            let position = value.to_integer_or_infinity(context)?;
            Ok(Some(position.clamp_finite(0, len as i64) as usize))
        }
        Some(_) => Ok(None),
    }
}

fn substring(text: JsStr<'_>, start: usize, end: usize) -> JsValue {
    text.get(start..end)
        .map(JsString::from)
        .unwrap_or_default()
        .into()
}

/// The first index `>= from` where `needle` occurs in `hay`, in UTF-16
/// code units, whatever storage each string has.
fn find(hay: JsStr<'_>, needle: JsStr<'_>, from: usize) -> Option<usize> {
    match (hay.variant(), needle.variant()) {
        (JsStrVariant::Latin1(h), JsStrVariant::Latin1(n)) => find_slice(h, n, from),
        (JsStrVariant::Utf16(h), JsStrVariant::Utf16(n)) => find_slice(h, n, from),
        (JsStrVariant::Utf16(h), JsStrVariant::Latin1(n)) => {
            let n: Vec<u16> = n.iter().map(|&b| u16::from(b)).collect();
            find_slice(h, &n, from)
        }
        (JsStrVariant::Latin1(h), JsStrVariant::Utf16(n)) => {
            // A unit above 0xFF never occurs in a Latin-1 string.
            let n: Option<Vec<u8>> = n.iter().map(|&u| u8::try_from(u).ok()).collect();
            find_slice(h, &n?, from)
        }
    }
}

fn find_slice<T: PartialEq + Copy>(hay: &[T], needle: &[T], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    let Some((&first, rest)) = needle.split_first() else {
        return Some(from);
    };
    let last_start = hay.len().checked_sub(needle.len())?;
    let mut at = from;
    while at <= last_start {
        let offset = hay[at..=last_start].iter().position(|&c| c == first)?;
        at += offset;
        if hay[at + 1..at + needle.len()] == *rest {
            return Some(at);
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_across_storages() {
        let hay = JsString::from("ab\ncd\nef");
        let wide = JsString::from("ab\néf\n");
        assert_eq!(
            find(hay.as_str(), JsString::from("\n").as_str(), 0),
            Some(2)
        );
        assert_eq!(
            find(hay.as_str(), JsString::from("\n").as_str(), 3),
            Some(5)
        );
        assert_eq!(find(hay.as_str(), JsString::from("\n").as_str(), 6), None);
        assert_eq!(
            find(hay.as_str(), JsString::from("cd\ne").as_str(), 0),
            Some(3)
        );
        assert_eq!(find(hay.as_str(), JsString::from("").as_str(), 8), Some(8));
        assert_eq!(find(hay.as_str(), JsString::from("").as_str(), 9), None);
        assert_eq!(
            find(wide.as_str(), JsString::from("\n").as_str(), 3),
            Some(5)
        );
        assert_eq!(find(hay.as_str(), JsString::from("é").as_str(), 0), None);
        assert_eq!(
            find(wide.as_str(), JsString::from("éf").as_str(), 0),
            Some(3)
        );
    }
}
