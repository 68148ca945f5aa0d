//! A stream as a probe listener: attach a `MutListener<StreamWriter>` to any point of memory
//! accesses (an SPU's `DataAccess` or `DmaLines`, the debug monitor's watchpoint hits) or of DMA
//! transfers (`Dma`), and each notification becomes an event at its own time.

use crate::probe::ListenerMut;
use crate::probe::listeners::MemAccess;
use crate::spu::mfc::DmaEvent;

use super::stream::{PacketSink, StreamWriter};

/// Each access a `mem_*` event at its `tick` (a refused one is counted by the stream).
impl<S: PacketSink> ListenerMut<MemAccess> for StreamWriter<'_, S> {
    fn notify_mut(&mut self, access: &MemAccess) {
        let _ = self.mem_access(access);
    }

    fn notify_mut_all(&mut self, accesses: &[MemAccess]) {
        for access in accesses {
            let _ = self.mem_access(access);
        }
    }
}

/// Each transfer a `dma` or `dma_list_element` event at its completion cycle.
impl<S: PacketSink> ListenerMut<DmaEvent> for StreamWriter<'_, S> {
    fn notify_mut(&mut self, event: &DmaEvent) {
        let _ = self.dma(event);
    }
}
