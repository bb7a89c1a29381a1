//! Posing as an ARM M-profile core: how gdb debugs an ISA it has no architecture for.
//!
//! gdb rejects a target description with an unknown `<architecture>`, so LC-3 and SimpleRISC
//! both describe themselves as `arm` with the `org.gnu.gdb.arm.m-profile` feature (regnums 0–15
//! for r0–r12, sp, lr, pc and 25 for xpsr, all 32-bit) and add their own registers in a custom
//! feature numbered from 26 on. This module is that pose, once: the `g` packet layout
//! ([`ArmPoseRegs`]), the regnums ([`ArmPoseRegId`]) and the gdbstub [`Arch`] ([`ArmPose`]).
//! What stays with each ISA is its target description and which of its registers stand behind
//! sp, lr, pc and xpsr (targets/lc3/src/gdb.rs, targets/simplerisc/src/gdb.rs).
//!
//! Limits: every value is little endian; the ISA's own registers are all `BYTES` wide (2 or 4).

use std::convert::Infallible;
use std::marker::PhantomData;
use std::num::NonZeroUsize;

use gdbstub::arch::{Arch, RegId, Registers};

/// Position of sp in [`ArmPoseRegs::core`] (regnum 13).
pub const SP: usize = 13;
/// Position of lr in [`ArmPoseRegs::core`] (regnum 14).
pub const LR: usize = 14;
/// Position of pc in [`ArmPoseRegs::core`] (regnum 15).
pub const PC: usize = 15;
/// gdb's regnum of xpsr in the m-profile feature.
const XPSR_REGNUM: usize = 25;
/// gdb's regnum of the first register of the ISA's own feature.
pub const OWN_FIRST_REGNUM: usize = 26;

/// The target description of one posing ISA.
pub trait ArmPoseXml {
    /// Served as `target.xml`: the m-profile feature, then the ISA's own registers from regnum
    /// [`OWN_FIRST_REGNUM`] on.
    const TARGET_XML: &'static str;
}

/// The gdbstub architecture of an ISA posing as ARM M-profile with `N` registers of its own,
/// each `BYTES` wide. Never constructed: it only names types.
pub struct ArmPose<X, const N: usize, const BYTES: usize> {
    _never: Infallible,
    _xml: PhantomData<fn() -> X>,
}

impl<X: ArmPoseXml, const N: usize, const BYTES: usize> Arch for ArmPose<X, N, BYTES> {
    type Usize = u32;
    type Registers = ArmPoseRegs<N, BYTES>;
    type RegId = ArmPoseRegId<N, BYTES>;
    type BreakpointKind = usize;

    fn target_description_xml() -> Option<&'static str> {
        Some(X::TARGET_XML)
    }
}

/// The `g` packet in regnum order: ARM r0–r12, sp, lr, pc (0–15) and xpsr (25) as 32-bit
/// words, then the ISA's `N` registers (26 on), `BYTES` each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmPoseRegs<const N: usize, const BYTES: usize> {
    pub core: [u32; 16],
    pub xpsr: u32,
    /// The ISA's own registers; only the low `BYTES` bytes of each go over the wire.
    pub own: [u32; N],
}

impl<const N: usize, const BYTES: usize> Default for ArmPoseRegs<N, BYTES> {
    fn default() -> Self {
        ArmPoseRegs {
            core: [0; 16],
            xpsr: 0,
            own: [0; N],
        }
    }
}

impl<const N: usize, const BYTES: usize> ArmPoseRegs<N, BYTES> {
    /// Length of the `g` packet in bytes.
    pub const G_LEN: usize = 17 * 4 + N * BYTES;

    /// The value of one register.
    pub fn get(&self, id: ArmPoseRegId<N, BYTES>) -> Option<u32> {
        match id {
            ArmPoseRegId::Core(n) => self.core.get(usize::from(n)).copied(),
            ArmPoseRegId::Xpsr => Some(self.xpsr),
            ArmPoseRegId::Own(n) => self.own.get(usize::from(n)).copied(),
        }
    }

