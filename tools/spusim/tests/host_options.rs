//! The host side's options (`--ea-size`, `--ea-load`, `--ea-dump`, `--signal1`, `--signal2`,
//! `--in-mbox`, the DMA timing and the timebase ratio) and the runtime's (`--runtime`,
//! `--spu-arg`, `--threads`, `--npc`, `--event-queue`, `--event-port`) as the command line
//! parses them, and the values it refuses (`spusim --help` says what each means).

use std::path::PathBuf;

use pmprobe::spu::runtime::RuntimeKind;
use spusim::options::{Command, Options, parse};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The options `list` parses to; panics when it is not a run.
fn run_options(list: &[&str]) -> Options {
    match parse(args(list)) {
        Ok(Command::Run(options)) => options,
        other => panic!("{list:?} should parse, got {other:?}"),
    }
}

#[test]
fn host_options() {
    let options = run_options(&[
        "--ea-size",
        "0x100000",
        "--ea-load",
        "data@x.bin@0x2000",
        "--ea-load=y.bin@16",
        "--ea-dump",
        "0x2000:32",
        "--signal1",
        "0xff",
        "--signal2=7",
        "--in-mbox",
        "1",
        "--in-mbox",
        "0x2",
        "--dma-latency",
        "100",
        "--dma-issue=3",
        "--dma-bandwidth",
        "16",
        "--timebase-ratio",
        "8",
        "p.s",
    ]);
    let host = options.host;
    assert_eq!(host.ea_size, 0x10_0000);
    assert_eq!(
        host.ea_loads,
        [
            (PathBuf::from("data@x.bin"), 0x2000),
            (PathBuf::from("y.bin"), 16)
        ]
    );
    assert_eq!(host.ea_dumps, [(0x2000, 32)]);
    assert_eq!((host.signal1, host.signal2), (Some(0xff), Some(7)));
    assert_eq!(host.in_mbox, [1, 2]);
    assert_eq!(
        (
            host.dma_timing.issue_cycles,
            host.dma_timing.latency_cycles,
            host.dma_timing.bytes_per_cycle
        ),
        (3, 100, 16)
    );
    assert_eq!(host.timebase_ratio, Some(8));
    for bad in [
        &["--ea-size", "0", "p.s"][..],
        &["--ea-size", "0x80000000", "p.s"],
        &["--ea-load", "noaddress", "p.s"],
        &["--ea-load", "@16", "p.s"],
        &["--ea-dump", "16", "p.s"],
        &["--signal1", "0x100000000", "p.s"],
        &["--in-mbox", "x", "p.s"],
        &["--dma-bandwidth", "0", "p.s"],
        &["--timebase-ratio", "0", "p.s"],
    ] {
        assert!(parse(args(bad)).is_err(), "{bad:?}");
    }
}

#[test]
fn runtime_options() {
    let options = run_options(&[
        "--runtime",
        "lv2",
        "--spu-arg",
        "1=0x10000",
        "--spu-arg=4=18446744073709551615",
        "--spu-arg",
        "1:2=5",
        "--threads",
        "2",
        "--npc",
        "0xd1",
        "--event-queue",
        "7=1,2,0x3",
        "--event-queue",
        "9",
        "--event-port",
        "5",
        "p.elf",
    ]);
    let runtime = options.runtime;
    assert_eq!(runtime.kind, Some(RuntimeKind::Lv2));
    assert_eq!(
        runtime.spu_args,
        [Some(0x10000), None, None, Some(u64::MAX)]
    );
    assert_eq!(runtime.npc, Some(0xd1));
    assert_eq!(runtime.event_queues, [(7, Some([1, 2, 3])), (9, None)]);
    assert_eq!(runtime.event_ports, [5]);
    for bad in [
        &["--runtime", "linux", "p.elf"][..],
        &["--spu-arg", "0=1", "p.elf"],
        &["--spu-arg", "5=1", "p.elf"],
        &["--spu-arg", "1", "p.elf"],
        &["--spu-arg", "1=0x10000000000000000", "p.elf"],
        &["--npc", "0x100000000", "p.elf"],
        &["--event-queue", "1=2,3", "p.elf"],
        &["--event-queue", "x", "p.elf"],
        &["--event-port", "64", "p.elf"],
        &["--spu-arg", "8:1=0", "p.elf"],
        &["--threads", "0", "p.elf"],
        &["--threads", "9", "p.elf"],
    ] {
        assert!(parse(args(bad)).is_err(), "{bad:?}");
    }
}
