//! The host side's options: main memory (`--ea-size`, `--ea-load`, `--ea-dump`), what the
//! host gives the SPU before it starts (`--signal1`, `--signal2`, `--in-mbox`) and the MFC's
//! timing (`--dma-issue`, `--dma-latency`, `--dma-bandwidth`, `--timebase-ratio`).

use std::path::PathBuf;

use pmprobe::spu::mfc::DmaTiming;

/// Default `--ea-size`: 16 MiB of main memory.
pub const DEFAULT_EA_SIZE: u64 = 16 << 20;
/// The largest `--ea-size` (1 GiB): a typo should not ask the host for a terabyte.
pub const MAX_EA_SIZE: u64 = 1 << 30;

/// Main memory and the host's part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostOptions {
    /// `--ea-size BYTES`.
    pub ea_size: u64,
    /// `--ea-load FILE@ADDR`, in order.
    pub ea_loads: Vec<(PathBuf, u64)>,
    /// `--ea-dump ADDR:LEN`, in order.
    pub ea_dumps: Vec<(u64, u64)>,
    /// `--signal1 V`.
    pub signal1: Option<u32>,
    /// `--signal2 V`.
    pub signal2: Option<u32>,
    /// `--in-mbox V`, in order (four go in before the start, the rest as the SPU reads).
    pub in_mbox: Vec<u32>,
    /// `--dma-issue`, `--dma-latency`, `--dma-bandwidth`.
    pub dma_timing: DmaTiming,
    /// `--timebase-ratio N`: SPU cycles per decrementer tick.
    pub timebase_ratio: Option<u32>,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            ea_size: DEFAULT_EA_SIZE,
            ea_loads: Vec::new(),
            ea_dumps: Vec::new(),
            signal1: None,
            signal2: None,
            in_mbox: Vec::new(),
            dma_timing: DmaTiming::cell(),
            timebase_ratio: None,
        }
    }
}

/// A number in decimal or `0x` hex.
pub fn number(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn word(name: &str, text: &str) -> Result<u32, String> {
    number(text)
        .and_then(|value| u32::try_from(value).ok())
        .ok_or_else(|| format!("{name} expects a 32-bit number, found `{text}`"))
}

impl HostOptions {
    /// Takes the option `name` with its `value` (a text), `false` if it is not one of these.
    pub fn take(
        &mut self,
        name: &str,
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        match name {
            "--ea-size" => {
                let text = value()?;
                self.ea_size = number(&text)
                    .filter(|size| (1..=MAX_EA_SIZE).contains(size))
                    .ok_or_else(|| {
                        format!("--ea-size expects 1 to {MAX_EA_SIZE} bytes, found `{text}`")
                    })?;
            }
            "--ea-load" => {
                let text = value()?;
                let (file, address) = text
                    .rsplit_once('@')
                    .filter(|(file, _)| !file.is_empty())
                    .ok_or_else(|| format!("--ea-load expects FILE@ADDR, found `{text}`"))?;
                let address = number(address)
                    .ok_or_else(|| format!("--ea-load: `{address}` is not an address"))?;
                self.ea_loads.push((PathBuf::from(file), address));
            }
            "--ea-dump" => {
                let text = value()?;
                let parsed = text
                    .split_once(':')
                    .and_then(|(address, len)| Some((number(address)?, number(len)?)));
                let (address, len) =
                    parsed.ok_or_else(|| format!("--ea-dump expects ADDR:LEN, found `{text}`"))?;
                self.ea_dumps.push((address, len));
            }
            "--signal1" => self.signal1 = Some(word(name, &value()?)?),
            "--signal2" => self.signal2 = Some(word(name, &value()?)?),
            "--in-mbox" => self.in_mbox.push(word(name, &value()?)?),
            "--dma-issue" => self.dma_timing.issue_cycles = word(name, &value()?)?,
            "--dma-latency" => self.dma_timing.latency_cycles = word(name, &value()?)?,
            "--dma-bandwidth" => {
                let text = value()?;
                self.dma_timing.bytes_per_cycle = word(name, &text)
                    .ok()
                    .filter(|bytes| (1..=128).contains(bytes))
                    .ok_or_else(|| {
                        format!("--dma-bandwidth expects 1 to 128 bytes per cycle, found `{text}`")
                    })?;
            }
            "--timebase-ratio" => {
                let text = value()?;
                self.timebase_ratio =
                    Some(word(name, &text).ok().filter(|r| *r > 0).ok_or_else(|| {
                        format!(
                            "--timebase-ratio expects a number of cycles above 0, found `{text}`"
                        )
                    })?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
