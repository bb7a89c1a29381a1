//! The clock the machines and sessions read: std's [`Instant`] and [`SystemTime`] on every
//! host but the browser. On wasm32-unknown-unknown std has no clock (its `now()` panics), so
//! the web-time crate stands in with the same API over `performance.now()` and `Date.now()`;
//! elsewhere web-time re-exports std's types, so native code sees no difference.

pub use web_time::{Instant, SystemTime, UNIX_EPOCH};
