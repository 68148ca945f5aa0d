//! How the demo's tables and check names call an SPU mode.

use pmprobe::spu::unit::Mode;

/// The mode's name as the tables print it.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Instruction => "instruction",
        Mode::Pipeline => "pipeline",
    }
}
