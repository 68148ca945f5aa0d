//! The state each runtime gives a program at its start (after its ELF segments are loaded).

use crate::spu::exec::{Quadword, SpuState};

/// `$1` at the start, in both runtimes: the top of the local store less one quadword, in the
/// preferred slot (lv2's thread start and libspe2's start code both leave it so).
pub const START_STACK_POINTER: u32 = 0x3_FFF0;

/// A 64-bit value in a register's preferred doubleword (bytes 0..8), bytes 8..16 zero.
pub fn preferred_doubleword(value: u64) -> Quadword {
    Quadword::from_doublewords([value, 0])
}

/// Registers zero but `$1`, interrupts disabled, the PC at the NPC: the common start.
fn clear_registers(spu: &mut SpuState, npc: u32) {
    for register in 0..128 {
        spu.set_register(register, Quadword::ZERO);
    }
    spu.set_register(1, Quadword::from_preferred_word(START_STACK_POINTER));
    spu.set_npc(npc);
}

/// A PS3 SPU thread's start (`sys_spu_thread_group_start`): `$3`..`$6` the thread's four
/// arguments in their preferred doublewords, `$1` the stack, every other register zero, and
/// the NPC (`npc` bit 0: interrupts enabled; the image's entry point otherwise).
pub fn start_lv2_thread(spu: &mut SpuState, npc: u32, arguments: [u64; 4]) {
    clear_registers(spu, npc);
    for (register, argument) in (3u8..).zip(arguments) {
        spu.set_register(register, preferred_doubleword(argument));
    }
}

/// A PS3 raw SPU's start (`sys_raw_spu_load` and a write of the NPC): registers as the
/// thread's, without arguments.
pub fn start_raw_spu(spu: &mut SpuState, npc: u32) {
    clear_registers(spu, npc);
}

/// What libspe2 hands an SPE program (`spe_context_run`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LibspeStart {
    /// `$3`: the SPE context's address on the PPE (the program's "speid").
    pub spe_id: u64,
    /// `$4`: `argp`.
    pub argp: u64,
    /// `$5`: `envp`.
    pub envp: u64,
    /// `$6`: the effective address of the local store as the PPE maps it.
    pub local_store_ea: u64,
}

/// Where libspe2 writes its start code: the last 128 bytes of the local store.
pub const LIBSPE_START_CODE: u32 = 0x3_FF80;
/// The start code's first instruction: the NPC libspe2 gives the SPU.
pub const LIBSPE_START_NPC: u32 = 0x3_FFD0;

/// libspe2's start (`spebase/regs.c`): it writes the register values and the entry point as
/// five quadwords at 0x3ff80, eight instructions at 0x3ffd0 that load them and branch to the
/// entry with `bisl $1` (which leaves `$1` = 0x3fff0, the stack) and `il $2,0`, and a zero
/// back chain at 0x3fff0; the SPU starts at that code. The program then finds `$3`..`$6` =
/// [`LibspeStart`]'s four values in their preferred doublewords, every other register zero.
pub fn start_libspe(spu: &mut SpuState, entry: u32, start: LibspeStart) {
    clear_registers(spu, LIBSPE_START_NPC);
    spu.set_register(1, Quadword::ZERO);
    let values = [
        preferred_doubleword(start.spe_id),
        preferred_doubleword(start.argp),
        preferred_doubleword(start.envp),
        preferred_doubleword(start.local_store_ea),
        Quadword::from_preferred_word(entry),
    ];
    let local_store = spu.local_store_mut();
    for (index, value) in values.into_iter().enumerate() {
        local_store.store_quadword(LIBSPE_START_CODE + 16 * index as u32, value);
    }
    // lqr $3..$6 and $1 from the quadwords above (each relative to its own address), an lnop
    // to keep the pairs aligned, il $2,0, bisl $1,$1; then 16 zero bytes of back chain.
    let code = [
        0x33ff_f603u32,
        0x33ff_f784,
        0x33ff_f905,
        0x0020_0000,
        0x33ff_fa06,
        0x33ff_fb81,
        0x4080_0002,
        0x3520_0081,
    ];
    for (index, word) in code.into_iter().enumerate() {
        local_store.store_word(LIBSPE_START_NPC + 4 * index as u32, word);
    }
    local_store.store_quadword(START_STACK_POINTER, Quadword::ZERO);
}
