//! lv2's SPU event queues as a thread sees them: queues bound to SPU queue numbers, each
//! holding the events the host sent and the thread has not received.

use heapless::Deque;

/// Queues a thread can have bound at once (lv2 allows 32; this bound keeps the runtime small).
pub const MAX_BOUND_QUEUES: usize = 8;
/// Events one queue holds (lv2's queues take up to 127; a host feeding a thread rarely needs
/// more than a few in flight).
pub const QUEUE_CAPACITY: usize = 16;

/// An event's three data words as `sys_spu_thread_receive_event` returns them.
pub type EventData = [u32; 3];

/// The host could not bind a queue or send an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum QueueError {
    /// That SPU queue number is bound already.
    AlreadyBound {
        /// The SPU queue number.
        number: u32,
    },
    /// [`MAX_BOUND_QUEUES`] queues are bound already.
    TooManyQueues,
    /// No queue is bound to that number.
    NotBound {
        /// The SPU queue number.
        number: u32,
    },
    /// The queue holds [`QUEUE_CAPACITY`] events already (lv2 answers `EBUSY`).
    Full {
        /// The SPU queue number.
        number: u32,
    },
}

impl core::fmt::Display for QueueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            QueueError::AlreadyBound { number } => {
                write!(f, "SPU queue number {number} is bound already")
            }
            QueueError::TooManyQueues => {
                write!(f, "at most {MAX_BOUND_QUEUES} event queues can be bound")
            }
            QueueError::NotBound { number } => {
                write!(f, "no queue is bound to SPU queue number {number}")
            }
            QueueError::Full { number } => write!(
                f,
                "the queue bound to SPU queue number {number} holds {QUEUE_CAPACITY} events already"
            ),
        }
    }
}

impl core::error::Error for QueueError {}

#[derive(Clone, Debug)]
struct BoundQueue {
    number: u32,
    events: Deque<EventData, QUEUE_CAPACITY>,
}

/// The queues bound to one thread.
#[derive(Clone, Debug, Default)]
pub struct EventQueues {
    queues: heapless::Vec<BoundQueue, MAX_BOUND_QUEUES>,
}

impl EventQueues {
    /// No queue bound.
    pub const fn new() -> Self {
        EventQueues {
            queues: heapless::Vec::new(),
        }
    }

    /// Binds an empty queue to SPU queue number `number` (`sys_spu_thread_bind_queue`).
    pub fn bind(&mut self, number: u32) -> Result<(), QueueError> {
        if self.queues.iter().any(|queue| queue.number == number) {
            return Err(QueueError::AlreadyBound { number });
        }
        self.queues
            .push(BoundQueue {
                number,
                events: Deque::new(),
            })
            .map_err(|_| QueueError::TooManyQueues)
    }

    /// Sends an event to the queue bound to `number` (`sys_event_port_send` on the PPU).
    pub fn send(&mut self, number: u32, data: EventData) -> Result<(), QueueError> {
        let queue = self
            .queues
            .iter_mut()
            .find(|queue| queue.number == number)
            .ok_or(QueueError::NotBound { number })?;
        queue
            .events
            .push_back(data)
            .map_err(|_| QueueError::Full { number })
    }

    /// What a receive on `number` finds: `None` if no queue is bound to it, else the oldest
    /// event (taken) if there is one.
    pub(crate) fn receive(&mut self, number: u32) -> Option<Option<EventData>> {
        let queue = self
            .queues
            .iter_mut()
            .find(|queue| queue.number == number)?;
        Some(queue.events.pop_front())
    }

    /// Whether a queue is bound to `number`.
    pub fn is_bound(&self, number: u32) -> bool {
        self.queues.iter().any(|queue| queue.number == number)
    }
}
