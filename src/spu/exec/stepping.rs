//! Fetch, decode and execute loops: [`SpuState::step`] and [`SpuState::run`].

use super::code_run::CodeRun;
use super::flow::Flow;
use super::outcome::{Executed, Fault, FaultKind, RunEnd, RunOutcome, Status, StopReason};
use super::profile::ProfileCheckpoint;
use super::state::SpuState;

/// What [`SpuState::step_quietly`] did.
enum Quiet {
    /// An ordinary instruction retired (not counted yet).
    Retired { is_nop: bool },
    /// `flow` came from the instruction `word` at `pc`; its step is not finished.
    Unusual { flow: Flow, pc: u32, word: u32 },
    /// An illegal word, or the SPU was stopped: `step`'s report.
    Report(Executed),
}

impl SpuState {
    /// Fetches the word at the PC, decodes and executes it. An illegal word stops the SPU
    /// with a [`FaultKind::IllegalInstruction`] fault carrying the PC and the word.
    ///
    /// The instruction runs from the local store's decoded code (decoded the first time and
    /// whenever its word changed).
    pub fn step(&mut self) -> Executed {
        let pc = self.pc;
        let word = self.local_store.load_word(pc);
        if let Status::Stopped(_) = self.status {
            return self.not_executed(pc, word);
        }
        self.catch_up_code();
        let executed = match self.op_at(pc) {
            Some(op) => self.execute_inner::<false>(&op, word, 0),
            None => self.illegal_instruction(pc, word),
        };
        if self.channels_need_service() {
            self.service_channels(&mut |_| {});
        }
        executed
    }

