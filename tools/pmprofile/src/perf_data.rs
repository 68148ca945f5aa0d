//! The samples as a `perf.data` file (`pmprofile --perf-data OUT`), for stock `perf report`,
//! `perf script` and `perf annotate`.
//!
//! The file's framing (the file header, the attribute section, the feature sections and their
//! table, `HEADER_EVENT_DESC`) is written by the `tracepoint_perf` crate's
//! `PerfDataFileWriter`; this module supplies what it leaves to its caller, following the
//! kernel's `include/uapi/linux/perf_event.h` and perf's `perf.data-file-format.txt`:
//!
//! - one `perf_event_attr`: `PERF_SAMPLE_IP | TID | TIME | CPU | PERIOD | CALLCHAIN`,
//!   `sample_id_all`, the period the firmware sampled at; the event is the PMU event
//!   (`instructions`, `cycles`, or raw `rNN`) or, for the generic timer, `cpu-clock` (a
//!   software clock, as `perf record` falls back to without a PMU);
//! - the firmware as one process: a `COMM` record naming it, and an `MMAP2` record per
//!   executable `PT_LOAD` segment of the ELF, at its address with its file offset, so perf maps
//!   sampled addresses to the ELF's symbols;
//! - one `SAMPLE` record per sample: the PC, the core as `cpu`, a time, the period, and the
//!   call chain as the kernel writes one (`PERF_CONTEXT_USER`, the PC, then the return
//!   addresses: the link register where the frame-pointer chain skipped the caller, then the
//!   chain; see [`crate::profile::return_addresses`]);
//! - `HEADER_BUILD_ID` (the ELF's `.note.gnu.build-id`, which perf checks against the file it
//!   opens), `HEADER_ARCH` (`aarch64`: perf annotate picks the instruction set and a cross
//!   objdump from it), `HEADER_NRCPUS`, `HEADER_CMDLINE` (pmprofile's command line), `HEADER_SAMPLE_TIME`.
//!
//! **User mode.** The firmware runs at EL1, but it is described as a user process (pid
//! [`FIRMWARE_PID`], samples marked `PERF_RECORD_MISC_USER`): perf resolves user addresses
//! through the process's mappings and the mapped file's symbol table, while kernel addresses
//! would be looked up in the host's own kernel. `perf report --sort cpu` splits the samples by
//! core.
//!
//! **Time.** Samples carry no timestamp. As in the Firefox export ([`crate::firefox`]), the
//! n-th sample of a core (from 1) is given the time n × period, one event or timer tick per
//! nanosecond: an order, not a clock.

use std::io;
use std::path::Path;

use object::{Object, ObjectSegment};
use pmprobe::pmu::Event;
use pmprobe::sampling::{ProfileHeader, Sample, SampleSource};
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrSize,
    PerfEventAttrType,
};
use tracepoint_perf::{PerfDataFileWriter, PerfHeaderIndex};

use crate::profile::{Resolve, return_addresses};

/// The process id the firmware is given.
pub const FIRMWARE_PID: u32 = 1;
/// The command name of that process.
pub const FIRMWARE_COMM: &str = "pmprobe";

/// `PERF_RECORD_*` record types (`enum perf_event_type`).
const RECORD_COMM: u32 = 3;
const RECORD_SAMPLE: u32 = 9;
const RECORD_MMAP2: u32 = 10;
/// `PERF_RECORD_HEADER_BUILD_ID`, the type of the records in the `HEADER_BUILD_ID` section.
const RECORD_HEADER_BUILD_ID: u32 = 67;
/// `PERF_RECORD_MISC_USER`: the sample (or mapping) is in user space.
const MISC_USER: u16 = 2;
/// `PERF_RECORD_MISC_BUILD_ID_SIZE`: the build-id record says how long its build id is.
const MISC_BUILD_ID_SIZE: u16 = 1 << 15;
/// `PERF_CONTEXT_USER`: the call chain entries that follow are user addresses.
const CONTEXT_USER: u64 = (-512i64) as u64;
/// `PROT_READ | PROT_EXEC`, `MAP_PRIVATE`.
const PROT_READ_EXEC: u32 = 0x1 | 0x4;
const MAP_PRIVATE: u32 = 0x2;
/// `PERF_TYPE_HARDWARE` configs (`enum perf_hw_id`) and the software cpu-clock.
const HW_CPU_CYCLES: u64 = 0;
const HW_INSTRUCTIONS: u64 = 1;
const SW_CPU_CLOCK: u64 = 0;
/// perf pads file names in build-id records to this (`NAME_ALIGN`).
const NAME_ALIGN: usize = 64;
/// The longest build id a record holds (`BUILD_ID_SIZE`).
const BUILD_ID_MAX: usize = 20;

