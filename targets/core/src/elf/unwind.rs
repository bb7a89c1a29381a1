//! Walks the call stack with the frame rules the ELF gives gdb ([`ElfDebug::frames`]), so a
//! front end without gdb (the DAP session) shows the frames gdb shows.
//!
//! Everything here is in gdb's view, like the rules: code and data addresses as gdb sees them
//! (LC-3: 2 × word address) and registers by their gdb numbers, which are the DWARF numbers the
//! rules use. The caller's stack pointer is the CFA and its pc the return address column's
//! value, as gdb's DWARF unwinder takes them; a caller's rules are looked up at pc − 1 (the call,
//! not the instruction after it).
//!
//! Limits: only the rules [`CfaOp`] has; at most [`MAX_FRAMES`] frames; a walk stops where the
//! return address is undefined (the outermost frame), unreadable, or the frame does not move.

use std::collections::HashMap;

use super::dwarf::{CfaOp, ElfDebug, FrameCie, FrameDesc};

/// Frames shown at most (a corrupted stack cannot make the walk endless).
pub const MAX_FRAMES: usize = 64;

/// One frame: where it is executing and its canonical frame address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnwoundFrame {
    /// The pc (frame 0) or return address (callers), gdb code address.
    pub pc: u64,
    /// The CFA: the stack pointer at the call that made this frame (native units, as the
    /// rules compute it); `None` where no rule covers the pc.
    pub cfa: Option<u64>,
}

/// What the walk reads from the stopped machine.
pub trait FrameSource {
    /// A register by its gdb (DWARF) number, as gdb reads it.
    fn register(&self, regnum: u16) -> Option<u64>;
    /// `size` bytes at gdb address `addr`, little endian.
    fn memory(&self, addr: u64, size: u8) -> Option<u64>;
}

/// The rule a register's caller value follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Same,
    Undefined,
    At(i32),
    Op(CfaOp),
}

/// The CFA rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cfa {
    Reg(u16, i64),
    Load { addr: i64, addr_scale: u8, size: u8 },
}

/// The rules in force at `pc` within `fde`.
fn rules_at(cie: &FrameCie, fde: &FrameDesc, pc: u64) -> (Cfa, HashMap<u16, Rule>) {
    let mut cfa = Cfa::Reg(0, 0);
    let mut regs: HashMap<u16, Rule> = HashMap::new();
    let apply =
        |op: &CfaOp, cfa: &mut Cfa, regs: &mut HashMap<u16, Rule>, initial: &HashMap<u16, Rule>| {
            match *op {
                CfaOp::DefCfa(reg, off) => *cfa = Cfa::Reg(reg, i64::from(off)),
                CfaOp::DefCfaRegister(reg) => {
                    if let Cfa::Reg(_, off) = *cfa {
                        *cfa = Cfa::Reg(reg, off);
                    } else {
                        *cfa = Cfa::Reg(reg, 0);
                    }
                }
                CfaOp::DefCfaOffset(off) => {
                    if let Cfa::Reg(reg, _) = *cfa {
                        *cfa = Cfa::Reg(reg, i64::from(off));
                    }
                }
                CfaOp::DefCfaLoad {
                    addr,
                    addr_scale,
                    size,
                } => {
                    *cfa = Cfa::Load {
                        addr,
                        addr_scale,
                        size,
                    }
                }
                CfaOp::Offset(reg, off) => {
                    regs.insert(reg, Rule::At(off));
                }
                CfaOp::Restore(reg) => {
                    let rule = initial.get(&reg).copied().unwrap_or(Rule::Same);
                    regs.insert(reg, rule);
                }
                CfaOp::Undefined(reg) => {
                    regs.insert(reg, Rule::Undefined);
                }
                CfaOp::SameValue(reg) => {
                    regs.insert(reg, Rule::Same);
                }
                CfaOp::ValLoad { reg, .. } | CfaOp::ValLoadFromRegister { reg, .. } => {
                    regs.insert(reg, Rule::Op(*op));
                }
            }
        };
    let empty = HashMap::new();
    for op in &cie.initial {
        apply(op, &mut cfa, &mut regs, &empty);
    }
    let initial = regs.clone();
    for (at, op) in &fde.ops {
        if *at <= pc {
            apply(op, &mut cfa, &mut regs, &initial);
        }
    }
    (cfa, regs)
}

