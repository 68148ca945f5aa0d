//! The trace's `metadata` file: the TSDL text (CTF 1.8, section 7) that describes the packets
//! [`StreamWriter`](super::StreamWriter) writes and the event classes of
//! [`events`](super::events), for the caller's clock, UUID and PC event names.

use core::fmt::{self, Write};

use crate::pmu::Event;
use crate::spu::isa::IClass;
use crate::spu::mfc::command_name;

use super::events::{DMA_OPCODES, EVENT_NAMES, STALL_DEPENDENCY_BASE, STALL_REASONS};

/// The clock every timestamp of the trace counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockDescription<'a> {
    /// Its TSDL name: letters, digits and `_`, not starting with a digit.
    pub name: &'a str,
    /// What it counts, in words.
    pub description: &'a str,
    /// Ticks per second (for the SPU's cycles, [`SPU_CLOCK_HZ`](super::SPU_CLOCK_HZ)).
    pub frequency: u64,
}

/// What the metadata says besides the layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceDescription<'a> {
    /// The trace's UUID: the same bytes as every stream's
    /// [`StreamConfig::uuid`](super::StreamConfig::uuid).
    pub uuid: [u8; 16],
    /// The clock.
    pub clock: ClockDescription<'a>,
    /// The names of the PC events, by their number (a `pc_event`'s `event` field).
    pub pc_events: &'a [&'a str],
    /// `env` entries besides `producer`: name (a TSDL identifier) and text.
    pub env: &'a [(&'a str, &'a str)],
}

/// Why the metadata could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetadataError {
    /// A name that must be a TSDL identifier (the clock's, an `env` entry's) is not one.
    NotAnIdentifier,
    /// A text holds a control character, which a TSDL string cannot carry.
    ControlCharacter,
    /// The writer failed.
    Write,
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotAnIdentifier => {
                "a clock or env name must be letters, digits and `_`, not starting with a digit"
            }
            Self::ControlCharacter => "a CTF metadata text cannot hold a control character",
            Self::Write => "the metadata could not be written",
        })
    }
}

impl core::error::Error for MetadataError {}

impl From<fmt::Error> for MetadataError {
    fn from(_: fmt::Error) -> Self {
        Self::Write
    }
}

/// A version-4 UUID from 16 bytes that should differ from trace to trace (a clock, a counter):
/// the bytes with the version and variant bits set.
pub fn uuid_v4(mut bytes: [u8; 16]) -> [u8; 16] {
    bytes[6] = (bytes[6] & 0x0F) | 0x40;
    bytes[8] = (bytes[8] & 0x3F) | 0x80;
    bytes
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `text` as a TSDL string literal, quotes included.
struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            if c == '"' || c == '\\' {
                f.write_char('\\')?;
            }
            f.write_char(c)?;
        }
        f.write_char('"')
    }
}

fn check_text(text: &str) -> Result<(), MetadataError> {
    if text.chars().any(char::is_control) {
        return Err(MetadataError::ControlCharacter);
    }
    Ok(())
}

/// The integer types every layout uses; all byte-aligned, so events carry no padding.
const TYPES: &str = "\
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 32; align = 8; signed = false; base = 16; } := uint32_hex_t;
typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
";

const PACKET_HEADER: &str = "\
    packet.header := struct {
        uint32_t magic;
        uint8_t uuid[16];
        uint32_t stream_id;
    };
";

const STREAM: &str = "\
stream {
    id = 0;
    event.header := struct {
        enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
        variant <id> {
            struct { uint27_clock_t timestamp; } compact;
            struct { uint32_t id; uint64_clock_t timestamp; } extended;
        } v;
    } align(8);
    packet.context := struct {
        uint64_clock_t timestamp_begin;
        uint64_clock_t timestamp_end;
        uint64_t content_size;
        uint64_t packet_size;
        uint64_t packet_seq_num;
        uint64_t events_discarded;
        uint32_t cpu_id;
    };
};
";

