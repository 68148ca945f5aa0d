//! spusim: assemble an SPU assembly file and run it on the pmprobe SPU model (see the
//! library documentation and `--help`).
#![forbid(unsafe_code)]

use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    let status = spusim::run(
        std::env::args_os().skip(1),
        &mut io::stdout().lock(),
        &mut io::stderr().lock(),
    );
    ExitCode::from(status)
}
