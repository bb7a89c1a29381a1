//! Coprocessor 1: FP register pairs, condition flags, arithmetic, conversions and MARS's
//! even-register rules.

use crate::decode::{FpArith, FpCond, FpFmt, FpUnary};

use super::{Cpu, Trap};

impl Cpu {
    pub(super) fn fp_double(&self, r: u8) -> f64 {
        let r = (r & 30) as usize;
        f64::from_bits(((self.fpr[r + 1] as u64) << 32) | self.fpr[r] as u64)
    }

    pub(super) fn set_fp_double_bits(&mut self, r: u8, bits: u64) {
        let r = (r & 30) as usize;
        self.fpr[r] = bits as u32;
        self.fpr[r + 1] = (bits >> 32) as u32;
    }

    pub(super) fn set_fp_double(&mut self, r: u8, value: f64) {
        // Java's doubleToLongBits collapses every NaN to one pattern.
        let bits = if value.is_nan() {
            0x7ff8_0000_0000_0000
        } else {
            value.to_bits()
        };
        self.set_fp_double_bits(r, bits);
    }

    pub(super) fn fp_single(&self, r: u8) -> f32 {
        f32::from_bits(self.fpr[(r & 31) as usize])
    }

    pub(super) fn set_fp_single(&mut self, r: u8, value: f32) {
        self.fpr[(r & 31) as usize] = if value.is_nan() {
            0x7fc0_0000
        } else {
            value.to_bits()
        };
    }

    pub(super) fn flag(&self, cc: u8) -> bool {
        (self.fcc >> (cc & 7)) & 1 != 0
    }

    pub(super) fn set_flag(&mut self, cc: u8, value: bool) {
        let bit = 1u8 << (cc & 7);
        if value {
            self.fcc |= bit;
        } else {
            self.fcc &= !bit;
        }
    }

    pub(super) fn fp_move(&mut self, double: bool, fd: u8, fs: u8) {
        let (fd, fs) = ((fd & 31) as usize, (fs & 31) as usize);
        self.fpr[fd] = self.fpr[fs];
        if double {
            self.fpr[(fd + 1) & 31] = self.fpr[(fs + 1) & 31];
        }
    }

    pub(super) fn fp_arith(
        &mut self,
        op: FpArith,
        double: bool,
        fd: u8,
        fs: u8,
        ft: u8,
    ) -> Result<(), Trap> {
        if double {
            if fd & 1 != 0 || fs & 1 != 0 || ft & 1 != 0 {
                return Err(Trap::even("all registers must be even-numbered"));
            }
            let (a, b) = (self.fp_double(fs), self.fp_double(ft));
            let r = match op {
                FpArith::Add => a + b,
                FpArith::Sub => a - b,
                FpArith::Mul => a * b,
                FpArith::Div => a / b,
            };
            self.set_fp_double(fd, r);
        } else {
            let (a, b) = (self.fp_single(fs), self.fp_single(ft));
            let r = match op {
                FpArith::Add => a + b,
                FpArith::Sub => a - b,
                FpArith::Mul => a * b,
                FpArith::Div => a / b,
            };
            self.set_fp_single(fd, r);
        }
        Ok(())
    }