    /// One register for a `p` packet: its little-endian bytes, as many as `buf` holds.
    pub fn read_into(&self, id: ArmPoseRegId<N, BYTES>, buf: &mut [u8]) -> Option<usize> {
        let value = self.get(id)?.to_le_bytes();
        let n = id.bytes().min(buf.len());
        buf[..n].copy_from_slice(&value[..n]);
        Some(n)
    }

    /// The registers whose values differ from `before`, in regnum order: what a `G` packet
    /// asks to change. Writing only these lets a change made through either of two names for
    /// one register (sp and R6, xpsr and flags) win.
    pub fn changes<'a>(
        &'a self,
        before: &'a Self,
    ) -> impl Iterator<Item = (ArmPoseRegId<N, BYTES>, u32)> + 'a {
        let core = (0..16u8).map(ArmPoseRegId::Core);
        let own = (0..N).filter_map(|n| u8::try_from(n).ok().map(ArmPoseRegId::Own));
        core.chain([ArmPoseRegId::Xpsr])
            .chain(own)
            .filter_map(move |id| {
                let new = self.get(id)?;
                (before.get(id) != Some(new)).then_some((id, new))
            })
    }
}

/// A machine in the pose: it says what stands behind each posed register, and the register
/// packets (`g`/`G`/`p`/`P`) follow from that once, here. Its `GdbMachine` impl forwards to
/// these.
pub trait ArmPoseMachine<const N: usize, const BYTES: usize> {
    /// Fills every posed register from the machine.
    fn read_pose(&self, regs: &mut ArmPoseRegs<N, BYTES>);
    /// Writes the machine's register behind `id`; false for one that cannot be written.
    fn write_pose(&mut self, id: ArmPoseRegId<N, BYTES>, value: u32) -> bool;

    /// `G`: writes only the registers gdb changed, in regnum order, so a change made through
    /// either of two names for one register (sp and R6, xpsr and flags) wins.
    fn write_pose_changes(&mut self, regs: &ArmPoseRegs<N, BYTES>) {
        let mut before = ArmPoseRegs::default();
        self.read_pose(&mut before);
        for (id, value) in regs.changes(&before) {
            self.write_pose(id, value);
        }
    }

    /// `p`: one register's little-endian bytes.
    fn read_pose_register(&self, id: ArmPoseRegId<N, BYTES>, buf: &mut [u8]) -> Option<usize> {
        let mut regs = ArmPoseRegs::default();
        self.read_pose(&mut regs);
        regs.read_into(id, buf)
    }

    /// `P`: one register from gdb's little-endian bytes.
    fn write_pose_register(&mut self, id: ArmPoseRegId<N, BYTES>, bytes: &[u8]) -> bool {
        self.write_pose(id, le_value(bytes))
    }
}

/// The value of a register gdb sends in a `P` packet (little endian, at most 4 bytes used).
pub fn le_value(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .rev()
        .fold(0u32, |acc, &b| (acc << 8) | u32::from(b))
}

impl<const N: usize, const BYTES: usize> Registers for ArmPoseRegs<N, BYTES> {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.core[PC]
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        for word in self.core.iter().chain([&self.xpsr]) {
            word.to_le_bytes()
                .into_iter()
                .for_each(|b| write_byte(Some(b)));
        }
        for value in &self.own {
            value.to_le_bytes()[..BYTES]
                .iter()
                .for_each(|&b| write_byte(Some(b)));
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        if bytes.len() != Self::G_LEN {
            return Err(());
        }
        let (words, own) = bytes.split_at(17 * 4);
        let mut words = words.chunks_exact(4).map(le_value);
        for slot in self.core.iter_mut().chain([&mut self.xpsr]) {
            *slot = words.next().ok_or(())?;
        }
        for (slot, chunk) in self.own.iter_mut().zip(own.chunks_exact(BYTES)) {
            *slot = le_value(chunk);
        }
        Ok(())
    }
}

/// A register gdb names by regnum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmPoseRegId<const N: usize, const BYTES: usize> {
    /// ARM r0–r12, sp (13), lr (14), pc (15).
    Core(u8),
    Xpsr,
    /// The ISA's own register `n` (regnum 26 + n).
    Own(u8),
}

