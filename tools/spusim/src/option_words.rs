//! How one command-line word reads: an option or a file, and an option's name and inline
//! value (`--name=value`). Names must be UTF-8 (every option's is); values and file names
//! may be any bytes on Unix.

use std::ffi::{OsStr, OsString};

/// Whether `arg` is an option (starts with `-`, and is not `-` alone).
pub fn is_option(arg: &OsStr) -> bool {
    let bytes = arg.as_encoded_bytes();
    bytes.first() == Some(&b'-') && bytes.len() > 1
}

/// Splits `--name=value` into the name and the value; other options are all name. The name
/// must be UTF-8 (every option is); the value may be any bytes on Unix.
pub fn split_option(arg: &OsStr) -> Result<(String, Option<OsString>), String> {
    if let Some(text) = arg.to_str() {
        return Ok(match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                (name.to_string(), Some(OsString::from(value)))
            }
            _ => (text.to_string(), None),
        });
    }
    let bytes = arg.as_encoded_bytes();
    let unknown = || format!("unknown option `{}`", arg.to_string_lossy());
    let equals = bytes.iter().position(|&b| b == b'=').ok_or_else(unknown)?;
    let name = bytes
        .get(..equals)
        .and_then(|name| std::str::from_utf8(name).ok())
        .filter(|name| name.starts_with("--"))
        .ok_or_else(unknown)?;
    let value = bytes.get(equals + 1..).unwrap_or_default();
    Ok((name.to_string(), Some(os_string_from_bytes(name, value)?)))
}

#[cfg(unix)]
fn os_string_from_bytes(_name: &str, bytes: &[u8]) -> Result<OsString, String> {
    use std::os::unix::ffi::OsStrExt;
    Ok(OsStr::from_bytes(bytes).to_os_string())
}

/// Elsewhere an `OsStr` cannot be cut safely at the `=`; the value as its own argument works.
#[cfg(not(unix))]
fn os_string_from_bytes(name: &str, _bytes: &[u8]) -> Result<OsString, String> {
    Err(format!(
        "{name}=VALUE: the value is not UTF-8 text; give it as a separate argument: {name} VALUE"
    ))
}
