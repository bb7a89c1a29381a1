//! Java's `Float.toString`/`Double.toString` layout (what MARS prints for syscalls 2, 3, 56, 57);
//! the parsers for the read syscalls are in `javaparse.rs`.
//!
//! MARS runs on JDK 8-17, whose `FloatingDecimal` does not print the shortest digits that read
//! back (JDK 19 and later do): integer values below 2^63 are printed from their exact value,
//! rounded to the type's precision (the float 15907145367552 prints as `1.59071454E13`), and
//! other values get digits until the remainder is within half an ulp on either side, a
//! symmetric test that sometimes gives one digit more or a different last digit
//! (`4.9E-324`, `9.999999999999999E22`). `java_digits` follows that algorithm, written here
//! from its description; tests/java_float_vectors.rs checks it against 241,105 values JDK 17
//! printed (scripts/gen-java-float-vectors.java).

/// Layout of `digits` (no point, first digit non-zero) times 10^`exp10` the way Java does:
/// plain decimal for 1e-3 <= |x| < 1e7, otherwise `d.dddE<exp>`.
fn java_layout(negative: bool, digits: &str, exp10: i32) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if (-3..7).contains(&exp10) {
        if exp10 >= 0 {
            let int_len = exp10 as usize + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
                out.push_str(&"0".repeat(int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.push_str(&"0".repeat((-exp10 - 1) as usize));
            out.push_str(digits);
        }
    } else {
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(if first.is_empty() { "0" } else { first });
        out.push('.');
        out.push_str(if rest.is_empty() { "0" } else { rest });
        out.push('E');
        out.push_str(&exp10.to_string());
    }
    out
}

fn special(nan: bool, infinite: bool, negative: bool, zero: bool) -> Option<String> {
    if nan {
        Some("NaN".into())
    } else if infinite {
        Some(if negative { "-Infinity" } else { "Infinity" }.into())
    } else if zero {
        Some(if negative { "-0.0" } else { "0.0" }.into())
    } else {
        None
    }
}

/// FloatingDecimal's binary point: the hidden bit of a double's significand is bit 52.
const EXP_SHIFT: i32 = 52;

/// Bits of 5^`i`, rounded up, as FloatingDecimal estimates them to pick its arithmetic (its own
/// table stops at 5^26, beyond which it takes 3 bits per factor).
fn bits_of_pow5(i: i32) -> i32 {
    match i {
        0 => 0,
        1..=26 => 64 - 5u64.pow(i as u32).leading_zeros() as i32,
        _ => i * 3,
    }
}

/// The decimal digits of 2^`p2` beyond the first (0 outside 2..=63, as in FloatingDecimal).
fn insignificant_digits_for_pow2(p2: i32) -> u32 {
    if (2..64).contains(&p2) {
        (1u64 << p2).ilog10()
    } else {
        0
    }
}

/// FloatingDecimal's estimate of floor(log10(x)) for the significand `fract_bits` (hidden bit
/// at bit 52) times 2^`bin_exp`: a linear fit of log10 on [1, 2), evaluated in doubles.
#[allow(
    clippy::approx_constant,
    reason = "FloatingDecimal's own truncated log10(2); the exact constant changes estimates"
)]
fn estimate_dec_exp(fract_bits: u64, bin_exp: i32) -> i32 {
    let one_to_two = f64::from_bits((1023u64 << EXP_SHIFT) | (fract_bits & ((1 << EXP_SHIFT) - 1)));
    let estimate =
        (one_to_two - 1.5) * 0.289529654 + 0.176091259 + bin_exp as f64 * 0.301029995663981;
    estimate.floor() as i32
}

/// Decimal digits (ASCII) and the exponent `e` with value = 0.d1d2d3... x 10^e.
struct Digits {
    digits: Vec<u8>,
    dec_exponent: i32,
}

impl Digits {
    /// Adds one in the last place; all nines become 1 followed by zeros (same length) and a
    /// larger exponent.
    fn round_up(&mut self) {
        for d in self.digits.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                return;
            }
        }
        if let Some(first) = self.digits.first_mut() {
            *first = b'1';
        }
        self.dec_exponent += 1;
    }
}