impl<const N: usize, const BYTES: usize> ArmPoseRegId<N, BYTES> {
    /// Its size on the wire.
    pub fn bytes(self) -> usize {
        match self {
            ArmPoseRegId::Core(_) | ArmPoseRegId::Xpsr => 4,
            ArmPoseRegId::Own(_) => BYTES,
        }
    }
}

impl<const N: usize, const BYTES: usize> RegId for ArmPoseRegId<N, BYTES> {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        let reg = match id {
            0..=15 => ArmPoseRegId::Core(id as u8),
            XPSR_REGNUM => ArmPoseRegId::Xpsr,
            _ => {
                let n = id.checked_sub(OWN_FIRST_REGNUM).filter(|&n| n < N)?;
                ArmPoseRegId::Own(u8::try_from(n).ok()?)
            }
        };
        Some((reg, NonZeroUsize::new(reg.bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Halves = ArmPoseRegs<3, 2>;
    type HalvesId = ArmPoseRegId<3, 2>;

    fn sample() -> Halves {
        let mut regs = Halves::default();
        for (i, w) in regs.core.iter_mut().enumerate() {
            *w = 0x0101_0101 * i as u32;
        }
        regs.xpsr = 0xdead_beef;
        regs.own = [0x1234, 0xfffe, 7];
        regs
    }

    fn serialized(regs: &Halves) -> Vec<u8> {
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap_or(0xaa)));
        bytes
    }

    #[test]
    fn g_packet_round_trips_in_regnum_order() {
        let regs = sample();
        let bytes = serialized(&regs);
        assert_eq!(bytes.len(), 17 * 4 + 3 * 2);
        assert_eq!(&bytes[15 * 4..16 * 4], &[15, 15, 15, 15], "pc is regnum 15");
        assert_eq!(
            &bytes[16 * 4..17 * 4],
            &[0xef, 0xbe, 0xad, 0xde],
            "then xpsr"
        );
        assert_eq!(
            &bytes[68..],
            &[0x34, 0x12, 0xfe, 0xff, 7, 0],
            "own, 2 bytes each"
        );
        let mut back = Halves::default();
        assert_eq!(back.gdb_deserialize(&bytes), Ok(()));
        assert_eq!(back, regs);
        assert_eq!(back.pc(), 0x0f0f_0f0f);
    }

    #[test]
    fn own_registers_wider_than_bytes_lose_their_high_bytes_on_the_wire() {
        let mut regs = sample();
        regs.own[0] = 0xabcd_1234;
        let mut back = Halves::default();
        assert_eq!(back.gdb_deserialize(&serialized(&regs)), Ok(()));
        assert_eq!(back.own[0], 0x1234);
    }

    #[test]
    fn g_packet_of_the_wrong_length_is_rejected_and_changes_nothing() {
        let bytes = serialized(&sample());
        let mut regs = Halves::default();
        assert_eq!(regs.gdb_deserialize(&bytes[1..]), Err(()));
        assert_eq!(
            regs.gdb_deserialize(&[bytes.as_slice(), &[0]].concat()),
            Err(())
        );
        assert_eq!(regs.gdb_deserialize(&[]), Err(()));
        assert_eq!(regs, Halves::default());
        let mut words = ArmPoseRegs::<4, 4>::default();
        assert_eq!(words.gdb_deserialize(&[0; 84]), Ok(()));
        assert_eq!(words.gdb_deserialize(&[0; 83]), Err(()));
    }

    #[test]
    fn regnums_map_to_core_xpsr_and_own_registers() {
        let id = |n| HalvesId::from_raw_id(n).map(|(id, size)| (id, size.map(|s| s.get())));
        assert_eq!(id(0), Some((HalvesId::Core(0), Some(4))));
        assert_eq!(id(15), Some((HalvesId::Core(15), Some(4))));
        assert_eq!(id(16), None, "no ARM fp registers");
        assert_eq!(id(24), None);
        assert_eq!(id(25), Some((HalvesId::Xpsr, Some(4))));
        assert_eq!(id(26), Some((HalvesId::Own(0), Some(2))));
        assert_eq!(id(28), Some((HalvesId::Own(2), Some(2))));
        assert_eq!(id(29), None, "only N own registers");
        assert_eq!(id(usize::MAX), None);
        let wide = ArmPoseRegId::<4, 4>::from_raw_id(29).map(|(id, s)| (id, s.map(|s| s.get())));
        assert_eq!(wide, Some((ArmPoseRegId::Own(3), Some(4))));
    }

    #[test]
    fn single_register_reads_give_the_registers_size() {
        let regs = sample();
        let mut buf = [0u8; 8];
        assert_eq!(regs.read_into(HalvesId::Xpsr, &mut buf), Some(4));
        assert_eq!(&buf[..4], &[0xef, 0xbe, 0xad, 0xde]);
        assert_eq!(regs.read_into(HalvesId::Own(1), &mut buf), Some(2));
        assert_eq!(&buf[..2], &[0xfe, 0xff]);
        let mut short = [0u8; 1];
        assert_eq!(regs.read_into(HalvesId::Core(1), &mut short), Some(1));
        assert_eq!(short, [1]);
        assert_eq!(regs.read_into(HalvesId::Own(3), &mut buf), None);
        assert_eq!(regs.read_into(HalvesId::Core(16), &mut buf), None);
    }

    #[test]
    fn changes_lists_only_what_differs_in_regnum_order() {
        let before = sample();
        let mut after = before.clone();
        assert_eq!(after.changes(&before).count(), 0);
        after.own[2] = 9;
        after.core[SP] = 100;
        after.xpsr = 1;
        let changed: Vec<_> = after.changes(&before).collect();
        assert_eq!(
            changed,
            [
                (HalvesId::Core(SP as u8), 100),
                (HalvesId::Xpsr, 1),
                (HalvesId::Own(2), 9)
            ]
        );
    }

    /// A machine of three 16-bit registers where sp is an alias of register 2.
    #[derive(Default)]
    struct Toy {
        regs: [u16; 3],
        writes: Vec<(HalvesId, u32)>,
    }

    impl ArmPoseMachine<3, 2> for Toy {
        fn read_pose(&self, regs: &mut Halves) {
            regs.own = self.regs.map(u32::from);
            regs.core[SP] = u32::from(self.regs[2]);
        }
        fn write_pose(&mut self, id: HalvesId, value: u32) -> bool {
            self.writes.push((id, value));
            match id {
                HalvesId::Own(n @ 0..=2) => self.regs[usize::from(n)] = value as u16,
                HalvesId::Core(n) if usize::from(n) == SP => self.regs[2] = value as u16,
                _ => return false,
            }
            true
        }
    }

    #[test]
    fn machines_in_the_pose_write_changes_through_either_name() {
        let mut toy = Toy {
            regs: [1, 2, 3],
            ..Toy::default()
        };
        let mut regs = Halves::default();
        toy.read_pose(&mut regs);
        regs.core[SP] = 30;
        toy.write_pose_changes(&regs);
        assert_eq!(toy.regs, [1, 2, 30]);
        assert_eq!(
            toy.writes,
            [(HalvesId::Core(SP as u8), 30)],
            "only what changed"
        );
        toy.read_pose(&mut regs);
        regs.own[0] = 10;
        toy.write_pose_changes(&regs);
        assert_eq!(toy.regs, [10, 2, 30]);
        let mut buf = [0u8; 4];
        assert_eq!(toy.read_pose_register(HalvesId::Own(2), &mut buf), Some(2));
        assert_eq!(&buf[..2], &[30, 0]);
        assert!(toy.write_pose_register(HalvesId::Own(1), &[0x34, 0x12]));
        assert_eq!(toy.regs[1], 0x1234);
        assert!(!toy.write_pose_register(HalvesId::Xpsr, &[1]));
    }

    #[test]
    fn p_packet_values_are_little_endian() {
        assert_eq!(le_value(&[0x34, 0x12]), 0x1234);
        assert_eq!(le_value(&[1, 2, 3, 4]), 0x0403_0201);
        assert_eq!(
            le_value(&[1, 2, 3, 4, 5]),
            0x0403_0201,
            "a fifth byte is ignored"
        );
        assert_eq!(le_value(&[]), 0);
    }
}
