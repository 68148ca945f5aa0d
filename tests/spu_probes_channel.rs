//! `SpuObserver::channel`: every completed channel instruction, with its value, in program
//! order, the same in both modes. The expected sequence is read off the kernel's text
//! (`spu/programs/races/load_get.s`, variant 0: the `dma` macro's five parameter writes and
//! the command, then the `wait` macro's mask, update request and status read).

mod spu_dma_check_support;

use std::cell::RefCell;

use pmprobe::spu::exec::{
    ChannelOperation, MFC_CMD, MFC_EAH, MFC_EAL, MFC_LSA, MFC_RD_TAG_STAT, MFC_SIZE, MFC_TAG_ID,
    MFC_WR_TAG_MASK, MFC_WR_TAG_UPDATE,
};
use pmprobe::spu::probes::{ChannelEvent, SpuObserver};
use pmprobe::spu::runtime::start::preferred_doubleword;
use pmprobe::spu::unit::SpuUnit;
use spu_dma_check_support::*;

/// (PC, operation, channel, value) of each event, and the MFC's parameters at each command.
#[derive(Default)]
struct Channels {
    events: RefCell<Vec<(u32, ChannelOperation, u8, u32)>>,
    commands: RefCell<Vec<(u32, u64, u32, u8)>>,
}

impl SpuObserver for Channels {
    fn channel(&self, event: &ChannelEvent<'_>) {
        self.events
            .borrow_mut()
            .push((event.pc, event.operation, event.channel, event.value));
        if event.channel == MFC_CMD {
            let p = event.spu.mfc().parameters();
            self.commands
                .borrow_mut()
                .push((p.lsa, p.ea, p.size, p.tag));
        }
    }
}

#[test]
fn both_modes_report_each_channel_access_with_its_value_in_program_order() {
    let (image, program) = assembled("load_get.s");
    let get = program.symbol("get_block").unwrap();
    let write = ChannelOperation::Write;
    // The `dma 0x40,0x4000,0x10000,256,3` macro writes a channel every other instruction
    // (ila/il/iohl set $2 before each); `wait 8` follows at +0x3c (ceqi, brnz, ceqi, brnz).
    let expected = vec![
        (get + 0x04, write, MFC_LSA, 0x4000),
        (get + 0x0c, write, MFC_EAH, 0),
        (get + 0x18, write, MFC_EAL, 0x10000),
        (get + 0x20, write, MFC_SIZE, 256),
        (get + 0x28, write, MFC_TAG_ID, 3),
        (get + 0x30, write, MFC_CMD, 0x40),
        (get + 0x4c, write, MFC_WR_TAG_MASK, 8),
        (get + 0x54, write, MFC_WR_TAG_UPDATE, 2),
        (get + 0x58, ChannelOperation::Read, MFC_RD_TAG_STAT, 8),
    ];
    for mode in MODES {
        let mut unit = Box::new(SpuUnit::new(0));
        unit.load_program(&image, program.entry).unwrap();
        let memory = Box::leak(Box::new(pmprobe::spu::main_memory::MainMemory::new(vec![
            0u8;
            1 << 20
        ])));
        unit.attach_main_memory(memory);
        unit.arch_mut().set_register(3, preferred_doubleword(0));
        unit.set_mode(mode);
        let channels = Channels::default();
        run_observed(&mut unit, &channels);
        assert_eq!(channels.events.take(), expected, "{mode:?}");
        assert_eq!(channels.commands.take(), [(0x4000, 0x10000, 256, 3)]);
    }
}