/// The firmware ELF as the perf.data file describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Firmware {
    /// The path perf opens to read symbols (absolute, so perf finds it from any directory).
    pub path: String,
    /// The GNU build id of `.note.gnu.build-id`.
    pub build_id: Vec<u8>,
    /// The executable segments: (address, size, file offset).
    pub segments: Vec<(u64, u64, u64)>,
}

/// Why the firmware ELF cannot be described for perf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FirmwareError {
    /// Not an ELF file `object` can read.
    NotElf(String),
    /// The ELF has no `.note.gnu.build-id` (link it with `--build-id`): perf identifies the
    /// file by it.
    NoBuildId,
    /// The ELF has no executable segment to map.
    NoCode,
}

impl std::fmt::Display for FirmwareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotElf(e) => write!(f, "not a readable ELF file: {e}"),
            Self::NoBuildId => f.write_str(
                "no GNU build id (.note.gnu.build-id); link the firmware with --build-id",
            ),
            Self::NoCode => f.write_str("no executable PT_LOAD segment"),
        }
    }
}

impl std::error::Error for FirmwareError {}

impl Firmware {
    /// Reads the build id and the executable segments of the ELF `elf`, found at `path`.
    pub fn from_elf(path: &Path, elf: &[u8]) -> Result<Self, FirmwareError> {
        let file = object::File::parse(elf).map_err(|e| FirmwareError::NotElf(e.to_string()))?;
        let build_id = file
            .build_id()
            .ok()
            .flatten()
            .filter(|id| !id.is_empty())
            .ok_or(FirmwareError::NoBuildId)?
            .to_vec();
        let segments: Vec<(u64, u64, u64)> = file
            .segments()
            .filter(|segment| {
                matches!(segment.flags(), object::SegmentFlags::Elf { p_flags, .. }
                    if p_flags.0 & object::elf::PF_X.0 != 0)
            })
            .map(|segment| (segment.address(), segment.size(), segment.file_range().0))
            .collect();
        if segments.is_empty() {
            return Err(FirmwareError::NoCode);
        }
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(Self {
            path: path.display().to_string(),
            build_id,
            segments,
        })
    }
}

/// The perf event the samples stand for: its attr type, config and perf's name for it.
pub fn event_of(header: &ProfileHeader) -> (PerfEventAttrType, u64, String) {
    match header.source {
        SampleSource::GenericTimer => (
            PerfEventAttrType::Software,
            SW_CPU_CLOCK,
            "cpu-clock".into(),
        ),
        SampleSource::PmuOverflow => match Event::raw(header.event) {
            Event::INST_RETIRED => (
                PerfEventAttrType::Hardware,
                HW_INSTRUCTIONS,
                "instructions".into(),
            ),
            Event::CPU_CYCLES => (PerfEventAttrType::Hardware, HW_CPU_CYCLES, "cycles".into()),
            _ => (
                PerfEventAttrType::Raw,
                u64::from(header.event),
                format!("r{:x}", header.event),
            ),
        },
    }
}