    /// [`step`](Self::step) for the run loops that only want to hear about the unusual,
    /// counting left to the caller: an instruction that retires, leaves the SPU running and
    /// writes no `prof_cp` line is executed without its report and without being counted,
    /// and `Quiet::Retired` comes back (the caller counts it with `count_retired`); an
    /// instruction whose ending needs the counters up to date comes back as `Quiet::Unusual`
    /// (the caller counts what it held back, then finishes it with `finish_unusual`); an
    /// illegal word or a stopped SPU comes back as `step` reports it.
    #[inline(always)]
    fn step_quietly(&mut self) -> Quiet {
        let pc = self.pc;
        let word = self.local_store.load_word(pc);
        if let Status::Stopped(_) = self.status {
            return Quiet::Report(self.not_executed(pc, word));
        }
        self.catch_up_code();
        match self.op_at(pc) {
            Some(op) => match self.execute_uncounted(&op) {
                Ok(ordinary) => Quiet::Retired {
                    is_nop: ordinary.is_nop,
                },
                Err(flow) => Quiet::Unusual { flow, pc, word },
            },
            None => Quiet::Report(self.illegal_instruction(pc, word)),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn illegal_instruction(&mut self, pc: u32, word: u32) -> Executed {
        self.status = Status::Stopped(StopReason::Fault(Fault {
            pc,
            word,
            kind: FaultKind::IllegalInstruction,
        }));
        self.not_executed(pc, word)
    }

    /// Steps until the SPU stops, blocks on a channel, or `max_instructions` instructions
    /// have been attempted; `prof_cp` reports are discarded.
    pub fn run(&mut self, max_instructions: u64) -> RunOutcome {
        let mut discard = |_: &ProfileCheckpoint| Ok(());
        match self.run_checkpoints(max_instructions, &mut discard) {
            Ok(outcome) => outcome,
            // The observer above never fails.
            Err(core::fmt::Error) => RunOutcome {
                end: RunEnd::CycleLimit,
                cycles: 0,
                instructions: 0,
                pc: self.pc,
            },
        }
    }

    /// Like [`run`](Self::run), writing each `prof_cp` line (plus a newline) to `output`.
    ///
    /// ```
    /// use pmprobe::spu::exec::{SpuState, RunEnd, StopReason};
    /// let mut spu = Box::new(SpuState::new(0));
    /// // prof_cp30 (and $30,$30,$30), il $3,5, prof_cp31, stop 0x2000
    /// spu.load_program_words(&[0x1827_8f1e, 0x4080_0283, 0x1827_cf9f, 0x0000_2000], 0).unwrap();
    /// let mut text = String::new();
    /// let outcome = spu.run_with_output(100, &mut text).unwrap();
    /// assert_eq!(text, "SPU0: CP30, 0(0), 0\nSPU0: CP31, 2(1), 2\n");
    /// assert_eq!(outcome.end, RunEnd::Stopped(StopReason::Stop { pc: 12, signal: 0x2000 }));
    /// assert_eq!(spu.register(3).words(), [5, 5, 5, 5]);
    /// ```
    pub fn run_with_output<W: core::fmt::Write>(
        &mut self,
        max_instructions: u64,
        output: &mut W,
    ) -> Result<RunOutcome, core::fmt::Error> {
        let mut print = |checkpoint: &ProfileCheckpoint| writeln!(output, "{checkpoint}");
        self.run_checkpoints(max_instructions, &mut print)
    }

    /// Steps like [`run`](Self::run) and hands every `prof_cp` checkpoint to `on_checkpoint`,
    /// stopping early if it returns an error. Faster than
    /// [`run_observed`](Self::run_observed): ordinary instructions build no report.
    pub fn run_checkpoints<F>(
        &mut self,
        max_instructions: u64,
        on_checkpoint: &mut F,
    ) -> Result<RunOutcome, core::fmt::Error>
    where
        F: FnMut(&ProfileCheckpoint) -> Result<(), core::fmt::Error>,
    {
        let mut total = RunOutcome {
            end: RunEnd::CycleLimit,
            cycles: 0,
            instructions: 0,
            pc: self.pc,
        };
        loop {
            if self.channels_need_service() {
                self.service_channels(&mut |_| {});
            }
            let remaining = max_instructions - total.cycles;
            if let Status::Stopped(reason) = self.status {
                total.end = RunEnd::Stopped(reason);
                total.pc = self.pc;
                return Ok(total);
            }
            let (outcome, checkpoint) = self.run_to_checkpoint(self.channel_slice(remaining));
            total = RunOutcome {
                end: outcome.end,
                cycles: total.cycles + outcome.cycles,
                instructions: total.instructions.wrapping_add(outcome.instructions),
                pc: outcome.pc,
            };
            if let Some(checkpoint) = checkpoint {
                on_checkpoint(&checkpoint)?;
            }
            let remaining = max_instructions - total.cycles;
            match total.end {
                RunEnd::Stopped(_) => return Ok(total),
                RunEnd::Blocked { .. } => match self.wait_for_channel_event(remaining) {
                    Some(waited) if waited > 0 || self.channels_need_service() => {
                        total.cycles += waited;
                    }
                    _ => return Ok(total),
                },
                RunEnd::CycleLimit => {}
            }
            if total.cycles >= max_instructions {
                return Ok(total);
            }
        }
    }

    /// Steps like [`run`](Self::run), building no report for ordinary instructions, until
    /// the SPU stops or blocks, `max_instructions` were attempted, or an instruction wrote a
    /// `prof_cp` checkpoint, which comes back with the outcome so far (whose end is then the
    /// cycle limit unless the SPU stopped or blocked too).
    pub(crate) fn run_to_checkpoint(
        &mut self,
        max_instructions: u64,
    ) -> (RunOutcome, Option<ProfileCheckpoint>) {
        let retired_before = self.retired;
        let mut attempts = 0u64;
        // Ordinary retirements are counted in one go before anything that reads the
        // counters and when the loop ends: every attempt since `counted_to` retired one,
        // `held_nops` of them NOP-class.
        let (mut counted_to, mut held_nops) = (0u64, 0u64);
        while attempts < max_instructions {
            let executed = match self.run_code(max_instructions - attempts, &mut ()) {
                CodeRun::Retired { instructions, nops } => {
                    attempts += instructions;
                    held_nops += nops;
                    continue;
                }
                CodeRun::Unusual {
                    retired,
                    nops,
                    flow,
                    pc,
                } => {
                    attempts += retired + 1;
                    held_nops += nops;
                    // The last attempt is not one of the ordinary retirements.
                    self.count_retired(attempts - 1 - counted_to, held_nops);
                    (counted_to, held_nops) = (attempts, 0);
                    let word = self.local_store.load_word(pc);
                    self.finish_unusual::<false>(flow, pc, word, 0)
                }
                CodeRun::Step { retired, nops } => {
                    attempts += retired;
                    held_nops += nops;
                    if attempts >= max_instructions {
                        break;
                    }
                    attempts += 1;
                    match self.step_quietly() {
                        Quiet::Retired { is_nop } => {
                            held_nops += u64::from(is_nop);
                            continue;
                        }
                        Quiet::Unusual { flow, pc, word } => {
                            self.count_retired(attempts - 1 - counted_to, held_nops);
                            (counted_to, held_nops) = (attempts, 0);
                            self.finish_unusual::<false>(flow, pc, word, 0)
                        }
                        Quiet::Report(executed) => {
                            self.count_retired(attempts - 1 - counted_to, held_nops);
                            (counted_to, held_nops) = (attempts, 0);
                            executed
                        }
                    }
                }
            };
            if let Some(end) = Self::run_end(executed.status) {
                return (
                    self.outcome(end, attempts, retired_before),
                    executed.profile,
                );
            }
            if executed.profile.is_some() || self.channels_need_service() {
                let outcome = self.outcome(RunEnd::CycleLimit, attempts, retired_before);
                return (outcome, executed.profile);
            }
        }
        self.count_retired(attempts - counted_to, held_nops);
        (
            self.outcome(self.current_end(), attempts, retired_before),
            None,
        )
    }

    /// Steps like [`run`](Self::run) and hands every [`Executed`] to `observer`, stopping
    /// early if the observer returns an error.
    pub fn run_observed<F>(
        &mut self,
        max_instructions: u64,
        observer: &mut F,
    ) -> Result<RunOutcome, core::fmt::Error>
    where
        F: FnMut(&Executed) -> Result<(), core::fmt::Error>,
    {
        // Counted from the retirement counter rather than per step: one value fewer live
        // across the interpreter in the loop (every retired instruction advances it by one).
        let retired_before = self.retired;
        let mut attempts = 0u64;
        while attempts < max_instructions {
            attempts += 1;
            let executed = self.step();
            observer(&executed)?;
            if let Some(end) = Self::run_end(executed.status) {
                let waited = match end {
                    RunEnd::Blocked { .. } => {
                        self.wait_for_channel_event(max_instructions - attempts)
                    }
                    _ => None,
                };
                match waited {
                    Some(waited) if waited > 0 || self.channels_need_service() => {
                        attempts += waited;
                        if self.channels_need_service() {
                            self.service_channels(&mut |_| {});
                        }
                    }
                    _ => return Ok(self.outcome(end, attempts, retired_before)),
                }
            }
        }
        Ok(self.outcome(self.current_end(), attempts, retired_before))
    }

    /// The run end a step that left the SPU in `status` brings, if any.
    #[inline(always)]
    fn run_end(status: Status) -> Option<RunEnd> {
        match status {
            Status::Running => None,
            Status::Blocked { channel } => Some(RunEnd::Blocked { channel }),
            Status::Stopped(reason) => Some(RunEnd::Stopped(reason)),
        }
    }

    /// How a run that used up its instructions ends, given the SPU's status.
    fn current_end(&self) -> RunEnd {
        Self::run_end(self.status).unwrap_or(RunEnd::CycleLimit)
    }

    /// The outcome of a run that made `attempts` steps, the retirement counter having been
    /// `retired_before` at its start.
    fn outcome(&self, end: RunEnd, attempts: u64, retired_before: u64) -> RunOutcome {
        RunOutcome {
            end,
            cycles: attempts,
            instructions: self.retired.wrapping_sub(retired_before),
            pc: self.pc,
        }
    }
}
