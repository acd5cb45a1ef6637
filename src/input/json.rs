//! [`parse_json`]: JSON text to a value, every object's keys distinct.
//! serde_json keeps the last of two equal keys, so `"depth": 10, "depth": 2`
//! silently meant 2; here the second is refused with the field's path and
//! both values. Nesting is bounded by serde_json's own recursion limit.

use super::locate::{index, join, show};
use super::InputError;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// JSON text to a value; malformed JSON names line and column, a repeated
/// key names its path.
pub(crate) fn parse_json(text: &str, origin: &str) -> Result<Value, InputError> {
    let repeated = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = ValueAt {
        path: String::new(),
        repeated: &repeated,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    parsed.map_err(|e| match repeated.into_inner() {
        Some(message) => InputError::new(format!(
            "{origin}: {message} (line {}, column {}); a key may appear only once",
            e.line(),
            e.column()
        )),
        None => InputError::new(format!("{origin}: malformed JSON: {e}")),
    })
}

/// Builds the value at `path`; a repeated key is written to `repeated`
/// (serde's error carries only a message, and this one is for people).
struct ValueAt<'a> {
    path: String,
    repeated: &'a RefCell<Option<String>>,
}

impl ValueAt<'_> {
    fn below(&self, path: String) -> Self {
        ValueAt {
            path,
            repeated: self.repeated,
        }
    }
}

impl<'de> DeserializeSeed<'de> for ValueAt<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueAt<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        // serde_json's own reading: a float JSON cannot hold is null.
        Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.below(index(&self.path, items.len())))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = join(&self.path, &key);
            let value = map.next_value_seed(self.below(path.clone()))?;
            if let Some(first) = object.get(&key) {
                *self.repeated.borrow_mut() = Some(format!(
                    "{path}: given twice ({}, then {})",
                    show(first),
                    show(&value)
                ));
                return Err(de::Error::custom("a repeated key"));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}