/// Writes the whole metadata text for `trace`.
pub fn write_metadata(
    out: &mut impl Write,
    trace: &TraceDescription<'_>,
) -> Result<(), MetadataError> {
    let clock = &trace.clock;
    if !is_identifier(clock.name) || trace.env.iter().any(|(name, _)| !is_identifier(name)) {
        return Err(MetadataError::NotAnIdentifier);
    }
    check_text(clock.description)?;
    for text in trace
        .pc_events
        .iter()
        .chain(trace.env.iter().map(|(_, text)| text))
    {
        check_text(text)?;
    }
    out.write_str("/* CTF 1.8 */\n\n")?;
    out.write_str(TYPES)?;
    let u = &trace.uuid;
    writeln!(
        out,
        "\ntrace {{\n    major = 1;\n    minor = 8;\n    uuid = \"{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}\";\n    byte_order = le;\n{PACKET_HEADER}}};",
        u[0],
        u[1],
        u[2],
        u[3],
        u[4],
        u[5],
        u[6],
        u[7],
        u[8],
        u[9],
        u[10],
        u[11],
        u[12],
        u[13],
        u[14],
        u[15]
    )?;
    writeln!(out, "\nenv {{\n    producer = \"pmprobe\";")?;
    for (name, text) in trace.env {
        writeln!(out, "    {name} = {};", Quoted(text))?;
    }
    out.write_str("};\n")?;
    writeln!(
        out,
        "\nclock {{\n    name = {};\n    description = {};\n    freq = {};\n    precision = 0;\n    offset_s = 0;\n    offset = 0;\n    absolute = FALSE;\n}};\n",
        clock.name,
        Quoted(clock.description),
        clock.frequency
    )?;
    for (size, align, name) in [(27, 1, "uint27_clock_t"), (64, 8, "uint64_clock_t")] {
        writeln!(
            out,
            "typealias integer {{ size = {size}; align = {align}; signed = false; map = clock.{}.value; }} := {name};",
            clock.name
        )?;
    }
    writeln!(out)?;
    out.write_str(STREAM)?;
    write_events(out, trace.pc_events)?;
    Ok(())
}

/// One `event` block: `fields` is the payload struct's body.
fn event(out: &mut impl Write, id: u32, fields: fmt::Arguments<'_>) -> fmt::Result {
    let name = EVENT_NAMES.get(id as usize).copied().unwrap_or("unnamed");
    writeln!(
        out,
        "\nevent {{\n    name = \"{name}\";\n    id = {id};\n    stream_id = 0;\n    fields := struct {{\n{fields}    }};\n}};"
    )
}

/// The `enum : uint8_t { ... }` of the MFC commands.
struct Commands;

impl fmt::Display for Commands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("enum : uint8_t {")?;
        for (index, opcode) in DMA_OPCODES.iter().enumerate() {
            let separator = if index == 0 { " " } else { ", " };
            write!(
                f,
                "{separator}{} = {opcode}",
                Quoted(command_name(u16::from(*opcode)))
            )?;
        }
        f.write_str(" }")
    }
}

/// The `enum : uint8_t { ... }` of the stall reasons.
struct Reasons;

impl fmt::Display for Reasons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("enum : uint8_t {")?;
        for (code, (_, label)) in STALL_REASONS.iter().enumerate() {
            let separator = if code == 0 { " " } else { ", " };
            write!(f, "{separator}{} = {code}", Quoted(label))?;
        }
        for (place, class) in IClass::ALL.iter().enumerate() {
            let code = usize::from(STALL_DEPENDENCY_BASE) + place;
            write!(f, ", \"dependency_{}\" = {code}", class.name())?;
        }
        f.write_str(" }")
    }
}

/// The `enum : uint16_t { ... }` of the architecture's common PMU events.
struct PmuEvents;

impl fmt::Display for PmuEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("enum : uint16_t {")?;
        let mut first = true;
        for event in Event::common() {
            if let Some(name) = event.name() {
                let separator = if first { " " } else { ", " };
                first = false;
                write!(f, "{separator}{} = {}", Quoted(name), event.number())?;
            }
        }
        f.write_str(" }")
    }
}

/// The `pc_event`'s `event` field: an enumeration of the names, or a plain number without
/// names (an enumeration needs at least one).
struct PcEventNames<'a>(&'a [&'a str]);

impl fmt::Display for PcEventNames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("uint16_t");
        }
        f.write_str("enum : uint16_t {")?;
        for (number, name) in self.0.iter().enumerate() {
            let separator = if number == 0 { " " } else { ", " };
            write!(f, "{separator}{} = {number}", Quoted(name))?;
        }
        f.write_str(" }")
    }
}

fn write_events(out: &mut impl Write, pc_events: &[&str]) -> fmt::Result {
    for id in 0..3 {
        event(
            out,
            id,
            format_args!(
                "        uint32_hex_t pc;\n        uint32_hex_t address;\n        uint16_t size;\n"
            ),
        )?;
    }
    for id in 3..6 {
        event(
            out,
            id,
            format_args!(
                "        uint64_hex_t pc;\n        uint64_hex_t address;\n        uint32_t size;\n"
            ),
        )?;
    }
    let dma = format_args!(
        "        {Commands} command;\n        uint8_t tag;\n        uint32_t size;\n        uint32_hex_t lsa;\n        uint64_hex_t ea;\n        uint64_t issued;\n"
    );
    event(out, 6, dma)?;
    event(out, 7, format_args!("{dma}        uint16_t element;\n"))?;
    event(
        out,
        8,
        format_args!("        {Reasons} reason;\n        uint32_t cycles;\n"),
    )?;
    event(
        out,
        9,
        format_args!(
            "        {PmuEvents} counter;\n        uint64_t raw;\n        uint64_t enabled;\n        uint64_t running;\n"
        ),
    )?;
    event(
        out,
        10,
        format_args!(
            "        uint64_hex_t pc;\n        {} name;\n",
            PcEventNames(pc_events)
        ),
    )
}
