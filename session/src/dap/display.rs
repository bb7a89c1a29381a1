//! The program's display and keyboard for the IDE: frames go to the client as `asmdbgDisplay`
//! custom events, keys come back as `asmdbgKey` custom requests.
//!
//! A frame is sent when the client has not seen it: right after a launch (the first frame, which
//! tells the client that the program has a display), after every stop and every change the
//! user made (so the panel follows stepping back and forward, `goto` and `restart`), and while
//! the program runs at most [`FRAME_INTERVAL`] apart, only when it changed.
//!
//! The event's body: `width` and `height` in units, `unitWidth` and `unitHeight` in screen
//! pixels, and `pixels`, the units row-major as 3 bytes each (red, green, blue) in base64.

use std::time::Duration;

use asmdbg_core::clock::Instant;
use asmdbg_core::display::Frame;
use serde_json::Value;

use super::protocol::{arguments, body, AsmdbgDisplayBody, AsmdbgKeyArguments};
use super::wire::base64;

/// The custom event that carries a frame.
pub const DISPLAY_EVENT: &str = "asmdbgDisplay";
/// The custom request that presses keys: `{"key": 97}` or `{"text": "wasd"}`.
pub const KEY_REQUEST: &str = "asmdbgKey";
/// The custom request that answers the current frame (a panel opened late asks for it).
pub const FRAME_REQUEST: &str = "asmdbgFrame";
/// While the program runs, frames go out at most this often (about 30 a second).
pub const FRAME_INTERVAL: Duration = Duration::from_millis(33);
/// Keys one request may press.
pub const MAX_KEYS_PER_REQUEST: usize = 4096;

/// A frame as the event's (and the `asmdbgFrame` response's) body.
pub fn frame_body(frame: &Frame) -> Value {
    let mut rgb = Vec::with_capacity(frame.pixels.len() * 3);
    for &c in &frame.pixels {
        rgb.extend_from_slice(&[(c >> 16) as u8, (c >> 8) as u8, c as u8]);
    }
    body(&AsmdbgDisplayBody {
        width: frame.width,
        height: frame.height,
        unit_width: frame.unit_width,
        unit_height: frame.unit_height,
        pixels: base64(&rgb),
    })
}

/// The keys an `asmdbgKey` request presses: `key`, a byte (a character code 0-255), or
/// `text`, its characters (each one byte: ASCII or Latin-1), in order.
pub fn keys_of(args: &Value) -> Result<Vec<u8>, String> {
    let args: AsmdbgKeyArguments = arguments(KEY_REQUEST, args)?;
    let keys = match (args.key, &args.text) {
        (Some(key), None) => vec![key],
        (None, Some(text)) => text
            .chars()
            .map(|c| {
                u8::try_from(u32::from(c)).map_err(|_| {
                    format!("asmdbgKey: {c:?} is not a key of the machine's keyboard (one byte: ASCII or Latin-1)")
                })
            })
            .collect::<Result<Vec<u8>, String>>()?,
        (Some(_), Some(_)) => {
            return Err("asmdbgKey takes `key` or `text`, not both".to_string());
        }
        (None, None) => {
            return Err(
                "asmdbgKey needs `key` (a character code) or `text` (the keys as a string)"
                    .to_string(),
            )
        }
    };
    if keys.len() > MAX_KEYS_PER_REQUEST {
        return Err(format!(
            "asmdbgKey: {} keys at once; at most {MAX_KEYS_PER_REQUEST}",
            keys.len()
        ));
    }
    Ok(keys)
}

/// What the client was last sent, and when frames of a running program are due.
#[derive(Debug, Default)]
pub struct DisplayFeed {
    /// The frame the client has.
    shown: Option<Frame>,
    /// The program ran since the frame was last looked at.
    dirty: bool,
    /// The next frame of a running program goes out no earlier than this.
    next_due: Option<Instant>,
}

impl DisplayFeed {
    /// The body of an event for `frame` when the client has not seen it (or `always`).
    pub fn update(&mut self, frame: Option<Frame>, always: bool) -> Option<Value> {
        let frame = frame?;
        if !always && self.shown.as_ref() == Some(&frame) {
            return None;
        }
        let body = frame_body(&frame);
        self.shown = Some(frame);
        Some(body)
    }

    /// The program ran a burst: its frame may have changed.
    pub fn ran(&mut self) {
        self.dirty = true;
    }

    /// Whether a running program's frame should be looked at now; otherwise when, if the
    /// program ran since the last look.
    pub fn due(&mut self, now: Instant) -> Result<(), Option<Instant>> {
        // A program without a display never sent a frame.
        if !self.dirty || self.shown.is_none() {
            return Err(None);
        }
        match self.next_due {
            Some(due) if due > now => Err(Some(due)),
            _ => {
                self.dirty = false;
                self.next_due = Some(now + FRAME_INTERVAL);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::wire::unbase64;
    use serde_json::json;

    #[test]
    fn a_frame_is_rgb_bytes_in_base64() {
        let mut frame = Frame::filled(2, 1, 0);
        frame.pixels[0] = 0xf8_00_00;
        frame.pixels[1] = 0x01_02_03;
        frame.unit_width = 8;
        frame.unit_height = 4;
        let body = frame_body(&frame);
        assert_eq!(body["width"], 2);
        assert_eq!(body["height"], 1);
        assert_eq!(body["unitWidth"], 8);
        assert_eq!(body["unitHeight"], 4);
        let rgb = unbase64(body["pixels"].as_str().unwrap()).unwrap();
        assert_eq!(rgb, [0xf8, 0, 0, 1, 2, 3]);
    }

    #[test]
    fn keys_come_as_a_code_or_as_text() {
        assert_eq!(keys_of(&json!({"key": 97})), Ok(vec![b'a']));
        assert_eq!(keys_of(&json!({"text": "w\n"})), Ok(vec![b'w', b'\n']));
        for bad in [
            json!({"key": 256}),
            json!({"key": -1}),
            json!({"key": "a"}),
            json!({"text": 5}),
            json!({"text": "\u{263a}"}),
            json!({}),
            json!({"key": 1, "text": "a"}),
        ] {
            let err = keys_of(&bad).unwrap_err();
            assert!(err.starts_with("asmdbgKey"), "{bad}: {err}");
        }
    }

    #[test]
    fn only_changed_frames_go_out_and_running_ones_at_most_every_interval() {
        let mut feed = DisplayFeed::default();
        let frame = Frame::filled(1, 1, 5);
        assert!(feed.update(Some(frame.clone()), false).is_some());
        assert!(feed.update(Some(frame.clone()), false).is_none());
        assert!(feed.update(Some(frame.clone()), true).is_some());
        assert!(feed.update(None, true).is_none());
        let t0 = Instant::now();
        let mut blind = DisplayFeed::default();
        blind.ran();
        assert_eq!(blind.due(t0), Err(None), "no display");
        assert_eq!(feed.due(t0), Err(None), "nothing ran");
        feed.ran();
        assert_eq!(feed.due(t0), Ok(()));
        feed.ran();
        assert_eq!(feed.due(t0), Err(Some(t0 + FRAME_INTERVAL)));
        assert_eq!(feed.due(t0 + FRAME_INTERVAL), Ok(()));
    }
}
