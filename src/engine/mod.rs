//! The exact bounded enumerator.
