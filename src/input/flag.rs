//! Command-line values, taken as text so that a bad one gets the one-line
//! error every bad input gets (clap's own errors run to several lines).
//! The flag's name stands where a file's field path would.

use super::InputError;

/// `flag`'s value as a whole number in `min..=max`; surrounding spaces
/// are allowed.
pub fn whole_number(flag: &str, text: &str, min: u64, max: u64) -> Result<u64, InputError> {
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) => Err(InputError::new(format!(
            "{flag}: {n} is outside {min}..={max}"
        ))),
        Err(_) => Err(InputError::new(format!(
            "{flag}: {text:?} is not a whole number"
        ))),
    }
}
