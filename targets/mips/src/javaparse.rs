//! Java's number parsers, as MARS uses them: `Integer.decode` (the assembler's literals, through
//! MARS's `Binary.stringToInt`), `Integer.parseInt` (syscall 5 and dialog 51) and
//! `Float.parseFloat` / `Double.parseDouble` (syscalls 6, 7 and dialogs 52, 53).
//!
//! The rules are the JDK 17 ones (the Java MARS 4.5 is run with): integer digits are whatever
//! `Character.digit(char, radix)` accepts, which includes every Unicode decimal digit (category
//! Nd) of the Basic Multilingual Plane — Java's parsers walk UTF-16 units, so a digit outside
//! the BMP arrives as two surrogates and is rejected. Floating-point text, in contrast, takes
//! only ASCII digits; its hex form (`0x1.8p1`) is rounded once, from the exact value, to the
//! precision asked for.

/// The code points of the digit zero of every Unicode Nd block in the BMP (Unicode 13, JDK
/// 17). Each block holds the ten digits 0-9 in order, so `c - zero` is the digit's value.
const ND_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// Java's `Character.digit(ch, radix)` for one UTF-16 unit (`None` for -1): a Unicode decimal
/// digit, or a Latin letter (ASCII or full-width) standing for 10-35.
pub fn java_digit(c: char, radix: u32) -> Option<u32> {
    let cp = c as u32;
    let value = if cp > 0xFFFF {
        return None;
    } else if let Some(&zero) = ND_ZEROS.iter().rev().find(|&&z| z <= cp) {
        if cp - zero < 10 {
            cp - zero
        } else {
            letter_value(cp)?
        }
    } else {
        letter_value(cp)?
    };
    (value < radix).then_some(value)
}

fn letter_value(cp: u32) -> Option<u32> {
    match cp {
        0x41..=0x5A => Some(cp - 0x41 + 10),
        0x61..=0x7A => Some(cp - 0x61 + 10),
        0xFF21..=0xFF3A => Some(cp - 0xFF21 + 10),
        0xFF41..=0xFF5A => Some(cp - 0xFF41 + 10),
        _ => None,
    }
}

