//! One test binary for the SPU model's integration tests: each file below is a module of it (why
//! one binary per area: the README's "Tests"). Each file declares the support modules it uses
//! itself, so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "spu_asm_link.rs"]
mod spu_asm_link;
#[path = "spu_bench_sha256d.rs"]
mod spu_bench_sha256d;
#[path = "spu_dma_check.rs"]
mod spu_dma_check;
#[path = "spu_dma_check_demo.rs"]
mod spu_dma_check_demo;
#[path = "spu_dma_check_limits.rs"]
mod spu_dma_check_limits;
#[path = "spu_dma_check_puts.rs"]
mod spu_dma_check_puts;
#[path = "spu_elf_fixtures.rs"]
mod spu_elf_fixtures;
#[path = "spu_elf_reader.rs"]
mod spu_elf_reader;
#[path = "spu_elf_roundtrip.rs"]
mod spu_elf_roundtrip;
#[path = "spu_exec_batched_observers.rs"]
mod spu_exec_batched_observers;
#[path = "spu_exec_control.rs"]
mod spu_exec_control;
#[path = "spu_exec_every_opcode.rs"]
mod spu_exec_every_opcode;
#[path = "spu_exec_float.rs"]
mod spu_exec_float;
#[path = "spu_exec_integer.rs"]
mod spu_exec_integer;
#[path = "spu_exec_programs.rs"]
mod spu_exec_programs;
#[path = "spu_exec_quiet_run.rs"]
mod spu_exec_quiet_run;
#[path = "spu_exec_shift.rs"]
mod spu_exec_shift;
#[path = "spu_footprint.rs"]
mod spu_footprint;
#[path = "spu_mfc_corner_cases.rs"]
mod spu_mfc_corner_cases;
#[path = "spu_mfc_events.rs"]
mod spu_mfc_events;
#[path = "spu_mfc_kernels.rs"]
mod spu_mfc_kernels;
#[path = "spu_mfc_observe.rs"]
mod spu_mfc_observe;
#[path = "spu_mfc_sync.rs"]
mod spu_mfc_sync;
#[path = "spu_mfc_timing.rs"]
mod spu_mfc_timing;
#[path = "spu_mfc_transfers.rs"]
mod spu_mfc_transfers;
#[path = "spu_pipeline_config.rs"]
mod spu_pipeline_config;
#[path = "spu_pipeline_fast_forward.rs"]
mod spu_pipeline_fast_forward;
#[path = "spu_pipeline_fetch_real.rs"]
mod spu_pipeline_fetch_real;
#[path = "spu_pipeline_latency.rs"]
mod spu_pipeline_latency;
#[path = "spu_pipeline_modes.rs"]
mod spu_pipeline_modes;
#[path = "spu_pipeline_probes.rs"]
mod spu_pipeline_probes;
#[path = "spu_pipeline_replay.rs"]
mod spu_pipeline_replay;
#[path = "spu_pipeline_stall_skip.rs"]
mod spu_pipeline_stall_skip;
#[path = "spu_pipeline_stats.rs"]
mod spu_pipeline_stats;
#[path = "spu_pipeline_timing.rs"]
mod spu_pipeline_timing;
#[path = "spu_pipeline_trace.rs"]
mod spu_pipeline_trace;
#[path = "spu_probes_channel.rs"]
mod spu_probes_channel;
#[path = "spu_runtime.rs"]
mod spu_runtime;
#[path = "spu_runtime_printf.rs"]
mod spu_runtime_printf;
#[path = "spu_topdown.rs"]
mod spu_topdown;
