//! The glue every configuration has (the entry symbol and the panic handler), no pmprobe.
#![no_std]
#![no_main]

use pmprobe_embed_size as _;

pmprobe_embed_size::firmware!(0u64);