/// An integer below 2^63, minus the `insignificant` low decimal digits (rounded half up), with
/// its trailing zeros dropped.
fn long_digits(mut value: u64, insignificant: u32) -> Digits {
    if insignificant > 0 {
        let pow10 = 10u64.pow(insignificant);
        let residue = value % pow10;
        value /= pow10;
        if residue >= pow10 / 2 {
            value += 1;
        }
    }
    let text = value.to_string();
    let dec_exponent = text.len() as i32 + insignificant as i32;
    Digits {
        digits: text.trim_end_matches('0').as_bytes().to_vec(),
        dec_exponent,
    }
}

/// A non-negative integer as little-endian 32-bit limbs: just what the digit loop needs.
#[derive(Clone, Debug)]
struct Big(Vec<u32>);

impl Big {
    /// `factor` x 5^`p5` x 2^`p2`.
    fn pow52(factor: u64, p5: i32, p2: i32) -> Big {
        let mut big = Big(vec![factor as u32, (factor >> 32) as u32]);
        big.trim();
        for _ in 0..p5 {
            big.mul_small(5);
        }
        big.shl(p2 as u32);
        big
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let product = *limb as u64 * factor as u64 + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn shl(&mut self, bits: u32) {
        let (words, bits) = ((bits / 32) as usize, bits % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            self.0.push(carry);
        }
        self.0.splice(0..0, std::iter::repeat(0).take(words));
        self.trim();
    }

    fn add(&self, other: &Big) -> Big {
        let len = self.0.len().max(other.0.len());
        let mut sum = Vec::with_capacity(len + 1);
        let mut carry = 0u64;
        for i in 0..len {
            let total =
                *self.0.get(i).unwrap_or(&0) as u64 + *other.0.get(i).unwrap_or(&0) as u64 + carry;
            sum.push(total as u32);
            carry = total >> 32;
        }
        sum.push(carry as u32);
        let mut big = Big(sum);
        big.trim();
        big
    }

    /// `self` -= `other`; `other` <= `self`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let diff = self.0[i] as i64 - *other.0.get(i).unwrap_or(&0) as i64 - borrow;
            self.0[i] = diff as u32;
            borrow = (diff < 0) as i64;
        }
        self.trim();
    }

    /// Every operation leaves its result without high zero limbs, so lengths compare first.
    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// The next digit: quotient of `self` / `divisor` (below 10); `self` becomes 10 x the
    /// remainder.
    fn next_digit(&mut self, divisor: &Big) -> u8 {
        let mut q = 0;
        while self.cmp(divisor).is_ge() {
            self.sub(divisor);
            q += 1;
        }
        self.mul_small(10);
        q
    }
}

/// Where the digit loop stopped: whether the remainder was within half an ulp below (`low`)
/// or above (`high`), and, when both, how twice the remainder compares with 10 x S.
struct Stop {
    low: bool,
    high: bool,
    low_digit_difference: i64,
}

