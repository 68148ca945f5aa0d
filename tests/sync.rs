//! One test binary for the locks' integration tests: each file below is a module of it (why one
//! binary per area: the README's "Tests"). Each file declares the support modules it uses itself,
//! so a support module two files use is compiled twice.
#![allow(clippy::duplicate_mod)]

#[path = "sync_irq_mutex.rs"]
mod sync_irq_mutex;
#[path = "sync_spin_mutex.rs"]
mod sync_spin_mutex;
