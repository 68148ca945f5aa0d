//! Everything of `spu_pipeline`, and the assembler.
#![no_std]
#![no_main]

use pmprobe_embed_size::{assembler, pmu, probes, spu_instruction, spu_pipeline};

pmprobe_embed_size::firmware!(pmu() ^ probes() ^ spu_instruction() ^ spu_pipeline() ^ assembler());
