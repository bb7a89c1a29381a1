//! Java's `Float.toString`/`Double.toString` layout (what MARS prints for syscalls 2, 3, 56, 57)
//! and `Float.parseFloat`/`Double.parseDouble` for the read syscalls.
//!
//! The digits are the shortest ones that read back to the same value (Rust's formatter). JDK 19+
//! prints exactly those; JDK 8-17 occasionally print one digit more for some doubles, which this
//! does not imitate.

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
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
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

/// `Float.toString(v)`.
pub fn float_to_string(v: f32) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v.is_sign_negative(), v == 0.0) {
        return s;
    }
    let (digits, exp) = split_exp(&format!("{:e}", v.abs()));
    java_layout(v < 0.0, &digits, exp)
}

/// `Double.toString(v)`.
pub fn double_to_string(v: f64) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v.is_sign_negative(), v == 0.0) {
        return s;
    }
    let (digits, exp) = split_exp(&format!("{:e}", v.abs()));
    java_layout(v < 0.0, &digits, exp)
}

/// The text Java's number parsers accept after `trim()`: an optional f/F/d/D suffix and the
/// words NaN and Infinity.
fn java_number_text(text: &str) -> Option<String> {
    let t = text.trim_matches(|c: char| c <= ' ');
    let t = t
        .strip_suffix(['f', 'F', 'd', 'D'])
        .filter(|rest| !rest.is_empty() && !rest.ends_with(['e', 'E']))
        .unwrap_or(t);
    let body = t.trim_start_matches(['+', '-']);
    let ok = body == "NaN"
        || body == "Infinity"
        || (!body.is_empty()
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')));
    ok.then(|| t.replace("Infinity", "inf"))
}

/// `Float.parseFloat(text.trim())`.
pub fn parse_float(text: &str) -> Option<f32> {
    java_number_text(text)?.parse().ok()
}

/// `Double.parseDouble(text.trim())`.
pub fn parse_double(text: &str) -> Option<f64> {
    java_number_text(text)?.parse().ok()
}

/// `Integer.parseInt(text.trim())`: decimal digits with an optional sign.
pub fn parse_int(text: &str) -> Option<i32> {
    let t = text.trim_matches(|c: char| c <= ' ');
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
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
    fn parses_like_java() {
        assert_eq!(parse_int(" 42 \r"), Some(42));
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("0x10"), None);
        assert_eq!(parse_int("2147483648"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_float("1.5f"), Some(1.5));
        assert_eq!(parse_float("-Infinity"), Some(f32::NEG_INFINITY));
        assert_eq!(parse_double("1e3"), Some(1000.0));
        assert_eq!(parse_double("abc"), None);
        assert_eq!(parse_double("inf"), None);
    }
}
