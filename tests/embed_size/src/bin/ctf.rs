//! The PMU driver, probe points and listeners, and a CTF stream of the accesses with its
//! metadata.
#![no_std]
#![no_main]

use pmprobe_embed_size::{ctf, pmu, probes};

pmprobe_embed_size::firmware!(pmu() ^ probes() ^ ctf());
