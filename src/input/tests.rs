//! The input layer on its own: reading files, command-line numbers, and
//! unknown fields refused through `flatten` in serde's own words.

use super::fields::{KnownFields, OnlyKnownFields};
use super::flag::whole_number;
use super::locate::{locate, Schema};
use super::*;
use serde::Deserialize;
use serde_json::json;

/// Three fields refused the serde way, to compare against.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Plain {
    a: Option<i64>,
    b: Option<String>,
    c: Option<bool>,
}

impl Schema for Plain {}

/// The same fields, `b` and `c` from a flattened part.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Flat {
    a: Option<i64>,
    #[serde(flatten)]
    inner: Inner,
    #[serde(flatten)]
    _only_known: OnlyKnownFields<Flat>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Inner {
    b: Option<String>,
    c: Option<bool>,
}

impl KnownFields for Flat {
    fn known_fields() -> Vec<&'static str> {
        vec!["a", "b", "c"]
    }
}

impl Schema for Flat {}

#[test]
fn a_flattened_struct_refuses_unknown_fields_in_serdes_words() {
    for value in [
        json!({"d": 1}),
        json!({"a": 1, "zz": true}),
        json!({"b": "x", "c": true, "a": 2, "colour": "red"}),
        json!({"a": "one"}),
        json!({"b": 5}),
        json!({"c": null, "a": 1.5}),
    ] {
        assert_eq!(
            locate::<Flat>(&value, "at"),
            locate::<Plain>(&value, "at"),
            "{value}"
        );
    }
    assert_eq!(
        locate::<Flat>(&json!({"d": 1}), "at").unwrap(),
        "at.d: unknown field `d`, expected one of `a`, `b`, `c`"
    );
    let flat: Flat = serde_json::from_value(json!({"a": 1, "b": "x", "c": true})).unwrap();
    assert_eq!(
        (flat.a, flat.inner.b.as_deref(), flat.inner.c),
        (Some(1), Some("x"), Some(true))
    );
}

#[test]
fn a_flattened_struct_is_read_from_an_object_only() {
    // serde reads a plain struct from an array, field by field; the
    // input layer refuses it, plain or flattened, at any depth.
    assert!(serde_json::from_value::<Plain>(json!([1, "x"])).is_ok());
    for value in [
        json!([1, "x"]),
        json!([]),
        json!(null),
        json!("a"),
        json!(3),
    ] {
        let shown = value.to_string();
        for refused in [locate::<Plain>(&value, "at"), locate::<Flat>(&value, "at")] {
            assert_eq!(refused.unwrap(), format!("at: {shown} is not an object"));
        }
        assert!(from_value::<Plain>(&value).is_err());
    }
    #[derive(Debug, Deserialize)]
    struct Outer {
        #[serde(rename = "inner")]
        _inner: Vec<Option<Plain>>,
    }
    assert!(from_value::<Outer>(&json!({"inner": [null, {"a": 1}]})).is_ok());
    assert!(from_value::<Outer>(&json!({"inner": [null, [1]]})).is_err());
    assert!(from_value::<Outer>(&json!([[]])).is_err());
}

#[test]
fn json_keys_are_given_once_at_every_depth() {
    assert_eq!(
        parse_json(r#"{"a": [{"b": 1}, {"b": {"c": 1, "c": [2]}}]}"#, "m.json")
            .unwrap_err()
            .message(),
        "m.json: a[1].b.c: given twice (1, then [2]) (line 1, column 41); \
         a key may appear only once"
    );
    assert_eq!(
        parse_json(r#"{"b": 1, "a": {"b": 2}}"#, "m.json").unwrap(),
        json!({"a": {"b": 2}, "b": 1})
    );
    let malformed = parse_json("{} x", "m.json").unwrap_err();
    assert!(malformed
        .message()
        .starts_with("m.json: malformed JSON: trailing characters"));
    let deep = "[".repeat(10_000);
    let too_deep = parse_json(&deep, "m.json").unwrap_err();
    assert!(too_deep.message().contains("recursion limit"), "{too_deep}");
    // Numbers keep serde_json's reading.
    assert_eq!(
        parse_json("[-1, 18446744073709551615, 0.5, 1e3]", "m.json").unwrap(),
        serde_json::from_str::<serde_json::Value>("[-1, 18446744073709551615, 0.5, 1e3]").unwrap()
    );
}

#[test]
fn files_are_read_with_one_line_errors() {
    let dir = std::env::temp_dir().join(format!("memtx-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.json");
    assert_eq!(
        read_text(&missing).unwrap_err().message(),
        format!(
            "{}: cannot read: No such file or directory (os error 2)",
            missing.display()
        )
    );
    let latin1 = dir.join("latin1.json");
    std::fs::write(&latin1, b"{\"name\": \"caf\xe9\"}").unwrap();
    // The words of std::fs::read_to_string, which read these files before.
    let std_error = std::fs::read_to_string(&latin1).unwrap_err();
    assert_eq!(
        read_text(&latin1).unwrap_err().message(),
        format!("{}: cannot read: {std_error}", latin1.display())
    );
    assert_eq!(read_bytes(&latin1).unwrap().len(), 16);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_line_numbers_are_whole_and_in_range() {
    assert_eq!(whole_number("--n", " 7 ", 1, 9), Ok(7));
    assert_eq!(
        whole_number("--n", "0", 1, 9).unwrap_err().message(),
        "--n: 0 is outside 1..=9"
    );
    for text in ["x", "-1", "1.5", "99999999999999999999999", ""] {
        assert_eq!(
            whole_number("--n", text, 1, 9).unwrap_err().message(),
            format!("--n: {text:?} is not a whole number")
        );
    }
}

#[test]
fn errors_are_one_line_with_the_path_when_there_is_one() {
    // A message quotes the input, which may hold control characters.
    assert_eq!(
        InputError::at("m.json", "a.\nb", "first\n\tsecond\r\u{1b}").message(),
        "m.json: a.\\nb: first\\n\\tsecond\\r\\u{1b}"
    );
    assert_eq!(InputError::new("é ok").message(), "é ok");
    assert_eq!(InputError::at("m.json", "", "bad").message(), "m.json: bad");
}

#[test]
fn only_regular_files_are_read_and_only_up_to_the_limit() {
    let dir = std::env::temp_dir().join(format!("memtx-input-kinds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A device that never ends: refused before a byte is read.
    assert_eq!(
        read_bytes(std::path::Path::new("/dev/zero"))
            .unwrap_err()
            .message(),
        "/dev/zero: cannot read: a character device is not a regular file \
         (inputs are read from regular files only)"
    );
    // A FIFO: opening it would wait for a writer forever.
    let fifo = dir.join("model.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    assert_eq!(
        read_text(&fifo).unwrap_err().message(),
        format!(
            "{}: cannot read: a FIFO is not a regular file (inputs are read from regular files only)",
            fifo.display()
        )
    );
    assert!(read_text(&dir).unwrap_err().message().ends_with(
        "cannot read: a directory is not a regular file (inputs are read from regular files only)"
    ));
    // A (sparse) file one byte past the limit.
    let big = dir.join("big.json");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(MAX_INPUT_BYTES + 1).unwrap();
    assert_eq!(
        read_bytes(&big).unwrap_err().message(),
        format!(
            "{}: cannot read: 67108865 bytes is more than the 64 MiB an input file may hold",
            big.display()
        )
    );
    file.set_len(MAX_INPUT_BYTES).unwrap();
    assert_eq!(read_bytes(&big).unwrap().len() as u64, MAX_INPUT_BYTES);
    let _ = std::fs::remove_dir_all(&dir);
}