/// The frames from the machine's current state outwards: frame 0 at `pc`, then each caller.
pub fn unwind(
    debug: &ElfDebug,
    source: &dyn FrameSource,
    pc: u64,
    sp_regnum: u16,
) -> Vec<UnwoundFrame> {
    let mut frames = Vec::new();
    let Some(cie) = &debug.frame_cie else {
        frames.push(UnwoundFrame { pc, cfa: None });
        return frames;
    };
    // Register values of the frame being unwound; those not here are the machine's.
    let mut known: HashMap<u16, u64> = HashMap::new();
    let mut pc = pc;
    let mut seen = std::collections::HashSet::new();
    for depth in 0..MAX_FRAMES {
        let lookup = if depth == 0 { pc } else { pc.wrapping_sub(1) };
        let fde = debug
            .frames
            .iter()
            .find(|f| lookup >= f.start && lookup < f.start + f.len.max(1));
        let Some(fde) = fde else {
            frames.push(UnwoundFrame { pc, cfa: None });
            break;
        };
        let reg = |n: u16, known: &HashMap<u16, u64>| {
            known.get(&n).copied().or_else(|| source.register(n))
        };
        let (cfa_rule, rules) = rules_at(cie, fde, lookup);
        let cfa = match cfa_rule {
            Cfa::Reg(r, off) => reg(r, &known).map(|v| v.wrapping_add(off as u64)),
            Cfa::Load {
                addr,
                addr_scale,
                size,
            } => source.memory((addr as u64).wrapping_mul(u64::from(addr_scale)), size),
        };
        frames.push(UnwoundFrame { pc, cfa });
        let Some(cfa) = cfa else { break };
        // The caller's registers.
        let mut caller = known.clone();
        let mut ra = None;
        for (&r, rule) in &rules {
            let value = match *rule {
                Rule::Same => reg(r, &known),
                Rule::Undefined => None,
                // Saved registers are words: only 32-bit machines save with this rule (LC-3's
                // 16-bit saves are value expressions that say their size).
                Rule::At(off) => source.memory(cfa.wrapping_add(off as i64 as u64), 4),
                Rule::Op(CfaOp::ValLoad {
                    from_cfa,
                    offset,
                    addr_scale,
                    size,
                    value_scale,
                    value_add,
                    ..
                }) => {
                    let base = if from_cfa { cfa } else { 0 };
                    let addr = base
                        .wrapping_add(offset as u64)
                        .wrapping_mul(u64::from(addr_scale));
                    source.memory(addr, size).map(|w| {
                        w.wrapping_mul(u64::from(value_scale))
                            .wrapping_add(value_add)
                    })
                }
                Rule::Op(CfaOp::ValLoadFromRegister {
                    base,
                    offset,
                    addr_scale,
                    size,
                    value_scale,
                    ..
                }) => reg(base, &known).and_then(|b| {
                    let addr = b
                        .wrapping_add(offset as u64)
                        .wrapping_mul(u64::from(addr_scale));
                    source
                        .memory(addr, size)
                        .map(|w| w.wrapping_mul(u64::from(value_scale)))
                }),
                Rule::Op(_) => None,
            };
            if r == cie.ra_register {
                ra = value;
            }
            match value {
                Some(v) => {
                    caller.insert(r, v);
                }
                None => {
                    caller.remove(&r);
                }
            }
        }
        if !rules.contains_key(&cie.ra_register) {
            ra = reg(cie.ra_register, &known);
        }
        // The caller's stack pointer is the CFA, unless a rule said otherwise.
        if !rules.contains_key(&sp_regnum) {
            caller.insert(sp_regnum, cfa);
        }
        let Some(ra) = ra else { break };
        // A caller that is this frame again (no progress) ends the walk.
        let here = (pc, reg(sp_regnum, &known));
        if ra == 0 || (ra, caller.get(&sp_regnum).copied()) == here || !seen.insert((ra, cfa)) {
            break;
        }
        known = caller;
        pc = ra;
    }
    frames
}
