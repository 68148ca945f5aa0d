//! Section 6's chart: the stack distance of SPU1's local-store data accesses, as its listener
//! recorded them, checked against the PMU's count of the same accesses.

use crate::demo::shared::checks::Checks;
use crate::demo::shared::output::heading;
use crate::demo::spu_runs::plan::{DISTANCE_LINE_BYTES, Distances};

pub fn print_stack_distance(distances: &Distances, accesses: u64, checks: &mut Checks) {
    heading(format_args!(
        "Stack distance of SPU1's LS data accesses ({DISTANCE_LINE_BYTES}-byte lines, log2 bins)"
    ));
    let recorded = distances.with(|calculator| {
        super::chart::print(calculator);
        (
            calculator.reads().total() + calculator.writes().total(),
            calculator.evictions(),
        )
    });
    let (recorded, evictions) = recorded.unwrap_or((0, u64::MAX));
    checks.equal(
        format_args!("stack_distance_accesses"),
        "accesses seen vs PMU LD_RETIRED + ST_RETIRED",
        recorded,
        accesses,
    );
    checks.equal(
        format_args!("stack_distance_exact"),
        "lines evicted from the calculator (0: every distance exact)",
        evictions,
        0,
    );
}
