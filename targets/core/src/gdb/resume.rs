//! Resume and single step. Neither runs the machine: they record what gdb asked for in
//! [`Debuggee::resume`], and the session runs the machine in bounded bursts.

use gdbstub::common::Signal;
use gdbstub::target::ext::base::singlethread::{
    SingleThreadResume, SingleThreadSingleStep, SingleThreadSingleStepOps,
};

use super::{Debuggee, GdbMachine, ResumeMode};

impl<G: GdbMachine> SingleThreadResume for Debuggee<G> {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::Continue);
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl<G: GdbMachine> SingleThreadSingleStep for Debuggee<G> {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::Step);
        Ok(())
    }
}
