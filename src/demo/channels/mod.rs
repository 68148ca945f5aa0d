//! SPU-to-SPU channels across cores: [`channel_pair`], a producer SPU's outbound mailbox
//! carried to a consumer SPU's inbound mailbox on another core through a queue the two cores
//! share.

pub mod channel_pair;
