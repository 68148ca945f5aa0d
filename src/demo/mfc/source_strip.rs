//! SPU assembly without its comments, made at compile time: what the firmware carries of the
//! MFC kernels. Their sources explain themselves at length (two thirds of their bytes are `#`
//! comments), which the firmware, assembling them at boot, has no use for; stripped, the three
//! take 4 KB of the image instead of 13 KB.
//!
//! The rules are GNU as's for SPU sources without strings (the kernels have none): `#` starts
//! a comment to the end of the line, blanks only separate tokens. So each line keeps its text
//! before any `#`, with its runs of blanks cut to one space and none at either end, and lines
//! left empty go. `tests/spu_mfc_kernels.rs` checks that each kernel assembles to the same
//! image either way.
//!
//! ```ignore
//! const LEN: usize = stripped_len(SOURCE);
//! const TEXT: [u8; LEN] = strip::<LEN>(SOURCE);
//! ```

/// Space, tab or carriage return.
const fn blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r')
}

/// `source` stripped, in an array of `N` bytes (bytes past `N` are left out: size it with
/// [`stripped_len`]).
pub const fn strip<const N: usize>(source: &str) -> [u8; N] {
    strip_counting::<N>(source).0
}

/// The bytes `source` takes stripped.
pub const fn stripped_len(source: &str) -> usize {
    strip_counting::<0>(source).1
}

/// The stripped text (its first `N` bytes) and its whole length.
const fn strip_counting<const N: usize>(source: &str) -> ([u8; N], usize) {
    let bytes = source.as_bytes();
    let mut out = [0u8; N];
    let mut len = 0;
    let mut at = 0;
    while at < bytes.len() {
        // One line: its text up to `#`, blanks between tokens cut to one.
        let mut comment = false;
        let mut wrote = false;
        let mut space = false;
        while at < bytes.len() && bytes[at] != b'\n' {
            let byte = bytes[at];
            comment |= byte == b'#';
            if !comment && blank(byte) {
                space = wrote;
            } else if !comment {
                if space {
                    if len < N {
                        out[len] = b' ';
                    }
                    len += 1;
                    space = false;
                }
                if len < N {
                    out[len] = byte;
                }
                len += 1;
                wrote = true;
            }
            at += 1;
        }
        if wrote {
            if len < N {
                out[len] = b'\n';
            }
            len += 1;
        }
        at += 1;
    }
    (out, len)
}

/// The stripped bytes as text: they are whole lines of the UTF-8 source, so they are UTF-8
/// (an empty text, which assembles to nothing, if they were not).
pub const fn text(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => "",
    }
}
