//! Values to text: the program's result, console arguments, thrown
//! exceptions. `JSON.stringify` is the one captured before the guest ran,
//! so a guest that replaces it only fools itself.

use boa_engine::{Context, JsError, JsObject, JsResult, JsValue, js_string};

/// The untouched `JSON.stringify` of a context.
#[derive(Clone)]
pub(super) struct Stringify(pub(super) JsObject);

impl Stringify {
    /// `JSON.stringify(value, null, indent)`, or `None` when JSON cannot
    /// represent the value (a function, a symbol, a BigInt, a cycle).
    fn call(&self, value: &JsValue, indent: Option<i32>, context: &mut Context) -> Option<String> {
        let mut args = vec![value.clone()];
        if let Some(indent) = indent {
            args.push(JsValue::null());
            args.push(JsValue::new(indent));
        }
        let text = self.0.call(&JsValue::undefined(), &args, context).ok()?;
        text.as_string().map(|s| s.to_std_string_lossy())
    }
}

/// The program's result: a string as is, `undefined` by name, JSON with a
/// two-space indent, else `String(v)`.
pub(super) fn result_text(value: &JsValue, stringify: &Stringify, context: &mut Context) -> String {
    if let Some(text) = value.as_string() {
        return text.to_std_string_lossy();
    }
    if value.is_undefined() {
        return "undefined".to_owned();
    }
    stringify
        .call(value, Some(2), context)
        .unwrap_or_else(|| plain_text(value, context))
}

/// One console argument: strings as is, errors as `Name: message`, the
/// rest as compact JSON, else `String(v)`.
pub(super) fn log_text(value: &JsValue, stringify: &Stringify, context: &mut Context) -> String {
    if let Some(text) = value.as_string() {
        return text.to_std_string_lossy();
    }
    if value.is_undefined() {
        return "undefined".to_owned();
    }
    if let Some(text) = error_text(value, context) {
        return text;
    }
    stringify
        .call(value, None, context)
        .unwrap_or_else(|| plain_text(value, context))
}

/// `String(v)`, falling back to boa's display for what ToString rejects
/// (a symbol, an object whose `toString` throws).
fn plain_text(value: &JsValue, context: &mut Context) -> String {
    match value.to_string(context) {
        Ok(text) => text.to_std_string_lossy(),
        Err(_) => value.display().to_string(),
    }
}

/// `Name: message` for an Error object.
fn error_text(value: &JsValue, context: &mut Context) -> Option<String> {
    let object = value.as_object()?;
    if !object.is::<boa_engine::builtins::error::Error>() {
        return None;
    }
    let name = object
        .get(js_string!("name"), context)
        .ok()
        .and_then(|v| v.as_string())
        .map_or_else(|| "Error".to_owned(), |s| s.to_std_string_lossy());
    let message = object
        .get(js_string!("message"), context)
        .ok()
        .and_then(|v| v.as_string())
        .map(|s| s.to_std_string_lossy())
        .unwrap_or_default();
    Some(if message.is_empty() {
        name
    } else {
        format!("{name}: {message}")
    })
}

/// The sentence for an uncaught exception.
pub(super) fn thrown_text(error: &JsError, stringify: &Stringify, context: &mut Context) -> String {
    // Boa's recursion and stack limits raise an error JS cannot catch and
    // that has no JS object; name it as engines do.
    if let Some(native) = error.as_native()
        && native.is_runtime_limit()
    {
        return format!(
            "RangeError: Maximum call stack size exceeded ({})",
            native.message()
        );
    }
    let value = error.to_opaque(context);
    thrown_value_text(&value, stringify, context)
}

pub(super) fn thrown_value_text(
    value: &JsValue,
    stringify: &Stringify,
    context: &mut Context,
) -> String {
    error_text(value, context).unwrap_or_else(|| log_text(value, stringify, context))
}

/// A bridge reply as a JS value; a JSON string becomes a JS string.
pub(super) fn json_to_js(value: &serde_json::Value, context: &mut Context) -> JsResult<JsValue> {
    JsValue::from_json(value, context)
}

/// Cuts `text` at `max_chars`; returns the full length when it was cut.
pub(super) fn cut(text: String, max_chars: usize) -> (String, Option<usize>) {
    match text.char_indices().nth(max_chars) {
        None => (text, None),
        Some((end, _)) => {
            let total = text.chars().count();
            let mut text = text;
            text.truncate(end);
            (text, Some(total))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_counts_chars_not_bytes() {
        assert_eq!(cut("héllo".to_owned(), 10), ("héllo".to_owned(), None));
        assert_eq!(cut("héllo".to_owned(), 2), ("hé".to_owned(), Some(5)));
        assert_eq!(cut(String::new(), 0), (String::new(), None));
    }
}
