//! The SPU's channel interface beyond the mailboxes: the memory flow controller (MFC) with
//! DMA, lists, atomics and tag groups, the event facility, the decrementer and signal
//! notification, as the Cell Broadband Engine Architecture (CBEA) defines them.
//!
//! [`Mfc`] is one SPU's part; the SPU's channels (`spu::exec::Channels`) hold one and route
//! channels 0..=27 to it. Main memory is [`main_memory`](crate::spu::main_memory), shared by
//! all SPUs. `docs/spu-mfc.md` describes the model, its timing and its sources.
//!
//! | file | part |
//! |---|---|
//! | `command.rs` | `MFC_Cmd` opcodes |
//! | `transfer.rs` | the size, alignment and range rules; list elements |
//! | `queue.rs` | the 16-entry command queue and its ordering (fence, barrier) |
//! | `controller.rs` | the MFC and its command, tag, list-stall and atomic channels |
//! | `event_channels.rs` | its decrementer, event and signal channels |
//! | `service.rs` | starting and completing commands, the events that follow |
//! | `data.rs` | moving the data, walking lists |
//! | `timing.rs` | when requests go out and data arrives (pipeline mode) |
//! | `tags.rs`, `events.rs`, `decrementer.rs` | tag groups, events, decrementer |
//! | `record.rs` | the DMA probe point's payload and the statistics |
//! | `error.rs` | DMA errors |
//! | `port.rs` | the memory an MFC reaches, the local store it moves data in and out of |
//! | `quiet_port.rs` | a memo of the cycles no transfer uses the local-store port |
//! | `held.rs` | an optional value that is all-zero bits when empty (a reset SPU must be) |

mod command;
mod controller;
mod data;
mod decrementer;
mod error;
mod event_channels;
mod events;
mod held;
mod port;
mod queue;
mod quiet_port;
mod record;
mod service;
mod tags;
mod timing;
mod transfer;

pub use command::{Command, CommandKind, Ordering, command_name};
pub use controller::{
    ATOMIC_GETLLAR_DONE, ATOMIC_PUTLLC_FAILED, ATOMIC_PUTLLUC_DONE, CommandParameters,
    CommandWrite, Mfc,
};
pub use decrementer::{DEFAULT_CYCLES_PER_TICK, Decrementer};
pub use error::{DmaErrorKind, DmaFault};
pub use events::{
    EVENT_ALL, EVENT_DECREMENTER, EVENT_IN_MBOX, EVENT_LIST_STALL, EVENT_MULTISOURCE_SYNC,
    EVENT_OUT_INTR_MBOX_AVAILABLE, EVENT_OUT_MBOX_AVAILABLE, EVENT_PRIVILEGED_ATTENTION,
    EVENT_QUEUE_VACANCY, EVENT_RESERVATION_LOST, EVENT_SIGNAL_1, EVENT_SIGNAL_2, EVENT_TAG_GROUP,
    Events,
};
pub use port::{LocalStoreBytes, MemoryPort};
pub use queue::COMMAND_QUEUE_DEPTH;
pub use record::{DmaEvent, DmaStats};
pub use tags::{TagGroups, TagUpdate};
pub use timing::{DmaTiming, Schedule, lines};
pub use transfer::{
    LIST_ELEMENT_BYTES, LOCAL_STORE_BYTES, ListElement, MAX_TRANSFER, check_list, check_signal,
    check_transfer,
};
