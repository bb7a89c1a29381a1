//! Resume, single step, and their reverse (time travel). None runs the machine: they record what gdb asked for in
//! [`Debuggee::resume`], and the session runs the machine in bounded bursts.

use gdbstub::common::Signal;
use gdbstub::target::ext::base::reverse_exec::{
    ReverseCont, ReverseContOps, ReverseStep, ReverseStepOps,
};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadResume, SingleThreadSingleStep, SingleThreadSingleStepOps,
};

use super::{Debuggee, GdbMachine, ResumeMode};

impl<G: GdbMachine> SingleThreadResume for Debuggee<G> {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::Continue);
        self.new_request = true;
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_reverse_step(&mut self) -> Option<ReverseStepOps<'_, (), Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_reverse_cont(&mut self) -> Option<ReverseContOps<'_, (), Self>> {
        Some(self)
    }
}

/// `bs` and `bc` (time travel): like resume and step they only record the request; the
/// session moves the machine through its history. Without history (`--no-history`) the
/// session answers at once that history begins here.
impl<G: GdbMachine> ReverseStep<()> for Debuggee<G> {
    fn reverse_step(&mut self, _tid: ()) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::ReverseStep);
        self.new_request = true;
        Ok(())
    }
}

impl<G: GdbMachine> ReverseCont<()> for Debuggee<G> {
    fn reverse_cont(&mut self) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::ReverseContinue);
        self.reverse_search = None;
        self.new_request = true;
        Ok(())
    }
}

impl<G: GdbMachine> SingleThreadSingleStep for Debuggee<G> {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::Step);
        self.new_request = true;
        Ok(())
    }
}