/// Java's `Integer.parseInt(text, radix)`: an optional `+` or `-`, then at least one digit;
/// no surrounding blanks; overflow is an error.
pub fn parse_int_radix(text: &str, radix: u32) -> Option<i32> {
    let (negative, digits) = match text.chars().next()? {
        '-' => (true, &text[1..]),
        '+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let mut magnitude: i64 = 0;
    for c in digits.chars() {
        magnitude = magnitude * i64::from(radix) + i64::from(java_digit(c, radix)?);
        if magnitude > 1 << 31 {
            return None;
        }
    }
    i32::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// `Integer.parseInt(text)` (radix 10).
pub fn parse_int(text: &str) -> Option<i32> {
    parse_int_radix(text, 10)
}

/// Java's `Integer.decode`: an optional sign, then `0x`/`0X`/`#` and hex digits, `0` and octal
/// digits, or decimal digits.
pub fn decode_int(text: &str) -> Option<i32> {
    let (sign, rest) = match text.chars().next()? {
        c @ ('-' | '+') => (Some(c), &text[1..]),
        _ => (None, text),
    };
    let (radix, digits) = if let Some(hex) = rest.strip_prefix("0x").or(rest.strip_prefix("0X")) {
        (16, hex)
    } else if let Some(hex) = rest.strip_prefix('#') {
        (16, hex)
    } else if rest.len() > 1 && rest.starts_with('0') {
        (8, &rest[1..])
    } else {
        (10, rest)
    };
    if digits.starts_with(['-', '+']) {
        return None;
    }
    match sign {
        Some('-') => parse_int_radix(&format!("-{digits}"), radix),
        _ => parse_int_radix(digits, radix),
    }
}

/// Java trims every char at or below U+0020 from both ends (`String.trim`).
pub fn java_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// `Float.parseFloat(text)` (which trims the text itself).
pub fn parse_float(text: &str) -> Option<f32> {
    match parse_java_real(text)? {
        JavaReal::Decimal(t) => t.parse().ok(),
        JavaReal::Hex(h) => Some(f32::from_bits(h.round(24, -126) as u32)),
        JavaReal::Special(v) => Some(v as f32),
    }
}

/// `Double.parseDouble(text)` (which trims the text itself).
pub fn parse_double(text: &str) -> Option<f64> {
    match parse_java_real(text)? {
        JavaReal::Decimal(t) => t.parse().ok(),
        JavaReal::Hex(h) => Some(f64::from_bits(h.round(53, -1022))),
        JavaReal::Special(v) => Some(v),
    }
}

/// What `FloatingDecimal.readJavaFormatString` found in the text.
enum JavaReal {
    /// Checked decimal text (sign, digits, point, exponent; suffix removed) that Rust's
    /// correctly rounded parser reads exactly as Java does.
    Decimal(String),
    Hex(HexReal),
    /// NaN or a signed infinity.
    Special(f64),
}

/// An exact hex floating literal: `(-1)^negative * mantissa * 2^exp2`, plus whether nonzero
/// digits were dropped below `mantissa` (`sticky`).
struct HexReal {
    negative: bool,
    mantissa: u128,
    sticky: bool,
    exp2: i64,
}

impl HexReal {
    /// Rounds to nearest-even into an IEEE format with `precision` significand bits
    /// (hidden bit included) and smallest normal exponent `emin`; returns the bit pattern.
    fn round(&self, precision: u32, emin: i64) -> u64 {
        let width = precision as i64 - 1 + if precision == 24 { 8 } else { 11 };
        let sign = u64::from(self.negative) << width;
        let emax = -emin + 1;
        if self.mantissa == 0 {
            return sign;
        }
        let nbits = 128 - i64::from(self.mantissa.leading_zeros());
        // The value lies in [2^exp, 2^(exp+1)).
        let exp = self.exp2.saturating_add(nbits - 1);
        if exp > emax {
            return sign | infinity_bits(precision);
        }
        // How many of the mantissa's bits have a place in the result.
        let keep = if exp >= emin {
            i64::from(precision)
        } else {
            i64::from(precision) - (emin - exp)
        };
        if keep < 0 {
            return sign;
        }
        let shift = nbits - keep;
        let mut kept: u64 = if shift <= 0 {
            (self.mantissa << (-shift)) as u64
        } else {
            let kept = (self.mantissa >> shift) as u64;
            let rest = self.mantissa & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            let up = rest > half || (rest == half && (self.sticky || kept & 1 == 1));
            kept + u64::from(up)
        };
        let hidden = 1u64 << (precision - 1);
        if exp < emin {
            // Subnormal: the pattern is the significand itself (a carry into the hidden bit
            // makes it the smallest normal number, as the encoding intends).
            return sign | kept;
        }
        let mut exp = exp;
        if kept == hidden << 1 {
            kept >>= 1;
            exp += 1;
            if exp > emax {
                return sign | infinity_bits(precision);
            }
        }
        let biased = (exp + emax) as u64;
        sign | (biased << (precision - 1)) | (kept - hidden)
    }
}

fn infinity_bits(precision: u32) -> u64 {
    if precision == 24 {
        0x7f80_0000
    } else {
        0x7ff0_0000_0000_0000
    }
}

/// Java's grammar for floating-point text: optional sign; `NaN`; `Infinity`; decimal digits
/// with at most one point and an optional exponent; or a hex literal `0x` digits, point,
/// digits, mandatory `p` exponent; the decimal and hex forms may end in one of `fFdD`.
fn parse_java_real(text: &str) -> Option<JavaReal> {
    let t = java_trim(text);
    let (negative, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    match body {
        "NaN" => return Some(JavaReal::Special(f64::NAN)),
        "Infinity" => {
            let inf = if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            return Some(JavaReal::Special(inf));
        }
        _ => {}
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    if let Some(hex) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        return parse_hex(negative, hex).map(JavaReal::Hex);
    }
    let b = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    let mut points = 0;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        if b[i] == b'.' {
            points += 1;
        } else {
            digits += 1;
        }
        i += 1;
    }
    if digits == 0 || points > 1 {
        return None;
    }
    if i < b.len() {
        if !matches!(b[i], b'e' | b'E') {
            return None;
        }
        i += 1;
        if i < b.len() && matches!(b[i], b'+' | b'-') {
            i += 1;
        }
        if i == b.len() || !b[i..].iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    let sign = if negative { "-" } else { "" };
    Some(JavaReal::Decimal(format!("{sign}{body}")))
}

/// The part after `0x`: hex digits with at most one point (at least one digit), then `p`, an
/// optional sign and decimal digits.
fn parse_hex(negative: bool, text: &str) -> Option<HexReal> {
    let (significand, exponent) = text.split_once(['p', 'P'])?;
    let exponent_digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if exponent_digits.is_empty() || !exponent_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturate: anything this far out is zero or infinity at either precision.
    let magnitude = exponent_digits
        .bytes()
        .fold(0i64, |acc, b| (acc * 10 + i64::from(b - b'0')).min(1 << 40));
    let exp2 = if exponent.starts_with('-') {
        -magnitude
    } else {
        magnitude
    };
    let (int_part, frac_part) = significand.split_once('.').unwrap_or((significand, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut mantissa: u128 = 0;
    let mut sticky = false;
    let mut dropped: i64 = 0;
    for (k, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = c.to_digit(16)?;
        let is_fraction = k >= int_part.len();
        if mantissa >> 120 == 0 {
            mantissa = (mantissa << 4) | u128::from(d);
            if is_fraction {
                dropped -= 4;
            }
        } else {
            sticky |= d != 0;
            if !is_fraction {
                dropped += 4;
            }
        }
    }
    Some(HexReal {
        negative,
        mantissa,
        sticky,
        exp2: exp2 + dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_java_character_digit() {
        assert_eq!(java_digit('7', 10), Some(7));
        assert_eq!(java_digit('\u{FF11}', 10), Some(1)); // FULLWIDTH DIGIT ONE
        assert_eq!(java_digit('\u{0663}', 10), Some(3)); // ARABIC-INDIC DIGIT THREE
        assert_eq!(java_digit('\u{096F}', 10), Some(9)); // DEVANAGARI DIGIT NINE
        assert_eq!(java_digit('\u{A9F5}', 10), Some(5)); // MYANMAR TAI LAING DIGIT FIVE
        assert_eq!(java_digit('\u{00B2}', 10), None); // SUPERSCRIPT TWO is No, not Nd
        assert_eq!(java_digit('\u{2167}', 10), None); // ROMAN NUMERAL EIGHT is Nl
        assert_eq!(java_digit('\u{1D7CE}', 10), None); // outside the BMP: two surrogates
        assert_eq!(java_digit('a', 10), None);
        assert_eq!(java_digit('f', 16), Some(15));
        assert_eq!(java_digit('\u{FF26}', 16), Some(15)); // FULLWIDTH LATIN CAPITAL LETTER F
        assert_eq!(java_digit('8', 8), None);
    }

    #[test]
    fn parse_int_is_integer_parse_int() {
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("2147483647"), Some(i32::MAX));
        assert_eq!(parse_int("2147483648"), None);
        assert_eq!(parse_int("-2147483649"), None);
        assert_eq!(parse_int("99999999999999999999"), None);
        assert_eq!(parse_int("\u{FF11}\u{FF12}"), Some(12));
        assert_eq!(parse_int("-\u{0661}\u{0660}"), Some(-10));
        assert_eq!(parse_int("1\u{0966}"), Some(10)); // mixed scripts are fine for Java
        assert_eq!(parse_int("0x10"), None);
        assert_eq!(parse_int(" 1"), None);
        assert_eq!(parse_int("+"), None);
        assert_eq!(parse_int("+-1"), None);
        assert_eq!(parse_int(""), None);
    }

    #[test]
    fn decode_is_integer_decode() {
        assert_eq!(decode_int("0x1F"), Some(31));
        assert_eq!(decode_int("-0x80000000"), Some(i32::MIN));
        assert_eq!(decode_int("#10"), Some(16));
        assert_eq!(decode_int("010"), Some(8));
        assert_eq!(decode_int("0"), Some(0));
        assert_eq!(decode_int("+5"), Some(5));
        assert_eq!(decode_int("08"), None);
        assert_eq!(decode_int("0x-1"), None);
        assert_eq!(decode_int("0x"), None);
        assert_eq!(decode_int("0xFFFFFFFF"), None);
    }

    // Expected values below follow from the JDK 17 rules for Float/Double.parseFloat: the
    // grammar of FloatingDecimal.readJavaFormatString and correct rounding of the exact value.
    #[test]
    fn reals_follow_java_grammar() {
        assert_eq!(parse_double(" \t1.5\r"), Some(1.5));
        assert_eq!(parse_double("+.5"), Some(0.5));
        assert_eq!(parse_double("5."), Some(5.0));
        assert_eq!(parse_double("1e3d"), Some(1000.0));
        assert_eq!(parse_double("1E-2D"), Some(0.01));
        assert_eq!(parse_float("2.5f"), Some(2.5));
        assert_eq!(parse_float("2.5F"), Some(2.5));
        assert_eq!(parse_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("+Infinity"), Some(f32::INFINITY));
        assert!(parse_double("NaN").is_some_and(f64::is_nan));
        assert!(parse_double("-NaN").is_some_and(f64::is_nan));
        for bad in [
            "",
            ".",
            "e5",
            "1e",
            "1e+",
            "1.2.3",
            "inf",
            "infinity",
            "nan",
            "Infinityf",
            "NaNd",
            "1ff",
            "1 2",
            "1_0",
            "0x1.8",
            "0x.p1",
            "0xp1",
            "1e5.0",
            "--1",
            "\u{FF11}",
            "f",
        ] {
            assert_eq!(parse_double(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn hex_reals_are_exact_then_rounded_once() {
        assert_eq!(parse_double("0x1.8p1"), Some(3.0));
        assert_eq!(parse_double("0X.8P-2"), Some(0.125));
        assert_eq!(parse_double("-0x10p-4d"), Some(-1.0));
        assert_eq!(parse_double("0x1p-1074"), Some(f64::from_bits(1)));
        assert_eq!(parse_double("0x1p-1075"), Some(0.0)); // a tie, to even (zero)
        assert_eq!(parse_double("0x1.1p-1075"), Some(f64::from_bits(1)));
        assert_eq!(parse_double("0x1.fffffffffffff8p1023"), Some(f64::INFINITY));
        assert_eq!(parse_double("0x1.fffffffffffff7p1023"), Some(f64::MAX));
        assert_eq!(
            parse_double("0x0.0000000000000000000000000001p0"),
            Some(2f64.powi(-112))
        );
        assert_eq!(
            parse_double("0x1p99999999999999999999"),
            Some(f64::INFINITY)
        );
        assert_eq!(
            parse_double("-0x0p0").map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(parse_float("0x1p-149"), Some(f32::from_bits(1)));
        assert_eq!(parse_float("0x1.fffffep127"), Some(f32::MAX));
        assert_eq!(parse_float("0x1.ffffffp127"), Some(f32::INFINITY));
        // 1 + 2^-24 + 2^-60: just above the halfway point between two floats. Rounding to a
        // double first gives 1 + 2^-24 exactly (a tie), which a second rounding would take
        // down to 1.0; Java rounds the exact value once, up to 1 + 2^-23.
        assert_eq!(
            parse_float("0x1.000001000000001p0"),
            Some(f32::from_bits(0x3f80_0001))
        );
        assert_eq!(parse_float("0x1.000001p0"), Some(1.0)); // an exact tie goes to even
        assert_eq!(
            parse_float("0x1.000003p0"),
            Some(f32::from_bits(0x3f80_0002))
        );
        // Subnormal float with sticky bits far to the right.
        // Half the smallest subnormal float is a tie (to zero); a far sticky digit lifts it.
        assert_eq!(parse_float("0x0.000001p-126"), Some(0.0));
        assert_eq!(
            parse_float("0x0.000001000000000000000000000000000000001p-126"),
            Some(f32::from_bits(1))
        );
    }
}
