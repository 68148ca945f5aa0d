//! Checks of the `assemble` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): arbitrary text through the SPU assembler.
//!
//! Checks: `assemble` never panics; an error names a position inside the text (line 1..=number
//! of lines, column 1..=length of that line + 1, the column just past the end being "at the end
//! of the line") and displays as `line:col: message`; a success reports sizes that fit the
//! image and an entry point inside the program.
use pmprobe::spu::isa::asm::assemble;

/// Image sizes tried: the full local store and a small one (so "image full" errors happen).
const IMAGE_BYTES: [usize; 2] = [256 * 1024, 64];

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    // Non-UTF-8 input is turned into text rather than thrown away, so every input is used.
    let text = String::from_utf8_lossy(data);
    let image_bytes = IMAGE_BYTES[usize::from(data.first().is_some_and(|b| b & 1 == 1))];
    let mut image = vec![0u8; image_bytes];
    match assemble::<64>(&text, &mut image) {
        Ok(program) => {
            assert!(program.len <= image.len(), "len {} > image", program.len);
            assert!(program.text_len <= program.len);
            if program.data_len > 0 {
                assert!(program.data_start >= program.text_len);
                assert_eq!(program.data_start + program.data_len, program.len);
            }
            let entry = program.entry as usize;
            // `_start` may label the end of the program (nothing after it), not beyond.
            assert!(
                entry <= program.len,
                "entry {entry:#x} outside program of {} bytes",
                program.len
            );
        }
        Err(error) => {
            // Lines as the assembler counts them: separated by '\n'.
            let lines: Vec<&str> = text.split('\n').collect();
            let line = error.line as usize;
            assert!(
                (1..=lines.len()).contains(&line),
                "line {line} outside 1..={} for {error:?}",
                lines.len()
            );
            let line_text = lines[line - 1];
            let column = error.column as usize;
            assert!(
                (1..=line_text.len() + 1).contains(&column),
                "column {column} outside 1..={} of line {line} {line_text:?} for {error:?}",
                line_text.len() + 1
            );
            let shown = error.to_string();
            assert!(
                shown.starts_with(&format!("{}:{}: ", error.line, error.column)),
                "{shown:?} does not start with line:col"
            );
            assert!(shown.len() > format!("{}:{}: ", error.line, error.column).len());
        }
    }
}
