//! The sampler as the interrupt handler drives it: stack walk, buffer and drop count, skid
//! statistics, the probe point, the reload value.
use std::cell::Cell;

use pmprobe::probe::Listener;
use pmprobe::sampling::{
    EncodedBuffer, InterruptedContext, Sample, SampleBuffer, SampleSource, SampleStore, Sampler,
    SkidHistogram, SliceMemory, StackBounds, WalkEnd,
};

struct Counted(Cell<u64>, Cell<u64>);
impl Listener<Sample> for Counted {
    fn notify(&self, sample: &Sample) {
        self.0.set(self.0.get() + 1);
        self.1.set(sample.pc);
    }
}

#[test]
fn samples_fill_the_buffer_then_count_as_dropped_and_listeners_see_all() {
    let words = [0x2010, 0x4000_0100, 0, 0x4000_0200];
    let memory = SliceMemory {
        base: 0x2000,
        words: &words,
    };
    let bounds = StackBounds {
        low: 0x2000,
        high: 0x2020,
    };
    let listener = Counted(Cell::new(0), Cell::new(0));
    let mut sampler: Sampler<'_, SampleBuffer<4>> =
        Sampler::new(SampleSource::GenericTimer, 0, 62_500, SampleBuffer::new());
    sampler.point().add_object(&listener).unwrap();
    for i in 0..10u64 {
        let kept = sampler.take_sample(
            InterruptedContext {
                pc: 0x4000_0000 + 4 * i,
                fp: 0x2000,
                lr: 0x4000_0100,
                counter: i,
            },
            bounds,
            &memory,
        );
        assert_eq!(kept, i < 4);
    }
    assert_eq!(sampler.store().len(), 4);
    assert_eq!(sampler.store().dropped(), 6);
    assert_eq!(sampler.header().dropped, 6);
    assert_eq!(sampler.header().source, SampleSource::GenericTimer);
    assert_eq!(listener.0.get(), 10);
    assert_eq!(listener.1.get(), 0x4000_0000 + 4 * 9);
    let first = sampler.store().samples()[0];
    assert_eq!(first.frames(), &[0x4000_0100, 0x4000_0200]);
    assert_eq!(first.walk_end, WalkEnd::Complete);
    assert_eq!(
        first.lr, 0x4000_0100,
        "the interrupted x30 travels with the sample"
    );
    assert_eq!(sampler.skid().count(), 10);
    assert_eq!((sampler.skid().min(), sampler.skid().max()), (0, 9));
    sampler.clear();
    assert!(sampler.store().is_empty());
    assert_eq!(sampler.skid().count(), 0);
    assert_eq!(sampler.store().dropped(), 0);

    sampler.set_max_depth(1);
    sampler.take_sample(
        InterruptedContext {
            pc: 1,
            fp: 0x2000,
            lr: 0,
            counter: 0,
        },
        bounds,
        &memory,
    );
    assert_eq!(sampler.store().samples()[0].frames(), &[0x4000_0100]);
    assert_eq!(sampler.store().samples()[0].walk_end, WalkEnd::DepthLimit);
}

#[test]
fn the_reload_value_wraps_through_zero_after_one_period() {
    let sampler: Sampler<'_, SampleBuffer<1>> =
        Sampler::new(SampleSource::PmuOverflow, 0x08, 10_000, SampleBuffer::new());
    let reload = sampler.reload_value(32);
    assert_eq!(reload, (1u64 << 32) - 10_000);
    assert_eq!((reload + 10_000) & 0xFFFF_FFFF, 0);
    assert_eq!(sampler.reload_value(64), 10_000u64.wrapping_neg());
    let whole: Sampler<'_, SampleBuffer<1>> = Sampler::new(
        SampleSource::PmuOverflow,
        0x08,
        1 << 40,
        SampleBuffer::new(),
    );
    assert_eq!(
        whole.reload_value(32),
        1,
        "a period past the counter is clamped"
    );
    let zero: Sampler<'_, SampleBuffer<1>> =
        Sampler::new(SampleSource::PmuOverflow, 0x08, 0, SampleBuffer::new());
    assert_eq!(
        zero.reload_value(32),
        0xFFFF_FFFF,
        "a period of 0 is one event"
    );
}

#[test]
fn skid_histogram_bins_by_powers_of_two() {
    let mut histogram = SkidHistogram::new();
    for skid in [0, 1, 2, 3, 4, 7, 8, 1000, u64::MAX] {
        histogram.record(skid);
    }
    let bins = histogram.bins();
    assert_eq!(
        (bins[0], bins[1], bins[2], bins[3], bins[4]),
        (1, 1, 2, 2, 1)
    );
    assert_eq!(bins[10], 1, "1000 is in 512..=1023");
    assert_eq!(bins[64], 1);
    assert_eq!(SkidHistogram::bin_start(10), 512);
    assert_eq!(histogram.min(), 0);
    assert_eq!(histogram.max(), u64::MAX);
    assert_eq!(histogram.count(), 9);
    assert_eq!(SkidHistogram::new().mean(), 0);
}

#[test]
fn a_zero_capacity_buffer_drops_everything_and_says_so() {
    let mut buffer: SampleBuffer<0> = SampleBuffer::new();
    assert!(!buffer.push(Sample::new(1, 0)));
    assert_eq!(buffer.dropped(), 1);
}

#[test]
fn a_sampler_with_sync_listeners_can_be_shared_with_an_interrupt_handler() {
    use pmprobe::sync::IrqMutex;
    use std::cell::RefCell;
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Seen(AtomicU64);
    impl Listener<Sample> for Seen {
        fn notify(&self, sample: &Sample) {
            self.0.store(sample.pc, Ordering::Relaxed);
        }
    }
    static SEEN: Seen = Seen(AtomicU64::new(0));
    type IrqSampler = Sampler<'static, EncodedBuffer<1024>, 2, dyn Listener<Sample> + Sync>;
    // Compiles only if the sampler may move into an interrupt handler's context.
    fn assert_send<T: Send>() {}
    assert_send::<IrqSampler>();
    let shared = IrqMutex::new(RefCell::new(IrqSampler::new(
        SampleSource::PmuOverflow,
        0x11,
        1000,
        EncodedBuffer::new(),
    )));
    shared.lock(|sampler| sampler.borrow().point().add_object(&SEEN).unwrap());
    shared.lock(|sampler| sampler.borrow_mut().record(Sample::new(0x4008_0040, 2)));
    assert_eq!(SEEN.0.load(Ordering::Relaxed), 0x4008_0040);
    assert_eq!(shared.lock(|sampler| sampler.borrow().store().kept()), 1);
}

#[test]
fn skid_histograms_of_several_cores_merge() {
    let (mut a, mut b, mut both) = (
        SkidHistogram::new(),
        SkidHistogram::new(),
        SkidHistogram::new(),
    );
    for skid in [5, 9, 100] {
        a.record(skid);
        both.record(skid);
    }
    for skid in [2, 7000] {
        b.record(skid);
        both.record(skid);
    }
    let mut merged = SkidHistogram::new();
    merged.merge(&a);
    merged.merge(&SkidHistogram::new());
    merged.merge(&b);
    assert_eq!(merged, both);
    assert_eq!((merged.min(), merged.max(), merged.count()), (2, 7000, 5));
}