/// The `perf_event_attr` of the samples.
pub fn attr_of(header: &ProfileHeader) -> PerfEventAttr {
    let (attr_type, config, _) = event_of(header);
    let sample_type = [
        PerfEventAttrSampleType::IP,
        PerfEventAttrSampleType::Tid,
        PerfEventAttrSampleType::Time,
        PerfEventAttrSampleType::Cpu,
        PerfEventAttrSampleType::Period,
        PerfEventAttrSampleType::Callchain,
    ]
    .iter()
    .fold(0, |bits, t| bits | t.0);
    PerfEventAttr {
        attr_type,
        size: PerfEventAttrSize::Ver7,
        config,
        sample_time: header.period,
        sample_type: PerfEventAttrSampleType(sample_type),
        // The firmware runs at EL1 and is sampled there: as perf sees it, "user" code of one
        // process (see the module's documentation), so neither user nor kernel is excluded.
        // `exclude_guest` is what `perf record` sets by default on a host (no virtual
        // machine was sampled); without it perf names the event `cpu-clock:HG`.
        options: PerfEventAttrOptions(
            PerfEventAttrOptions::SampleIdAll.0
                | PerfEventAttrOptions::Mmap2.0
                | PerfEventAttrOptions::Comm.0
                | PerfEventAttrOptions::ExcludeGuest.0,
        ),
        ..PerfEventAttr::default()
    }
}

/// Appends a record: `perf_event_header` (type, misc, size) and `body`, padded to 8 bytes.
fn record(out: &mut Vec<u8>, kind: u32, misc: u16, body: &[u8]) {
    let size = (8 + body.len()).next_multiple_of(8);
    out.extend_from_slice(&kind.to_ne_bytes());
    out.extend_from_slice(&misc.to_ne_bytes());
    // Records are small: a sample's chain holds at most 34 addresses.
    out.extend_from_slice(&u16::try_from(size).unwrap_or(u16::MAX).to_ne_bytes());
    out.extend_from_slice(body);
    out.resize(out.len() + size - 8 - body.len(), 0);
}

/// A NUL-terminated string padded to 8 bytes, as `COMM` and `MMAP2` end.
fn c_string(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(text.as_bytes());
    out.resize((out.len() + 1).next_multiple_of(8), 0);
}

/// The `sample_id_all` trailer of a non-sample record: pid, tid, time, cpu (the attr's
/// `TID | TIME | CPU`, in that order).
fn sample_id(out: &mut Vec<u8>, time: u64, cpu: u32) {
    out.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
    out.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
    out.extend_from_slice(&time.to_ne_bytes());
    out.extend_from_slice(&cpu.to_ne_bytes());
    out.extend_from_slice(&0u32.to_ne_bytes());
}

/// The `COMM` and `MMAP2` records that describe the firmware process, at time 0 on cpu 0.
pub fn process_records(firmware: &Firmware) -> Vec<u8> {
    let mut out = Vec::new();
    let mut body = Vec::new();
    body.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
    body.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
    c_string(&mut body, FIRMWARE_COMM);
    sample_id(&mut body, 0, 0);
    record(&mut out, RECORD_COMM, 0, &body);
    for &(address, size, offset) in &firmware.segments {
        body.clear();
        body.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
        body.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
        for value in [address, size, offset] {
            body.extend_from_slice(&value.to_ne_bytes());
        }
        // maj, min, ino, ino_generation: no device or inode (the build id identifies the file).
        body.extend_from_slice(&[0u8; 24]);
        body.extend_from_slice(&PROT_READ_EXEC.to_ne_bytes());
        body.extend_from_slice(&MAP_PRIVATE.to_ne_bytes());
        c_string(&mut body, &firmware.path);
        sample_id(&mut body, 0, 0);
        record(&mut out, RECORD_MMAP2, MISC_USER, &body);
    }
    out
}

/// One `SAMPLE` record: IP, pid/tid, time, cpu, period, call chain (the attr's order).
pub fn sample_record(out: &mut Vec<u8>, sample: &Sample, time: u64, period: u64, chain: &[u64]) {
    let mut body = Vec::with_capacity(48 + 8 * (chain.len() + 3));
    body.extend_from_slice(&sample.pc.to_ne_bytes());
    body.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
    body.extend_from_slice(&FIRMWARE_PID.to_ne_bytes());
    body.extend_from_slice(&time.to_ne_bytes());
    body.extend_from_slice(&u32::from(sample.core).to_ne_bytes());
    body.extend_from_slice(&0u32.to_ne_bytes());
    body.extend_from_slice(&period.to_ne_bytes());
    let entries = [CONTEXT_USER, sample.pc]
        .into_iter()
        .chain(chain.iter().copied());
    body.extend_from_slice(&(2 + chain.len() as u64).to_ne_bytes());
    for entry in entries {
        body.extend_from_slice(&entry.to_ne_bytes());
    }
    record(out, RECORD_SAMPLE, MISC_USER, &body);
}

