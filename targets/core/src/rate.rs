//! The speed line `--stats` and `monitor stats` both print: million instructions per second.

use std::time::Duration;

/// `executed` instructions over `elapsed`, in millions per second; 0 for no time at all (a
/// run too short for the clock must not print infinity or NaN).
pub fn million_per_second(executed: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        executed as f64 / secs / 1e6
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_in_millions_per_second_and_zero_without_time() {
        assert_eq!(million_per_second(3_000_000, Duration::from_secs(2)), 1.5);
        assert_eq!(million_per_second(500, Duration::from_millis(1)), 0.5);
        assert_eq!(million_per_second(10, Duration::ZERO), 0.0);
    }
}
