//! Field paths for serde errors. Deserializing a JSON value into a raw
//! struct tells what is wrong but not where; [`locate`] finds the innermost
//! field that fails, so every error names its path
//! (`templates[2].authority`, `steps[3].record.kind`).
//!
//! It needs every field of a raw struct to be optional (`#[serde(default)]`
//! and `Option`), so that an object with a single key deserializes exactly
//! when that key is known and its value has the right type; required fields
//! are checked afterwards, by validation, which knows the path anyway.

use super::strict::from_value;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A raw struct whose nested fields [`locate`] can descend into.
pub(crate) trait Schema: DeserializeOwned {
    /// The precise error inside the value of field `key`, if `key` holds a
    /// nested raw struct (or a list of them) that fails there.
    fn locate_child(_key: &str, _value: &Value, _path: &str) -> Option<String> {
        None
    }
}

/// `path.key`, or `key` at the top level.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[i]`.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// Why `value` does not deserialize as `T`, as `path: message` with the
/// innermost failing path; `None` when it does deserialize.
pub(crate) fn locate<T: Schema>(value: &Value, path: &str) -> Option<String> {
    let whole = from_value::<T>(value).err()?;
    let Value::Object(map) = value else {
        return Some(at(path, &format!("{} is not an object", show(value))));
    };
    for (key, v) in map {
        let single: Map<String, Value> = [(key.clone(), v.clone())].into_iter().collect();
        if let Err(e) = from_value::<T>(&Value::Object(single)) {
            let sub = join(path, key);
            if let Some(deeper) = T::locate_child(key, v, &sub) {
                return Some(deeper);
            }
            return Some(at(&sub, &e.to_string()));
        }
    }
    Some(at(path, &whole.to_string()))
}

/// The first element of the list `value` that fails as `T`.
pub(crate) fn locate_in_list<T: Schema>(value: &Value, path: &str) -> Option<String> {
    let Value::Array(items) = value else {
        return None;
    };
    items
        .iter()
        .enumerate()
        .find_map(|(i, item)| locate::<T>(item, &index(path, i)))
}

/// `path: message`, or the message alone at the top level.
pub(crate) fn at(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_owned()
    } else {
        format!("{path}: {message}")
    }
}

/// A JSON value as it appears in the file, shortened if long.
pub(crate) fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        let short: String = text.chars().take(57).collect();
        format!("{short}...")
    } else {
        text
    }
}
