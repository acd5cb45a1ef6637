//! Unknown fields refused through `#[serde(flatten)]`. A raw struct that
//! flattens another (a template or a trace record around the shared raw
//! record) cannot use serde's `deny_unknown_fields`: with `flatten` it
//! names the field but drops the list of known ones. Such a struct ends
//! with a flattened [`OnlyKnownFields`], which takes the keys no field
//! before it took and refuses the first with the words of serde's own
//! message, `unknown field `x`, expected one of `a`, `b`, ...`.

use serde::de::{Deserialize, Deserializer, Error, MapAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// A raw struct's fields as the format documents them, in order: the list
/// an unknown-field error gives.
pub(crate) trait KnownFields {
    fn known_fields() -> Vec<&'static str>;
}

/// The last, flattened field of a raw struct `T` that flattens another:
/// deserializes only when no key is left over.
pub(crate) struct OnlyKnownFields<T>(PhantomData<T>);

impl<T> Default for OnlyKnownFields<T> {
    fn default() -> Self {
        OnlyKnownFields(PhantomData)
    }
}

impl<T> fmt::Debug for OnlyKnownFields<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OnlyKnownFields")
    }
}

impl<'de, T: KnownFields> Deserialize<'de> for OnlyKnownFields<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Leftovers(PhantomData::<T>))
    }
}

struct Leftovers<T>(PhantomData<T>);

impl<'de, T: KnownFields> Visitor<'de> for Leftovers<T> {
    type Value = OnlyKnownFields<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no other field")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        match map.next_key::<String>()? {
            Some(key) => Err(A::Error::custom(unknown_field(&key, &T::known_fields()))),
            None => Ok(OnlyKnownFields(PhantomData)),
        }
    }
}

/// serde's `unknown_field` message, whose list must be `'static`.
fn unknown_field(key: &str, known: &[&str]) -> String {
    let quoted: Vec<String> = known.iter().map(|name| format!("`{name}`")).collect();
    match quoted.as_slice() {
        [] => format!("unknown field `{key}`, there are no fields"),
        [one] => format!("unknown field `{key}`, expected {one}"),
        [a, b] => format!("unknown field `{key}`, expected {a} or {b}"),
        _ => format!(
            "unknown field `{key}`, expected one of {}",
            quoted.join(", ")
        ),
    }
}