/// The `HEADER_BUILD_ID` section: one `build_id_event` for the firmware (pid -1, the host
/// machine, as perf writes it for user files; the build id with its size; the file name
/// padded to 64 bytes).
pub fn build_id_section(firmware: &Firmware) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&(-1i32).to_ne_bytes());
    let id = &firmware.build_id[..firmware.build_id.len().min(BUILD_ID_MAX)];
    let mut field = [0u8; 24];
    field[..id.len()].copy_from_slice(id);
    // `id.len()` is at most 20.
    field[BUILD_ID_MAX] = id.len() as u8;
    body.extend_from_slice(&field);
    let name_len = (firmware.path.len() + 1).next_multiple_of(NAME_ALIGN);
    let start = body.len();
    body.extend_from_slice(firmware.path.as_bytes());
    body.resize(start + name_len, 0);
    let mut out = Vec::new();
    let size = 8 + body.len();
    out.extend_from_slice(&RECORD_HEADER_BUILD_ID.to_ne_bytes());
    out.extend_from_slice(&(MISC_USER | MISC_BUILD_ID_SIZE).to_ne_bytes());
    out.extend_from_slice(&u16::try_from(size).unwrap_or(u16::MAX).to_ne_bytes());
    out.extend_from_slice(&body);
    out
}

/// A `perf_header_string_list` (`HEADER_CMDLINE`): the number of strings, then each as a
/// `perf_header_string` (its length with the NUL and the padding to 8 bytes, the bytes).
pub fn string_list(strings: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    // A command line has far fewer than 2^32 words and each far fewer than 2^32 bytes.
    out.extend_from_slice(&(strings.len() as u32).to_ne_bytes());
    for string in strings {
        let len = (string.len() + 1).next_multiple_of(8);
        out.extend_from_slice(&(len as u32).to_ne_bytes());
        let start = out.len();
        out.extend_from_slice(string.as_bytes());
        out.resize(start + len, 0);
    }
    out
}

/// Writes `samples` (in file order: each core's in the order it took them), described by
/// `header`, as a perf.data file at `path`. `resolve` decides where the link register holds a
/// caller the frame-pointer chain skipped; `command_line` (its words) goes into `HEADER_CMDLINE`
/// (what `perf report --header` shows as the command that recorded the file).
pub fn write(
    path: &Path,
    samples: &[Sample],
    header: &ProfileHeader,
    resolve: &impl Resolve,
    firmware: &Firmware,
    command_line: &[String],
) -> io::Result<()> {
    let path_text = path
        .to_str()
        .ok_or_else(|| io::Error::other("the output path is not UTF-8"))?;
    let mut writer = PerfDataFileWriter::new();
    writer.create_file(path_text)?;
    writer.write_event_data(&process_records(firmware))?;
    writer.write_finished_init()?;
    let period = header.period.max(1);
    let mut taken = [0u64; 256];
    let (mut first, mut last) = (u64::MAX, 0);
    let mut data = Vec::new();
    for sample in samples {
        let n = &mut taken[usize::from(sample.core)];
        *n += 1;
        let time = n.saturating_mul(period);
        first = first.min(time);
        last = last.max(time);
        sample_record(
            &mut data,
            sample,
            time,
            period,
            &return_addresses(sample, resolve),
        );
    }
    writer.write_event_data(&data)?;
    writer.write_finished_round()?;
    let (_, _, name) = event_of(header);
    writer.add_event_desc(&[], &attr_of(header), &name);
    writer.set_header(PerfHeaderIndex::BuildId, &build_id_section(firmware));
    writer.set_string_header(PerfHeaderIndex::Arch, b"aarch64");
    let cores = taken
        .iter()
        .rposition(|&n| n > 0)
        .map_or(1, |i| i as u32 + 1);
    writer.set_nr_cpus_header(cores, cores);
    writer.set_header(PerfHeaderIndex::Cmdline, &string_list(command_line));
    if first <= last {
        writer.set_sample_time_header(first, last);
    }
    writer.finalize_and_close()
}