/// JDK 8-17's `FloatingDecimal.BinaryToASCIIBuffer.dtoa` digits for the significand
/// `fract_bits` (hidden bit at bit 52) x 2^`bin_exp`, of which `n_significant_bits` are
/// significant: integers below 2^63 are printed from their exact value with the digits below
/// the type's precision rounded off; every other value gets digits generated until the
/// remainder is within half an ulp (a symmetric test, so not always the shortest), at least two
/// in the E form, the last one rounded as the stopping test says. Its 32- and 64-bit shortcuts
/// are reproduced with their wrap-around, since a wrapped bound ends the loop early.
fn java_digits(bin_exp: i32, fract_bits: u64, n_significant_bits: i32) -> Digits {
    let tail_zeros = fract_bits.trailing_zeros() as i32;
    let n_fract_bits = EXP_SHIFT + 1 - tail_zeros;
    let n_tiny_bits = (n_fract_bits - bin_exp - 1).max(0);
    if (-21..=62).contains(&bin_exp) && n_tiny_bits == 0 {
        let insignificant = if bin_exp > n_significant_bits {
            insignificant_digits_for_pow2(bin_exp - n_significant_bits - 1)
        } else {
            0
        };
        let value = if bin_exp >= EXP_SHIFT {
            fract_bits << (bin_exp - EXP_SHIFT)
        } else {
            fract_bits >> (EXP_SHIFT - bin_exp)
        };
        return long_digits(value, insignificant);
    }
    let mut dec_exp = estimate_dec_exp(fract_bits, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + n_tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + n_tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - n_significant_bits;
    let fract = fract_bits >> tail_zeros;
    b2 -= n_fract_bits - 1;
    let common = b2.min(s2);
    b2 -= common;
    s2 -= common;
    m2 -= common;
    // Below a power of two the next value down is half as far; FloatingDecimal halves M.
    if n_fract_bits == 1 {
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    let b_bits = n_fract_bits + b2 + bits_of_pow5(b5);
    let ten_s_bits = s2 + 1 + bits_of_pow5(s5 + 1);
    let mut digits = Vec::with_capacity(20);
    let e_form = |dec_exp: i32| !(-3..8).contains(&dec_exp);
    // JDK 17 runs this digit loop in Java `int`s when the numbers fit 32 bits and in `long`s
    // when they fit 64, wrapping as those do: one body, instantiated for each width.
    macro_rules! digit_loop {
        ($int:ty) => {{
            let five: $int = 5;
            let mut b = (fract as $int)
                .wrapping_mul(five.wrapping_pow(b5 as u32))
                .wrapping_shl(b2 as u32);
            let s = five.wrapping_pow(s5 as u32).wrapping_shl(s2 as u32);
            let mut m = five.wrapping_pow(m5 as u32).wrapping_shl(m2 as u32);
            let tens = s.wrapping_mul(10);
            let mut q = b / s;
            b = (b % s).wrapping_mul(10);
            m = m.wrapping_mul(10);
            let mut low = b < m;
            let mut high = b.wrapping_add(m) > tens;
            if q == 0 && !high {
                dec_exp -= 1;
            } else {
                digits.push(b'0' + q as u8);
            }
            if e_form(dec_exp) {
                low = false;
                high = false;
            }
            while !low && !high {
                q = b / s;
                b = (b % s).wrapping_mul(10);
                m = m.wrapping_mul(10);
                if m > 0 {
                    low = b < m;
                    high = b.wrapping_add(m) > tens;
                } else {
                    low = true;
                    high = true;
                }
                digits.push(b'0' + q as u8);
            }
            Stop {
                low,
                high,
                low_digit_difference: i64::from(b.wrapping_shl(1).wrapping_sub(tens)),
            }
        }};
    }
    let stop = if b_bits < 32 && ten_s_bits < 32 {
        digit_loop!(i32)
    } else if b_bits < 64 && ten_s_bits < 64 {
        digit_loop!(i64)
    } else {
        let s = Big::pow52(1, s5, s2);
        let mut b = Big::pow52(fract, b5, b2);
        // M and S scaled by 10 up front, as the remainder is after each digit.
        let mut m = Big::pow52(1, m5 + 1, m2 + 1);
        let ten_s = Big::pow52(1, s5 + 1, s2 + 1);
        let q = b.next_digit(&s);
        let mut low = b.cmp(&m).is_lt();
        let mut high = b.add(&m).cmp(&ten_s).is_ge();
        if q == 0 && !high {
            dec_exp -= 1;
        } else {
            digits.push(b'0' + q);
        }
        if e_form(dec_exp) {
            low = false;
            high = false;
        }
        while !low && !high {
            let q = b.next_digit(&s);
            m.mul_small(10);
            low = b.cmp(&m).is_lt();
            high = b.add(&m).cmp(&ten_s).is_ge();
            digits.push(b'0' + q);
        }
        let low_digit_difference = if high && low {
            let mut twice = b.clone();
            twice.shl(1);
            twice.cmp(&ten_s) as i64
        } else {
            0
        };
        Stop {
            low,
            high,
            low_digit_difference,
        }
    };
    let mut out = Digits {
        digits,
        dec_exponent: dec_exp + 1,
    };
    let last_odd = out.digits.last().is_some_and(|d| d % 2 == 1);
    let round_up = stop.high
        && (!stop.low
            || stop.low_digit_difference > 0
            || (stop.low_digit_difference == 0 && last_odd));
    if round_up {
        out.round_up();
    }
    out
}

fn layout(negative: bool, digits: Digits) -> String {
    let text = String::from_utf8_lossy(&digits.digits);
    java_layout(negative, &text, digits.dec_exponent - 1)
}

/// `Float.toString(v)` as JDK 8-17 print it.
pub fn float_to_string(v: f32) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v.is_sign_negative(), v == 0.0) {
        return s;
    }
    let bits = v.to_bits();
    let mut fract = bits & 0x7f_ffff;
    let mut bin_exp = ((bits >> 23) & 0xff) as i32;
    let n_significant_bits;
    if bin_exp == 0 {
        // Subnormal: normalise, and only the bits it has are significant.
        let leading_zeros = fract.leading_zeros() as i32;
        let shift = leading_zeros - 8;
        fract <<= shift;
        bin_exp = 1 - shift;
        n_significant_bits = 32 - leading_zeros;
    } else {
        fract |= 1 << 23;
        n_significant_bits = 24;
    }
    let digits = java_digits(bin_exp - 127, (fract as u64) << 29, n_significant_bits);
    layout(v < 0.0, digits)
}

