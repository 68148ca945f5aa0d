//! The PMU driver, probe points and listeners, one SPU in instruction mode and in pipeline
//! mode.
#![no_std]
#![no_main]

use pmprobe_embed_size::{pmu, probes, spu_instruction, spu_pipeline};

pmprobe_embed_size::firmware!(pmu() ^ probes() ^ spu_instruction() ^ spu_pipeline());
