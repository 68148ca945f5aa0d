//! ELF string tables laid out as bfd lays out the ones ld writes (`_bfd_elf_strtab_finalize`):
//! each distinct string once, in the order it was first added, except a string that ends
//! another one (a proper suffix), which is no copy of its own but the end of that other one.
//! Offset 0 is the empty string.
//!
//! Where several strings end with a merged one, bfd picks the one that follows it when the
//! strings are sorted by their reversed bytes; so does [`suffix_host`].
//!
//! The tables are built without allocating: every question is answered by going over the
//! strings again. [`table_size`] is quadratic in their number; [`offset_of`] and
//! [`write_table`] are meant for the few section names (the symbol table's names are laid out
//! by the writer with the symbol table as scratch space, in quadratic time too).

use core::cmp::Ordering;

/// `a` and `b` compared from their last byte backwards, a shorter one that ends the other
/// first (bfd's `strrevcmp`).
pub(super) fn reversed_cmp(a: &str, b: &str) -> Ordering {
    a.bytes().rev().cmp(b.bytes().rev())
}

/// Whether `short` is a proper suffix of `long`.
pub(super) fn ends(long: &str, short: &str) -> bool {
    long.len() > short.len() && long.ends_with(short)
}

/// Whether `s` keeps bytes of its own in the table of `strings`: no other string ends with it.
pub(super) fn is_kept<'a, I>(mut strings: I, s: &str) -> bool
where
    I: Iterator<Item = &'a str>,
{
    !s.is_empty() && !strings.any(|other| ends(other, s))
}

/// The string `s` is merged into, among `strings`: `None` when no other string ends with it
/// (it is kept), else the kept string bfd puts it at the end of: the first kept string after
/// it in reversed order.
pub(super) fn suffix_host<'a, I>(strings: I, s: &str) -> Option<&'a str>
where
    I: Iterator<Item = &'a str> + Clone,
{
    strings
        .clone()
        .filter(|t| ends(t, s) && is_kept(strings.clone(), t))
        .min_by(|a, b| reversed_cmp(a, b))
}

/// The bytes of the table of `strings` (in the order they are added, repeats allowed, empty
/// ones skipped): the leading NUL, then every kept string with its NUL.
pub(super) fn table_size<'a, I>(strings: I) -> usize
where
    I: Iterator<Item = &'a str> + Clone,
{
    let mut size = 1;
    for (index, s) in strings.clone().enumerate() {
        let first = !strings.clone().take(index).any(|t| t == s);
        if first && is_kept(strings.clone(), s) {
            size += s.len() + 1;
        }
    }
    size
}

/// The offset of `s` in the table of `strings` (0 for the empty string or one not in it).
pub(super) fn offset_of<'a, I>(strings: I, s: &str) -> usize
where
    I: Iterator<Item = &'a str> + Clone,
{
    if s.is_empty() {
        return 0;
    }
    let (host, tail) = match suffix_host(strings.clone(), s) {
        Some(host) => (host, host.len() - s.len()),
        None => (s, 0),
    };
    let mut offset = 1;
    for (index, t) in strings.clone().enumerate() {
        if t == host {
            return offset + tail;
        }
        let first = !strings.clone().take(index).any(|u| u == t);
        if first && is_kept(strings.clone(), t) {
            offset += t.len() + 1;
        }
    }
    0
}

/// Writes the table of `strings` into `out` (of [`table_size`] bytes).
pub(super) fn write_table<'a, I>(strings: I, out: &mut [u8])
where
    I: Iterator<Item = &'a str> + Clone,
{
    out.fill(0);
    let mut offset = 1;
    for (index, s) in strings.clone().enumerate() {
        let first = !strings.clone().take(index).any(|t| t == s);
        if first && is_kept(strings.clone(), s) {
            if let Some(place) = out.get_mut(offset..offset + s.len()) {
                place.copy_from_slice(s.as_bytes());
            }
            offset += s.len() + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_share_the_bytes_of_a_longer_string() {
        // The .strtab spu-ld 2.40 wrote for a link (`readelf -x .strtab`): `_start` is the end
        // of `__bss_start`, `d` of `_end`.
        let names = [
            "b.o",
            "d",
            "_start",
            "__bss_start",
            "func",
            "_edata",
            "_end",
        ];
        let strings = || names.iter().copied();
        assert_eq!(table_size(strings()), 0x22);
        let mut out = [0u8; 0x22];
        write_table(strings(), &mut out);
        assert_eq!(&out, b"\0b.o\0__bss_start\0func\0_edata\0_end\0");
        assert_eq!(offset_of(strings(), "_start"), 0x0a);
        assert_eq!(offset_of(strings(), "d"), 0x20);
        assert_eq!(offset_of(strings(), "func"), 0x11);
    }

    #[test]
    fn a_suffix_goes_to_the_next_string_in_reversed_order() {
        // "a" ends both "ba" and "ca": reversed, "a" < "ab" < "ac", so bfd puts it in "ba".
        let names = ["ca", "ba", "a"];
        let strings = || names.iter().copied();
        assert_eq!(offset_of(strings(), "a"), 4 + 1);
        // Chains go to the longest: "a" in "ba" in "cba".
        let chain = ["a", "ba", "cba"];
        assert_eq!(offset_of(chain.iter().copied(), "a"), 3);
        assert_eq!(table_size(chain.iter().copied()), 5);
    }
}