/// `Double.toString(v)` as JDK 8-17 print it.
pub fn double_to_string(v: f64) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v.is_sign_negative(), v == 0.0) {
        return s;
    }
    let bits = v.to_bits();
    let mut fract = bits & ((1 << EXP_SHIFT) - 1);
    let mut bin_exp = ((bits >> EXP_SHIFT) & 0x7ff) as i32;
    let n_significant_bits;
    if bin_exp == 0 {
        let leading_zeros = fract.leading_zeros() as i32;
        let shift = leading_zeros - (63 - EXP_SHIFT);
        fract <<= shift;
        bin_exp = 1 - shift;
        n_significant_bits = 64 - leading_zeros;
    } else {
        fract |= 1 << EXP_SHIFT;
        n_significant_bits = EXP_SHIFT + 1;
    }
    layout(
        v < 0.0,
        java_digits(bin_exp - 1023, fract, n_significant_bits),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_java() {
        assert_eq!(float_to_string(1.0e10), "1.0E10");
        assert_eq!(float_to_string(100.0), "100.0");
        assert_eq!(float_to_string(1.0e-5), "1.0E-5");
        assert_eq!(float_to_string(0.001), "0.001");
        assert_eq!(float_to_string(-2.5), "-2.5");
        assert_eq!(float_to_string(1234567.0), "1234567.0");
        assert_eq!(float_to_string(12345678.0), "1.2345678E7");
        assert_eq!(float_to_string(0.1), "0.1");
        assert_eq!(float_to_string(f32::NAN), "NaN");
        assert_eq!(float_to_string(-0.0), "-0.0");
        assert_eq!(double_to_string(1.23456789125e8), "1.23456789125E8");
        assert_eq!(double_to_string(3.0), "3.0");
        assert_eq!(double_to_string(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(double_to_string(0.000123), "1.23E-4");
    }

    #[test]
    fn digits_follow_floating_decimal_not_the_shortest() {
        // The smallest subnormals: the shortest digits would be 5.0E-324 and 1.0E-45.
        assert_eq!(double_to_string(f64::from_bits(1)), "4.9E-324");
        assert_eq!(float_to_string(f32::from_bits(1)), "1.4E-45");
        // Below a power of ten, the symmetric stopping test keeps every digit.
        assert_eq!(double_to_string(1e23), "9.999999999999999E22");
        assert_eq!(float_to_string(f32::MIN_POSITIVE), "1.17549435E-38");
        // At least two digits in the E form, from the first digit loop on.
        assert_eq!(double_to_string(2e-3), "0.002");
        assert_eq!(double_to_string(1e7), "1.0E7");
    }
}
