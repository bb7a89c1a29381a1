//! Java's `Float.toString`/`Double.toString` layout (what MARS prints for syscalls 2, 3, 56, 57);
//! the parsers for the read syscalls are in `javaparse.rs`.
//!
//! MARS runs on JDK 8-17, whose `FloatingDecimal` prints an integer-valued number from its exact
//! integer value, rounded to the decimal digits its binary precision supports (so the float
//! 15907145367552 prints as `1.59071454E13`, not the shortest `1.5907145E13`). That rule is
//! reproduced here; every other value gets the shortest digits that read back to the same value
//! (Rust's formatter), which is what those JDKs print for nearly all of them (measured: 54 of
//! 39,877 random doubles and a few hundred of 39,876 random floats still differ in the last
//! digit).

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

/// Splits Rust's `{:e}` output (`1.2345e-5`) into digits and exponent.
fn split_exp(text: &str) -> (String, i32) {
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp.parse().unwrap_or(0))
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

/// The old JDK's digits for an integer-valued number: `significand` (with its leading 1) times
/// 2^(`bin_exp` - `fraction_bits`), exact, minus the low decimal digits that `precision` binary
/// digits cannot distinguish (rounded half up). `None` when the value is not an integer or too
/// large for that path (2^63 and up), where the JDK uses its general algorithm.
fn integer_digits(
    significand: u64,
    fraction_bits: u32,
    bin_exp: i32,
    precision: i32,
) -> Option<(String, i32)> {
    let significant_bits = 64 - significand.leading_zeros() - significand.trailing_zeros();
    if !(0..=62).contains(&bin_exp) || significant_bits as i32 > bin_exp + 1 {
        return None;
    }
    let mut value = if bin_exp >= fraction_bits as i32 {
        significand << (bin_exp - fraction_bits as i32)
    } else {
        significand >> (fraction_bits as i32 - bin_exp)
    };
    // Decimal digits below the binary precision: floor(p * log10(2)) for p = excess bits - 1.
    let excess = bin_exp - precision - 1;
    let insignificant = if bin_exp > precision && excess > 1 {
        (excess as f64 * std::f64::consts::LOG10_2).floor() as u32
    } else {
        0
    };
    if insignificant > 0 {
        let pow10 = 10u64.checked_pow(insignificant)?;
        let residue = value % pow10;
        value /= pow10;
        if residue >= pow10 / 2 {
            value += 1;
        }
    }
    let text = value.to_string();
    let exp10 = text.len() as i32 - 1 + insignificant as i32;
    Some((text.trim_end_matches('0').to_string(), exp10))
}

/// Shortest digits with the old JDK's tie rule: when the exact value lies exactly halfway between
/// two shortest candidates, the JDK keeps the one whose last digit is even (Rust's formatter may
/// take the other).
fn shortest_digits(v: f64, shortest: &str) -> (String, i32) {
    let (digits, exp) = split_exp(shortest);
    // An f64 has at most 767 significant decimal digits, so this expansion is exact.
    let (exact, exact_exp) = split_exp(&format!("{:.800e}", v.abs()));
    let exact = exact.trim_end_matches('0');
    let n = digits.len();
    let is_tie = exact_exp == exp && exact.len() == n + 1 && exact.ends_with('5');
    if !is_tie {
        return (digits, exp);
    }
    let lower = &exact[..n];
    let lower_even = lower.bytes().last().is_some_and(|d| (d - b'0') % 2 == 0);
    if lower_even {
        return (lower.trim_end_matches('0').to_string(), exp);
    }
    increment_digits(lower, exp)
}

/// `digits` + 1 in the last place, carrying into a new leading digit if needed.
fn increment_digits(digits: &str, exp: i32) -> (String, i32) {
    let mut bytes = digits.as_bytes().to_vec();
    for i in (0..bytes.len()).rev() {
        if bytes[i] == b'9' {
            bytes[i] = b'0';
        } else {
            bytes[i] += 1;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            return (text.trim_end_matches('0').to_string(), exp);
        }
    }
    ("1".to_string(), exp + 1)
}

/// `Float.toString(v)` as JDK 8-17 print it.
pub fn float_to_string(v: f32) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v.is_sign_negative(), v == 0.0) {
        return s;
    }
    let bits = v.to_bits();
    let biased = ((bits >> 23) & 0xff) as i32;
    let exact = (biased != 0)
        .then(|| {
            integer_digits(
                ((bits & 0x7f_ffff) | 0x80_0000) as u64,
                23,
                biased - 127,
                24,
            )
        })
        .flatten();
    let (digits, exp) =
        exact.unwrap_or_else(|| shortest_digits(v as f64, &format!("{:e}", v.abs())));
    java_layout(v < 0.0, &digits, exp)
}

/// `Double.toString(v)` as JDK 8-17 print it.
pub fn double_to_string(v: f64) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v.is_sign_negative(), v == 0.0) {
        return s;
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let significand = (bits & ((1 << 52) - 1)) | (1 << 52);
    let exact = (biased != 0)
        .then(|| integer_digits(significand, 52, biased - 1023, 53))
        .flatten();
    let (digits, exp) = exact.unwrap_or_else(|| shortest_digits(v, &format!("{:e}", v.abs())));
    java_layout(v < 0.0, &digits, exp)
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
}
