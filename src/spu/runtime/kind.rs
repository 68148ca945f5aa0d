//! Which runtime a program runs under: named ([`RuntimeKind`]), detected from its ELF file,
//! and chosen at run time ([`Runtime`]).

use super::error::RuntimeError;
use super::libspe::LibspeRuntime;
use super::lv2::Lv2Runtime;
use super::output::ProgramOutput;
use super::raw::RawRuntime;
use super::service::{Serviced, SpuRuntime};
use crate::spu::elf::SpuElf;
use crate::spu::exec::{RunEnd, SpuState};

/// Which runtime a program runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RuntimeKind {
    /// None: a plain program; every stop ends it.
    None,
    /// A PS3 SPU thread under lv2.
    Lv2,
    /// A PS3 raw SPU.
    Raw,
    /// Linux's libspe2.
    Libspe,
}

impl RuntimeKind {
    /// `none`, `lv2`, `raw` or `libspe`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => RuntimeKind::None,
            "lv2" => RuntimeKind::Lv2,
            "raw" => RuntimeKind::Raw,
            "libspe" => RuntimeKind::Libspe,
            _ => return None,
        })
    }

    /// The name [`from_name`](Self::from_name) takes.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeKind::None => "none",
            RuntimeKind::Lv2 => "lv2",
            RuntimeKind::Raw => "raw",
            RuntimeKind::Libspe => "libspe",
        }
    }

    /// The runtime an executable was built for, as far as the file says: newlib's call into
    /// the PPE (`__send_to_ppe`) or its EA-space symbol means libspe2; the PS3 SDK's own
    /// sections or parameter block ([`SpuElf::is_ps3_sdk_build`]) mean lv2 (a raw SPU image
    /// looks the same: say `raw` to run one); otherwise none. The `SPUNAME` note says nothing
    /// here: every spu-ld writes it.
    pub fn detect(elf: &SpuElf<'_>) -> Self {
        let symbols = elf.symbols();
        if symbols.address_of("__send_to_ppe").is_some()
            || symbols.address_of("__ea_local_store").is_some()
        {
            return RuntimeKind::Libspe;
        }
        if elf.is_ps3_sdk_build() {
            return RuntimeKind::Lv2;
        }
        RuntimeKind::None
    }
}

/// One of the runtimes, chosen at run time.
// The lv2 variant holds its event queues in place (about 2 KiB): a heap-free crate cannot box
// it, and a runtime lives as long as its program.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Runtime {
    /// A PS3 SPU thread.
    Lv2(Lv2Runtime),
    /// A PS3 raw SPU.
    Raw(RawRuntime),
    /// libspe2.
    Libspe(LibspeRuntime),
}

impl Runtime {
    /// The runtime of `kind` in its default state; `None` for [`RuntimeKind::None`].
    pub fn of_kind(kind: RuntimeKind) -> Option<Self> {
        match kind {
            RuntimeKind::None => None,
            RuntimeKind::Lv2 => Some(Runtime::Lv2(Lv2Runtime::new())),
            RuntimeKind::Raw => Some(Runtime::Raw(RawRuntime)),
            RuntimeKind::Libspe => Some(Runtime::Libspe(LibspeRuntime)),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> RuntimeKind {
        match self {
            Runtime::Lv2(_) => RuntimeKind::Lv2,
            Runtime::Raw(_) => RuntimeKind::Raw,
            Runtime::Libspe(_) => RuntimeKind::Libspe,
        }
    }
}

impl SpuRuntime for Runtime {
    fn service(
        &mut self,
        spu: &mut SpuState,
        end: RunEnd,
        output: &mut dyn ProgramOutput,
    ) -> Result<Serviced, RuntimeError> {
        match self {
            Runtime::Lv2(runtime) => runtime.service(spu, end, output),
            Runtime::Raw(runtime) => runtime.service(spu, end, output),
            Runtime::Libspe(runtime) => runtime.service(spu, end, output),
        }
    }
}
