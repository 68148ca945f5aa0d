//! How spusim reports assembly errors: every error it meets (up to 20), in the order the
//! assembler meets them, and for one in a macro or repeat body where the expansion was
//! started, as gas's "macro invoked from here" note says.

mod common;

use common::{spusim, stderr, temp_program};

#[test]
fn every_error_is_reported_with_where_its_expansion_started() {
    // The first pass meets `bogus` (in the macro called on line 5) and the range error; once
    // it is clean the second pass meets the undefined label.
    let path = temp_program(
        "several-errors.s",
        "_start: nop\n.macro m\nbogus\n.endm\nm\nil $3, 100000\nbr nowhere\nstop\n",
    );
    let output = spusim(&[&path]);
    assert_eq!(output.status.code(), Some(2));
    let expected = format!(
        "{path}:3:1: unknown instruction `bogus`\n\
         {path}:5:1: note: expansion started here\n\
         {path}:6:8: operand 2: value 100000 out of range, expected -32768..=32767\n\
         {path}:7:4: undefined label `nowhere`\n"
    );
    assert_eq!(stderr(&output), expected);
}

#[test]
fn a_limit_ends_the_report() {
    // A block left open is no statement's error: nothing is blanked after it.
    let path = temp_program("open-block.s", "bogus\n.rept 2\nnop\n");
    let text = stderr(&spusim(&[&path]));
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains(":1:1: unknown instruction `bogus`"), "{text}");
    assert!(text.contains("missing `.endr`"), "{text}");
}
