//! The SPU runtimes' printf: C's conversions as the C standard defines them (each expected
//! string below is what C's printf prints for the format and value; cross-checked with the
//! host C library's `printf(1)`/Python `%`-formatting, which implement the same rules), the
//! PS3 C library's own rules (17 significant digits, from a PS3 recording), and the two
//! argument conventions (the PS3 `spu_printf` quadword block, libspe2's `va_list` walk).

use pmprobe::spu::exec::{LocalStore, Quadword};
use pmprobe::spu::runtime::printf::{
    self, LsString, PrintfError, PrintfSink, QuadwordArguments, VaListArguments,
};

const FORMAT_AT: u32 = 0x1000;
const ARGUMENTS_AT: u32 = 0x2000;
const STRINGS_AT: u32 = 0x3000;

#[derive(Default)]
struct Collected(Vec<u8>);

impl PrintfSink for Collected {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// An argument as the caller leaves it in its quadword.
#[derive(Clone, Copy)]
enum Arg {
    Int(i64),
    Long(u64),
    Double(f64),
    /// A string, stored in the local store; the argument is its address.
    Str(&'static str),
}

fn store_string(ls: &mut LocalStore, at: u32, text: &[u8]) {
    for (offset, &byte) in text.iter().chain([0u8].iter()).enumerate() {
        ls.store_byte(at + offset as u32, byte);
    }
}

fn quadword_for(arg: Arg, ls: &mut LocalStore, strings: &mut u32) -> Quadword {
    match arg {
        // An int is the word in the preferred slot (bytes 0..4).
        Arg::Int(value) => Quadword::from_words([value as u32, 0xdead_beef, 0, 0]),
        Arg::Long(value) => Quadword::from_words([(value >> 32) as u32, value as u32, 0, 0]),
        Arg::Double(value) => {
            let bits = value.to_bits();
            Quadword::from_words([(bits >> 32) as u32, bits as u32, 0, 0])
        }
        Arg::Str(text) => {
            let at = *strings;
            store_string(ls, at, text.as_bytes());
            *strings += (text.len() as u32 + 16) & !15;
            Quadword::from_words([at, 0, 0, 0])
        }
    }
}

/// Formats with the PS3 convention: the format's address in quadword 0 of the block, then one
/// quadword per argument.
fn ps3(format: &str, args: &[Arg]) -> Result<(String, usize), PrintfError> {
    let mut ls = Box::new(LocalStore::new());
    store_string(&mut ls, FORMAT_AT, format.as_bytes());
    ls.store_quadword(ARGUMENTS_AT, Quadword::from_words([FORMAT_AT, 0, 0, 0]));
    let mut strings = STRINGS_AT;
    for (index, &arg) in args.iter().enumerate() {
        let quadword = quadword_for(arg, &mut ls, &mut strings);
        ls.store_quadword(ARGUMENTS_AT + 16 * (index as u32 + 1), quadword);
    }
    let mut arguments = QuadwordArguments::new(&ls, ARGUMENTS_AT + 16);
    let mut out = Collected::default();
    let printed = printf::format(
        &LsString::new(&ls, FORMAT_AT),
        &ls,
        &mut arguments,
        &mut out,
    )?;
    assert_eq!(printed, out.0.len(), "printf's count is the bytes written");
    Ok((String::from_utf8(out.0).unwrap(), printed))
}

fn check(format: &str, args: &[Arg], expected: &str) {
    let (text, _) = ps3(format, args).unwrap_or_else(|error| panic!("{format}: {error}"));
    assert_eq!(text, expected, "format {format:?}");
}

#[test]
fn integers_as_c_prints_them() {
    use Arg::Int;
    let cases: &[(&str, i64, &str)] = &[
        ("%d", 42, "42"),
        ("%d", -42, "-42"),
        ("%i", -2147483648, "-2147483648"),
        ("%5d|", 42, "   42|"),
        ("%-5d|", 42, "42   |"),
        ("%05d", -42, "-0042"),
        ("%+d", 42, "+42"),
        ("% d", 42, " 42"),
        ("%.3d", 7, "007"),
        ("%.0d|", 0, "|"),
        ("%8.3d|", -7, "    -007|"),
        ("%08.3d|", 7, "     007|"),
        ("%x", 255, "ff"),
        ("%X", 255, "FF"),
        ("%#x", 255, "0xff"),
        ("%#X", 0, "0"),
        ("%#o", 8, "010"),
        ("%#.3o", 8, "010"),
        ("%o", 0, "0"),
        ("%u", 3_000_000_000, "3000000000"),
        ("%u", -1, "4294967295"),
        ("%hd", 0x1_8000, "-32768"),
        ("%hhu", 0x1ff, "255"),
        ("%c", 65, "A"),
        ("%3c|", 66, "  B|"),
        ("%-3c|", 67, "C  |"),
        ("%p", 0x3ffd0, "0x3ffd0"),
    ];
    for &(format, value, expected) in cases {
        check(format, &[Int(value)], expected);
    }
    check("%%", &[], "%");
    check("100%% %d%%", &[Int(5)], "100% 5%");
}

#[test]
fn widths_and_precisions_from_arguments() {
    use Arg::Int;
    check("%*d|", &[Int(5), Int(42)], "   42|");
    // A negative width is the `-` flag; a negative precision is none.
    check("%*d|", &[Int(-5), Int(42)], "42   |");
    check("%.*d|", &[Int(-1), Int(7)], "7|");
    check("%*.*d|", &[Int(6), Int(3), Int(7)], "   007|");
}

#[test]
fn long_arguments_read_eight_bytes() {
    // The PS3's PPU C library: `ll` and (LP64) `l` read the quadword's bytes 0..8.
    check("%llx", &[Arg::Long(0x0003_ffd0_0003_f570)], "3ffd00003f570");
    check("%lld", &[Arg::Long(u64::MAX)], "-1");
    check("%lu", &[Arg::Long(1 << 40)], "1099511627776");
    // A plain `%x` reads bytes 0..4 only: the high word of a 64-bit value.
    check("%x", &[Arg::Long(0x0000_0000_1234_5678)], "0");
}

#[test]
fn strings() {
    use Arg::Str;
    check("%s", &[Str("hello")], "hello");
    check("%.3s", &[Str("hello")], "hel");
    check("%8s|", &[Str("hi")], "      hi|");
    check("%-8s|", &[Str("hi")], "hi      |");
    check("[%s]", &[Str("")], "[]");
    check("%s, %s!", &[Str("Hello"), Str("SPU")], "Hello, SPU!");
}

#[test]
fn doubles_as_c_prints_them() {
    use Arg::Double;
    let cases: &[(&str, f64, &str)] = &[
        ("%f", 3.25159, "3.251590"),
        ("%.2f", 2.675, "2.67"),
        ("%10.3f|", -1.5, "    -1.500|"),
        ("%-10.1f|", 1.25, "1.2       |"),
        ("%010.2f", -3.5, "-000003.50"),
        ("%+.1f", 2.0, "+2.0"),
        ("%.0f", 2.5, "2"),
        ("%.0f", 3.5, "4"),
        ("%#.0f", 3.0, "3."),
        ("%f", 0.0, "0.000000"),
        ("%f", -0.0, "-0.000000"),
        ("%f", 1e-7, "0.000000"),
        ("%.3f", 0.0006, "0.001"),
        ("%.3f", 0.0004, "0.000"),
        ("%.3f", 0.9996, "1.000"),
        ("%.10f", 0.1, "0.1000000000"),
        ("%e", 12345.678, "1.234568e+04"),
        ("%.2E", 0.000123, "1.23E-04"),
        ("%e", 0.0, "0.000000e+00"),
        ("%.1e", 9.96, "1.0e+01"),
        ("%.0e", 12345.0, "1e+04"),
        ("%#.0e", 12345.0, "1.e+04"),
        ("%e", 1e-300, "1.000000e-300"),
        ("%g", 0.0001, "0.0001"),
        ("%g", 0.00001, "1e-05"),
        ("%g", 123456.0, "123456"),
        ("%g", 1234567.0, "1.23457e+06"),
        ("%.3g", 3.25159, "3.25"),
        ("%#g", 1.0, "1.00000"),
        ("%G", 1e-10, "1E-10"),
        ("%g", 100.0, "100"),
        ("%g", 0.0, "0"),
        ("%.10g", 1.0 / 3.0, "0.3333333333"),
        ("%5.1f|", f64::INFINITY, "  inf|"),
        ("%-6f|", f64::NEG_INFINITY, "-inf  |"),
        ("%f", f64::NAN, "nan"),
        ("%E", f64::INFINITY, "INF"),
        ("%05f|", f64::INFINITY, "  inf|"),
    ];
    for &(format, value, expected) in cases {
        check(format, &[Double(value)], expected);
    }
}

/// The PS3 prints at most 17 significant digits, then zeros: these lines are from a PS3's
/// recorded output (elad335/myps3tests, "FREST + FRSQEST test"), where single-precision values
/// went through `%f` as doubles.
#[test]
fn seventeen_significant_digits_then_zeros() {
    let single = |bits: u32| Arg::Double(f64::from(f32::from_bits(bits)));
    let recorded: &[(u32, &str)] = &[
        (0x7e00_0008, "42535336429936515000000000000000000000.000000"),
        (0x6eff_f800, "39609245553853710000000000000.000000"),
        (0x6cb5_b28b, "1757269749452999400000000000.000000"),
        (0x7e80_0000, "85070591730234616000000000000000000000.000000"),
        (0x7223_3411, "3232576065518682600000000000000.000000"),
        (0x4238_5722, "46.085091"),
        (0x3f2a_a800, "0.666626"),
        (0xb3d6_bfe3, "-0.000000"),
    ];
    for &(bits, expected) in recorded {
        check("%f", &[single(bits)], expected);
    }
    // Past the seventeenth digit the fraction is zeros too.
    check("%.25f", &[Arg::Double(0.1)], "0.1000000000000000100000000");
    check(
        "%.20e",
        &[Arg::Double(1.0 / 3.0)],
        "3.33333333333333310000e-01",
    );
}

/// Arguments past the fifteenth continue, a quadword each, into the caller's frame: the PS3
/// printed the back-chain quadword for the sixteenth `%llx` of "atomic commands address
/// alignment" (`3ffd00003f570`), which this block layout reproduces.
#[test]
fn every_argument_is_the_next_quadword() {
    let mut args = vec![];
    let mut format = String::new();
    for index in 1..=16 {
        args.push(Arg::Long(index));
        format.push_str("%llx ");
    }
    let (text, _) = ps3(&format, &args).unwrap();
    assert_eq!(text, "1 2 3 4 5 6 7 8 9 a b c d e f 10 ");
}

#[test]
fn bad_formats_are_refused_with_their_offset() {
    assert_eq!(
        ps3("ab%n", &[Arg::Int(0)]),
        Err(PrintfError::UnsupportedConversion {
            offset: 2,
            conversion: b'n'
        })
    );
    assert_eq!(
        ps3("x%-5", &[]),
        Err(PrintfError::UnfinishedConversion { offset: 1 })
    );
    assert_eq!(
        ps3("%99999999d", &[Arg::Int(1)]),
        Err(PrintfError::AmountTooLarge { offset: 0 })
    );
}

#[test]
fn strings_stop_at_the_end_of_the_local_store() {
    let mut ls = Box::new(LocalStore::new());
    // An unterminated string in the last bytes of the local store.
    let tail = 0x3_fff8;
    for offset in 0..8 {
        ls.store_byte(tail + offset, b'z');
    }
    store_string(&mut ls, FORMAT_AT, b"%s|");
    ls.store_quadword(ARGUMENTS_AT, Quadword::from_words([tail, 0, 0, 0]));
    let mut out = Collected::default();
    let mut arguments = QuadwordArguments::new(&ls, ARGUMENTS_AT);
    printf::format(
        &LsString::new(&ls, FORMAT_AT),
        &ls,
        &mut arguments,
        &mut out,
    )
    .unwrap();
    assert_eq!(out.0, b"zzzzzzzz|");
}

/// libspe2's convention: a `va_list` of two quadwords (the next argument's address, the
/// caller's stack); at the caller's stack the walk skips its back chain and link quadwords.
#[test]
fn va_list_walk_skips_the_callers_frame_header() {
    let mut ls = Box::new(LocalStore::new());
    store_string(&mut ls, FORMAT_AT, b"%d %d %d %ld");
    let va_list = 0x2000;
    let register_area = 0x2100;
    let caller_stack = 0x2120;
    ls.store_quadword(va_list, Quadword::from_words([register_area, 0, 0, 0]));
    ls.store_quadword(va_list + 16, Quadword::from_words([caller_stack, 0, 0, 0]));
    ls.store_quadword(register_area, Quadword::from_words([1, 0, 0, 0]));
    ls.store_quadword(register_area + 16, Quadword::from_words([2, 0, 0, 0]));
    // The caller's back chain and link save: skipped.
    ls.store_quadword(caller_stack, Quadword::from_words([99, 0, 0, 0]));
    ls.store_quadword(caller_stack + 16, Quadword::from_words([98, 0, 0, 0]));
    ls.store_quadword(caller_stack + 32, Quadword::from_words([3, 0, 0, 0]));
    // `%ld` is an int in libspe2's handler (4 bytes).
    ls.store_quadword(caller_stack + 48, Quadword::from_words([4, 77, 0, 0]));
    let mut arguments = VaListArguments::at(&ls, va_list);
    let mut out = Collected::default();
    printf::format(
        &LsString::new(&ls, FORMAT_AT),
        &ls,
        &mut arguments,
        &mut out,
    )
    .unwrap();
    assert_eq!(String::from_utf8(out.0).unwrap(), "1 2 3 4");
}