    pub(super) fn fp_unary(&mut self, op: FpUnary, fmt: FpFmt, fd: u8, fs: u8) -> Result<(), Trap> {
        let odd = |r: u8| r & 1 != 0;
        match fmt {
            FpFmt::S => {
                let bits = self.fpr[(fs & 31) as usize];
                let v = f32::from_bits(bits);
                match op {
                    FpUnary::Sqrt => {
                        let r = if v < 0.0 {
                            f32::NAN
                        } else {
                            (v as f64).sqrt() as f32
                        };
                        self.set_fp_single(fd, r);
                    }
                    FpUnary::Abs => self.fpr[(fd & 31) as usize] = bits & 0x7fff_ffff,
                    FpUnary::Neg => self.fpr[(fd & 31) as usize] = bits ^ 0x8000_0000,
                    FpUnary::Mov => self.fpr[(fd & 31) as usize] = bits,
                    FpUnary::RoundW | FpUnary::TruncW | FpUnary::CeilW | FpUnary::FloorW => {
                        self.fpr[(fd & 31) as usize] = to_word(op, v as f64, true) as u32;
                    }
                    FpUnary::CvtD => {
                        if odd(fd) {
                            return Err(Trap::even("first register must be even-numbered"));
                        }
                        self.set_fp_double(fd, v as f64);
                    }
                    FpUnary::CvtW => self.fpr[(fd & 31) as usize] = v as i32 as u32,
                    FpUnary::CvtS => self.set_fp_single(fd, v),
                }
            }
            FpFmt::D => {
                let fd_odd = odd(fd);
                if odd(fs)
                    || (fd_odd
                        && matches!(
                            op,
                            FpUnary::Sqrt | FpUnary::Abs | FpUnary::Neg | FpUnary::Mov
                        ))
                {
                    let text = match op {
                        FpUnary::Sqrt | FpUnary::Abs | FpUnary::Neg | FpUnary::Mov => {
                            "both registers must be even-numbered"
                        }
                        _ => "second register must be even-numbered",
                    };
                    return Err(Trap::even(text));
                }
                let v = self.fp_double(fs);
                match op {
                    FpUnary::Sqrt => {
                        let r = if v < 0.0 { f64::NAN } else { v.sqrt() };
                        self.set_fp_double(fd, r);
                    }
                    FpUnary::Abs => {
                        let bits = v.to_bits() & 0x7fff_ffff_ffff_ffff;
                        self.set_fp_double_bits(fd, bits);
                    }
                    FpUnary::Neg => self.set_fp_double_bits(fd, v.to_bits() ^ (1 << 63)),
                    FpUnary::Mov => self.fp_move(true, fd, fs),
                    FpUnary::RoundW | FpUnary::TruncW | FpUnary::CeilW | FpUnary::FloorW => {
                        self.fpr[(fd & 31) as usize] = to_word(op, v, false) as u32;
                    }
                    FpUnary::CvtS => self.set_fp_single(fd, v as f32),
                    FpUnary::CvtW => self.fpr[(fd & 31) as usize] = v as i32 as u32,
                    FpUnary::CvtD => self.set_fp_double(fd, v),
                }
            }
            FpFmt::W => {
                let v = self.fpr[(fs & 31) as usize] as i32;
                match op {
                    FpUnary::CvtD => {
                        if odd(fd) {
                            return Err(Trap::even("first register must be even-numbered"));
                        }
                        self.set_fp_double(fd, v as f64);
                    }
                    _ => self.set_fp_single(fd, v as f32),
                }
            }
        }
        Ok(())
    }
}

pub(super) fn compare<T: PartialOrd>(cond: FpCond, a: T, b: T) -> bool {
    match cond {
        FpCond::Eq => a == b,
        FpCond::Lt => a < b,
        FpCond::Le => a <= b,
    }
}

/// MARS's float-to-word conversions: 2^31-1 for NaN, infinities and out-of-range values;
/// `round` goes to the even neighbour on exact ties.
fn to_word(op: FpUnary, v: f64, single: bool) -> i32 {
    // MARS compares against (float) or (double) Integer.MAX_VALUE: 2^31 and 2^31-1.
    let limit = if single {
        2_147_483_648.0
    } else {
        i32::MAX as f64
    };
    if v.is_nan() || v.is_infinite() || v < i32::MIN as f64 || v > limit {
        return i32::MAX;
    }
    match op {
        FpUnary::FloorW => v.floor() as i32,
        FpUnary::CeilW => v.ceil() as i32,
        FpUnary::TruncW => v as i32,
        _ => {
            let (below, above) = if v < 0.0 {
                let above = v as i32 as i64;
                (above - 1, above)
            } else {
                let below = v as i32 as i64;
                (below, below + 1)
            };
            if v - below as f64 == above as f64 - v {
                (if above % 2 == 0 { above } else { below }) as i32
            } else {
                v.round() as i32
            }
        }
    }
}
