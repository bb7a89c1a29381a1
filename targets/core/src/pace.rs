//! `--speed N`: a run held to N instructions a second, as MARS's run speed slider holds a game
//! written against its pace (a few million instructions a second; a game whose loop counts
//! instructions for its timing is over in a blink at full speed).
//!
//! [`Pace`] is arithmetic on the host's clock readings, which the caller passes in: it says how
//! many instructions to run before looking again ([`Pace::slice`]: about a hundredth of a
//! second's worth) and how long to wait before the next slice so as not to run ahead of the
//! pace ([`Pace::wait`]). A run never catches up for time it spent waiting on something else (a
//! key, a sleep, a debugger's stop): [`Pace::restart`] starts the reckoning afresh there.

use std::time::Duration;

// The portable clock: std's `Instant` natively, `performance.now()` in the browser (where a
// paced run is the page's speed control).
use crate::clock::Instant;

/// A run's pace: `per_second` instructions a second at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    per_second: u64,
    /// The clock reading and the instruction count the reckoning starts from.
    since: Option<(Instant, u64)>,
}

impl Pace {
    pub fn new(per_second: u64) -> Pace {
        Pace {
            per_second: per_second.max(1),
            since: None,
        }
    }

    pub fn per_second(&self) -> u64 {
        self.per_second
    }

    /// The most instructions to run before the next look at the clock: a hundredth of a
    /// second's worth (at least one).
    pub fn slice(&self) -> u64 {
        (self.per_second / 100).max(1)
    }

    /// How long to wait, `now`, after `count` instructions in all, so that the run has not
    /// gone faster than its pace since the reckoning started (the first call starts it).
    pub fn wait(&mut self, now: Instant, count: u64) -> Duration {
        let (start, base) = *self.since.get_or_insert((now, count));
        let ran = count.saturating_sub(base);
        let due = start + Duration::from_secs_f64(ran as f64 / self.per_second as f64);
        due.saturating_duration_since(now)
    }

    /// The run waited for something else until `now`, at `count`: the pace is reckoned from
    /// here, with nothing to catch up.
    pub fn restart(&mut self, now: Instant, count: u64) {
        self.since = Some((now, count));
    }

    /// Milliseconds that `count` instructions take at this pace: the virtual clock of a paced
    /// run moves by this much.
    pub fn millis(&self, count: u64) -> i64 {
        (u128::from(count) * 1000 / u128::from(self.per_second)) as i64
    }
}

/// Reads a pace as `--speed` and the DAP launch's `speed` take it: a number of instructions a
/// second, with `k` (thousand) or `M` (million) after it, a fraction allowed before the suffix
/// (`2M`, `1.5M`, `500k`, `30000`).
pub fn parse_speed(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'M' | 'm')) => (&t[..i], 1e6),
        _ => (t, 1.0),
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| {
            format!("'{text}' is no speed: give instructions a second, like 2M, 500k or 30000")
        })?;
    let per_second = (value * scale).round();
    if !(1.0..=1e12).contains(&per_second) {
        return Err(format!(
            "'{text}' is no speed: give 1 to 1000000M instructions a second"
        ));
    }
    Ok(per_second as u64)
}

/// A pace as people read it: `2 M`, `1.5 M`, `500 k`, `30000` instructions a second.
pub fn describe(per_second: u64) -> String {
    let short = |value: f64, unit: &str| {
        let text = format!("{value:.1}");
        format!("{} {unit}", text.trim_end_matches(".0"))
    };
    if per_second >= 1_000_000 {
        short(per_second as f64 / 1e6, "M")
    } else if per_second >= 10_000 {
        short(per_second as f64 / 1e3, "k")
    } else {
        per_second.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_read_with_their_suffixes() {
        assert_eq!(parse_speed("2M"), Ok(2_000_000));
        assert_eq!(parse_speed("1.5m"), Ok(1_500_000));
        assert_eq!(parse_speed("500k"), Ok(500_000));
        assert_eq!(parse_speed(" 30000 "), Ok(30_000));
        for bad in ["", "fast", "0", "-3M", "1e20", "M"] {
            assert!(parse_speed(bad).is_err(), "{bad}");
        }
        assert_eq!(describe(2_000_000), "2 M");
        assert_eq!(describe(1_500_000), "1.5 M");
        assert_eq!(describe(500_000), "500 k");
        assert_eq!(describe(3_000), "3000");
    }

    #[test]
    fn the_pace_waits_only_when_the_run_is_ahead() {
        let t0 = Instant::now();
        let mut pace = Pace::new(1_000_000);
        assert_eq!(pace.slice(), 10_000);
        assert_eq!(
            pace.wait(t0, 0),
            Duration::ZERO,
            "the first call starts the reckoning"
        );
        // 10,000 instructions in 1 ms: 9 ms ahead of a million a second.
        assert_eq!(
            pace.wait(t0 + Duration::from_millis(1), 10_000),
            Duration::from_millis(9)
        );
        // Behind: no wait.
        assert_eq!(
            pace.wait(t0 + Duration::from_millis(50), 20_000),
            Duration::ZERO
        );
        // After a wait on something else, no catching up: the next slice waits its 10 ms.
        pace.restart(t0 + Duration::from_secs(5), 20_000);
        assert_eq!(
            pace.wait(t0 + Duration::from_secs(5), 30_000),
            Duration::from_millis(10)
        );
        assert_eq!(pace.millis(2_500_000), 2_500);
        assert_eq!(Pace::new(3).millis(1), 333);
    }
}
