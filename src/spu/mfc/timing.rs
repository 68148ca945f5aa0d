//! DMA timing in pipeline mode: when each command's bus requests go out, when its data
//! arrives, and which cycles its data occupies the local-store port.
//!
//! The model, per SPU: a transfer is cut into bus requests of one 128-byte EA line each (a
//! partial line at either end is still one request: the bus moves lines). The MFC starts a
//! command [`issue_cycles`](DmaTiming::issue_cycles) after the command may start (it is in the
//! queue and its ordering allows it), then sends one request every `128 / bytes_per_cycle`
//! cycles, back to back with the requests of the commands before it; each request's data
//! arrives [`latency_cycles`](DmaTiming::latency_cycles) after it went out. A command
//! completes when its last request's data has arrived. Requests of several commands are in
//! flight at once, so a queue of transfers reaches the full bandwidth while one transfer at a
//! time pays the latency each time.
//!
//! Each request touches the local store in one cycle (a whole 128-byte line, the port's
//! width): a put reads its line when the request goes out, a get writes it when its data
//! arrives. The SPU's local store gives DMA the first claim on such a cycle.
//!
//! Defaults ([`DmaTiming::cell`]), for a 3.2 GHz Cell (`docs/spu-mfc.md` has the sources):
//! 8 bytes per cycle in each direction (25.6 GB/s per SPE: the EIB port moves 16 bytes per bus
//! cycle at half the core clock); 12 cycles to start a command (an SPE issues a DMA in under
//! 4 ns, Kistler, Perrone and Petrini, IEEE Micro 2006); 288 cycles of latency, so a single
//! 128-byte get completes in 300 cycles, 94 ns (the same paper: under 100 ns).

use crate::spu::main_memory::LINE_BYTES;

/// DMA timing parameters of one SPU's MFC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaTiming {
    /// Cycles from the moment a command may start to its first bus request.
    pub issue_cycles: u32,
    /// Cycles from a request going out to its data arriving.
    pub latency_cycles: u32,
    /// Bytes per cycle in each direction (the request rate is one line per
    /// `128 / bytes_per_cycle` cycles). At least 1.
    pub bytes_per_cycle: u32,
}

impl DmaTiming {
    /// The defaults for a 3.2 GHz Cell (see the module documentation).
    pub const fn cell() -> Self {
        DmaTiming {
            issue_cycles: 12,
            latency_cycles: 288,
            bytes_per_cycle: 8,
        }
    }

    /// Cycles between two requests (at least 1).
    pub fn cycles_per_line(&self) -> u64 {
        LINE_BYTES.div_ceil(u64::from(self.bytes_per_cycle.max(1)))
    }
}

impl Default for DmaTiming {
    fn default() -> Self {
        Self::cell()
    }
}

/// Bus requests (128-byte EA lines touched) of a transfer of `size` bytes at `ea`.
pub fn lines(ea: u64, size: u32) -> u64 {
    if size == 0 {
        return 0;
    }
    let last = ea.saturating_add(u64::from(size) - 1);
    last / LINE_BYTES - ea / LINE_BYTES + 1
}

/// When one scheduled transfer's requests go out and its data arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Cycle of the first request.
    pub first_request: u64,
    /// Requests (lines).
    pub lines: u64,
    /// Cycles between requests.
    pub spacing: u64,
    /// Cycles from a request to its data.
    pub latency: u64,
    /// The data moves into the local store (a get) rather than out of it.
    pub into_local_store: bool,
}

impl Schedule {
    /// The cycle the last request's data arrives: the transfer is complete.
    pub fn done(&self) -> u64 {
        if self.lines == 0 {
            return self.first_request;
        }
        self.first_request + (self.lines - 1) * self.spacing + self.latency
    }

    /// The cycle after the last request went out (the next transfer's first request may go
    /// out then).
    pub fn requests_end(&self) -> u64 {
        self.first_request + self.lines * self.spacing
    }

    /// Whether the transfer uses the local-store port in `cycle`.
    pub fn uses_local_store(&self, cycle: u64) -> bool {
        self.next_local_store_use(cycle) == Some(cycle)
    }

    /// The first cycle at or after `cycle` in which it uses the local-store port.
    pub fn next_local_store_use(&self, cycle: u64) -> Option<u64> {
        let first = if self.into_local_store {
            self.first_request + self.latency
        } else {
            self.first_request
        };
        if self.lines == 0 || self.spacing == 0 {
            return None;
        }
        let last = first + (self.lines - 1) * self.spacing;
        if cycle <= first {
            return Some(first);
        }
        if cycle > last {
            return None;
        }
        Some(first + (cycle - first).div_ceil(self.spacing) * self.spacing)
    }
}

#[cfg(test)]
mod tests {
    use super::Schedule;

    /// The rule of the module documentation, written out: a put reads a line as each request
    /// goes out (`first_request + k * spacing`), a get writes it as its data arrives
    /// (`latency` later).
    #[test]
    fn port_cycles_follow_the_requests_and_the_latency() {
        let put = Schedule {
            first_request: 100,
            lines: 3,
            spacing: 16,
            latency: 288,
            into_local_store: false,
        };
        let get = Schedule {
            into_local_store: true,
            ..put
        };
        for (schedule, uses) in [(put, [100, 116, 132]), (get, [388, 404, 420])] {
            for cycle in 0..600 {
                assert_eq!(
                    schedule.uses_local_store(cycle),
                    uses.contains(&cycle),
                    "{cycle}"
                );
                let next = uses.iter().copied().find(|&at| at >= cycle);
                assert_eq!(schedule.next_local_store_use(cycle), next, "{cycle}");
            }
        }
        let single = Schedule { lines: 1, ..get };
        assert!(single.uses_local_store(388) && !single.uses_local_store(404));
        assert_eq!(single.next_local_store_use(389), None);
    }
}
