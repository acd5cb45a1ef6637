//! Which build of memtx-check this is: the crate version, the git commit
//! its sources come from and whether they differed from it (dirty), the
//! cargo features it was built with, and a hash of the protocol's sources
//! (`src/protocol/**` and the features), all computed by `build.rs` when
//! the crate is built. Every summary, dump and baseline records it
//! ([`BuildInfo::THIS`]), so that `diff` and `ci` can say "protocol changed
//! between these runs" and name the builds they compare, and the driver
//! protocol names its implementation.

use serde::{Deserialize, Serialize};

/// One build's identity, as summaries and manifests record it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildInfo {
    /// The crate version (`Cargo.toml`).
    pub version: String,
    /// The git commit, 40 hex digits, or `unknown` (built outside a
    /// checkout).
    pub commit: String,
    /// Whether the sources differed from `commit`; `None` when unknown.
    pub dirty: Option<bool>,
    /// The cargo features, comma-separated (empty in a normal build).
    pub features: String,
    /// 32 hex digits: the protocol's sources and the features.
    pub protocol: String,
}

impl BuildInfo {
    /// This build.
    pub fn this() -> BuildInfo {
        BuildInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            commit: env!("MEMTX_BUILD_COMMIT").to_owned(),
            dirty: match env!("MEMTX_BUILD_DIRTY") {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            features: env!("MEMTX_BUILD_FEATURES").to_owned(),
            protocol: env!("MEMTX_PROTOCOL_HASH").to_owned(),
        }
    }

    /// A short name for folders and messages (a valid model name): the
    /// commit's first 10 hex digits, `.dirty` when the sources differed,
    /// `.FEATURE` for each cargo feature; `unknown-PROTOCOL8` outside a
    /// checkout.
    pub fn short(&self) -> String {
        // Read from files another build wrote (a dump, a driver's
        // answer): only hex digits become a name.
        let mut name = match hex_prefix(&self.commit, 10) {
            Some(commit) => commit.to_owned(),
            None => format!(
                "unknown-{}",
                hex_prefix(&self.protocol, 8).unwrap_or("protocol")
            ),
        };
        if self.dirty == Some(true) {
            name.push_str(".dirty");
        }
        for f in self.features.split(',').filter(|f| !f.is_empty()) {
            name.push('.');
            name.push_str(f);
        }
        name
    }

    /// `0.1.0 (commit 1a2b3c4d5e, dirty; protocol 9f8e7d6c…; features …)`.
    pub fn describe(&self) -> String {
        let mut text = format!("{} (commit {}", self.version, short_commit(&self.commit));
        match self.dirty {
            Some(true) => text.push_str(", dirty"),
            None => text.push_str(", dirty unknown"),
            Some(false) => {}
        }
        text.push_str(&format!("; protocol {}", self.protocol_short()));
        if !self.features.is_empty() {
            text.push_str(&format!("; features {}", self.features));
        }
        text.push(')');
        text
    }

    /// The protocol hash's first 12 hex digits.
    pub fn protocol_short(&self) -> &str {
        prefix(&self.protocol, 12)
    }

    /// The build an implementation object names (a driver's reset answer,
    /// whose `name` and any other field are its own), when it gives every
    /// field of one.
    pub fn of_implementation(implementation: &serde_json::Value) -> Option<BuildInfo> {
        let mut fields = implementation.as_object()?.clone();
        fields.remove("name");
        fields.retain(|k, _| {
            ["version", "commit", "dirty", "features", "protocol"].contains(&k.as_str())
        });
        serde_json::from_value(serde_json::Value::Object(fields)).ok()
    }

    /// Whether `other` was built from the same protocol.
    pub fn same_protocol(&self, other: &BuildInfo) -> bool {
        self.protocol == other.protocol
    }
}

fn short_commit(commit: &str) -> &str {
    prefix(commit, 10)
}

/// The first `chars` characters of `text` (all of it when shorter): a
/// cut on a character boundary, as text read from another build's files
/// may hold any (a byte-order mark in a dump's commit panicked a byte
/// slice, found by `tests/suite/fuzz/surfaces.rs`).
pub fn prefix(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(end, _)| &text[..end])
}

/// The first `n` characters of `text` when they are all hex digits.
fn hex_prefix(text: &str, n: usize) -> Option<&str> {
    let head = text.as_bytes().get(..n)?;
    head.iter().all(u8::is_ascii_hexdigit).then(|| &text[..n])
}

/// `--version`'s text: the version, commit, dirtiness and protocol hash.
pub fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| BuildInfo::this().describe())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_has_a_protocol_hash_and_a_name() {
        let b = BuildInfo::this();
        assert_eq!(b.protocol.len(), 32);
        assert!(b.protocol.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(
            b.commit == "unknown" || b.commit.len() == 40,
            "{}",
            b.commit
        );
        assert!(!b.short().is_empty());
        assert!(b.describe().starts_with(env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn names_cut_text_from_other_builds_on_character_boundaries() {
        assert_eq!(prefix("1276305f4b\u{feff}5a7", 11), "1276305f4b\u{feff}");
        assert_eq!(prefix("12", 10), "12");
        let b = BuildInfo {
            version: "0.1.0".into(),
            commit: "1276305f4b\u{feff}5a713b7a".into(),
            dirty: Some(false),
            features: String::new(),
            protocol: "ab\u{feff}cdef0123456789".into(),
        };
        assert_eq!(b.short(), "1276305f4b");
        assert_eq!(b.protocol_short(), "ab\u{feff}cdef01234");
        assert!(b.describe().contains("(commit 1276305f4b; protocol ab"));
        let odd = BuildInfo {
            commit: "12\u{feff}".into(),
            protocol: "\u{feff}".into(),
            ..b
        };
        assert_eq!(odd.short(), "unknown-protocol");
    }

    #[test]
    fn short_names_say_dirty_and_features() {
        let b = BuildInfo {
            version: "0.1.0".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            dirty: Some(true),
            features: "tutorial-committed-parents".into(),
            protocol: "f".repeat(32),
        };
        assert_eq!(b.short(), "0123456789.dirty.tutorial-committed-parents");
        assert_eq!(crate::input::name_problem(&b.short()), None);
        assert_eq!(
            b.describe(),
            "0.1.0 (commit 0123456789, dirty; protocol ffffffffffff; features tutorial-committed-parents)"
        );
        let outside = BuildInfo {
            commit: "unknown".into(),
            dirty: None,
            features: String::new(),
            ..b
        };
        assert_eq!(outside.short(), "unknown-ffffffff");
    }
}
