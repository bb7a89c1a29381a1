//! Screens and keyboards of graphical programs: the frame a machine's display shows, how a
//! MARS Bitmap Display is configured (flag or the program's header comment), PennSim's colour
//! words, and a schedule of key presses (`--keys FILE`).
//!
//! A display is a view of memory: MARS's Bitmap Display and PennSim's video display draw the
//! words the program stores, so a frame is read from the machine's memory when asked for and
//! time travel, watchpoints and snapshots cover it with nothing of its own. The frame is a
//! plain value; the terminal, the IDE panel and PNG files draw it.

use std::fmt;

use crate::event::{RunOutcome, StopEvent};

/// What a display shows: `width × height` units (MARS's units, PennSim's pixels), each a
/// `0x00RRGGBB` colour, row-major; each unit is `unit_width × unit_height` screen pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub unit_width: u32,
    pub unit_height: u32,
    pub pixels: Vec<u32>,
}

impl Frame {
    /// A frame of one colour.
    pub fn filled(width: u32, height: u32, colour: u32) -> Frame {
        Frame {
            width,
            height,
            unit_width: 1,
            unit_height: 1,
            pixels: vec![colour; (width * height) as usize],
        }
    }

    /// The colour of unit (`x`, `y`).
    pub fn at(&self, x: u32, y: u32) -> u32 {
        self.pixels[(y * self.width + x) as usize]
    }

    /// The frame as a PNG at screen size (each unit `unit_width × unit_height` pixels, as the
    /// simulator's window shows it), 8-bit RGB.
    pub fn to_png(&self) -> Vec<u8> {
        let (w, h) = (self.width * self.unit_width, self.height * self.unit_height);
        let mut rgb = Vec::with_capacity((w * h * 3) as usize);
        for y in 0..h {
            for x in 0..w {
                let c = self.at(x / self.unit_width, y / self.unit_height);
                rgb.extend_from_slice(&[(c >> 16) as u8, (c >> 8) as u8, c as u8]);
            }
        }
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, w, h);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            // Writing into a Vec with a valid header cannot fail.
            let mut writer = encoder.write_header().expect("PNG header into memory");
            writer.write_image_data(&rgb).expect("PNG data into memory");
        }
        out
    }

    /// Writes [`Frame::to_png`] to `path`.
    pub fn write_png(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_png())
    }
}

/// Decodes a PNG (8-bit RGB or RGBA) into its pixels as `0x00RRGGBB`, row-major, with its
/// size: what tests and graders compare a frame against.
pub fn read_png(bytes: &[u8]) -> Result<(u32, u32, Vec<u32>), String> {
    let decoder = png::Decoder::new(bytes);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let channels = match (info.color_type, info.bit_depth) {
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        (kind, depth) => {
            return Err(format!(
                "a {kind:?} PNG of depth {depth:?}: expected 8-bit RGB"
            ))
        }
    };
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| (p[0] as u32) << 16 | (p[1] as u32) << 8 | p[2] as u32)
        .collect();
    Ok((info.width, info.height, pixels))
}

/// PennSim's video word `0RRRRRGGGGGBBBBB` as `0x00RRGGBB`: each 5-bit channel shifted to the
/// top of its byte, as PennSim's display builds its Java colour (bit 15 is ignored).
pub fn pennsim_rgb(word: u16) -> u32 {
    let r = ((word >> 10) & 0x1f) as u32;
    let g = ((word >> 5) & 0x1f) as u32;
    let b = (word & 0x1f) as u32;
    (r << 19) | (g << 11) | (b << 3)
}

/// The base addresses MARS's Bitmap Display offers, with the names its menu and
/// `--bitmap base=` use.
pub const BITMAP_BASES: [(&str, u32); 5] = [
    ("global", 0x1000_0000),
    ("gp", 0x1000_8000),
    ("data", 0x1001_0000),
    ("heap", 0x1004_0000),
    ("mmio", 0xffff_0000),
];

/// A MARS Bitmap Display's configuration: its size in screen pixels, its unit (the pixels one
/// word covers) and the address of its first word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitmapConfig {
    pub unit_width: u32,
    pub unit_height: u32,
    pub display_width: u32,
    pub display_height: u32,
    pub base: u32,
}

/// The sizes MARS's Bitmap Display offers.
const UNITS: [u32; 6] = [1, 2, 4, 8, 16, 32];
const DISPLAY_SIZES: [u32; 5] = [64, 128, 256, 512, 1024];

impl Default for BitmapConfig {
    /// MARS's defaults: unit 1, 512 × 256 pixels, base at static data.
    fn default() -> Self {
        BitmapConfig {
            unit_width: 1,
            unit_height: 1,
            display_width: 512,
            display_height: 256,
            base: 0x1001_0000,
        }
    }
}

impl BitmapConfig {
    /// Units across and down.
    pub fn units(&self) -> (u32, u32) {
        (
            self.display_width / self.unit_width,
            self.display_height / self.unit_height,
        )
    }

    /// Bytes of memory the display shows, one word per unit.
    pub fn bytes(&self) -> u32 {
        let (w, h) = self.units();
        4 * w * h
    }

    /// Parses `WIDTHxHEIGHT,unit=U,base=ADDR` (the flag's value): `unit=UxV` for units that
    /// are not square; `base` a number or one of [`BITMAP_BASES`]' names. Keys may come in any
    /// order; the size may be left out (512x256), like the other keys.
    pub fn parse(text: &str) -> Result<BitmapConfig, String> {
        let mut config = BitmapConfig::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some(("unit", value)) => {
                    let (w, h) = pair(value)
                        .ok_or_else(|| format!("unit={value}: expected a size such as 8 or 8x4"))?;
                    (config.unit_width, config.unit_height) = (w, h);
                }
                Some(("base", value)) => config.base = parse_base(value)?,
                Some((key, _)) => {
                    return Err(format!(
                        "unknown key '{key}' in --bitmap: expected WIDTHxHEIGHT, unit= and base="
                    ))
                }
                None => {
                    let (w, h) = pair(part)
                        .filter(|_| part.contains(['x', 'X']))
                        .ok_or_else(|| format!("'{part}' is not a display size such as 512x256"))?;
                    (config.display_width, config.display_height) = (w, h);
                }
            }
        }
        config.check()?;
        Ok(config)
    }

    /// MARS's limits: units of 1-32 pixels, displays of 64-1024, a whole number of units.
    fn check(&self) -> Result<(), String> {
        for (what, value, allowed) in [
            ("unit width", self.unit_width, &UNITS[..]),
            ("unit height", self.unit_height, &UNITS[..]),
            ("display width", self.display_width, &DISPLAY_SIZES[..]),
            ("display height", self.display_height, &DISPLAY_SIZES[..]),
        ] {
            if !allowed.contains(&value) {
                let list: Vec<String> = allowed.iter().map(u32::to_string).collect();
                return Err(format!(
                    "{what} {value} is not one MARS's Bitmap Display offers ({})",
                    list.join(", ")
                ));
            }
        }
        if self.unit_width > self.display_width || self.unit_height > self.display_height {
            return Err("the unit is larger than the display".to_string());
        }
        Ok(())
    }

    /// The configuration a program's header comment states, in the spellings public MARS games
    /// use (only comment text counts, after `#`; case does not matter):
    /// - a line a setting, with `:` or `=` or nothing between name and value: `Unit width in
    ///   pixels: 8` (the CSC258 template), `Unit Width: 8`, `UNIT WIDTH = 8`, `Display Height in
    ///   Pixels: 512`, `Base Address for Display: 0x10008000 ($gp)`, `Base address 0x10040000
    ///   (heap)`, `BASE ADDRESS = 0x10010000(STATIC DATA)`;
    /// - several on one line: `Bitmap display settings: Unit 32x32, Display 128x128 pixels`,
    ///   `unit 4 x 4, display 1024 x 1024`.
    ///
    /// `None` when no line names a display setting. Settings not stated keep MARS's defaults.
    pub fn from_header(source: &str) -> Option<Result<BitmapConfig, String>> {
        let mut config = BitmapConfig::default();
        let mut found = false;
        for line in source.lines() {
            let Some((_, comment)) = line.split_once('#') else {
                continue;
            };
            let lower = comment
                .trim_matches(|c: char| c == '#' || c.is_whitespace())
                .to_ascii_lowercase();
            if let Some(base) = lower.find("base address") {
                // `for display` and a separator may come between the name and the value.
                let value = lower[base + "base address".len()..].trim_start();
                let value = value.strip_prefix("for display").unwrap_or(value);
                let value = value.trim_start_matches([':', '=', '-', ' ', '\t']);
                match header_base(value) {
                    Some(base) => {
                        config.base = base;
                        found = true;
                    }
                    None => {
                        return Some(Err(format!(
                            "the header's base address '{}' is not one the Bitmap Display offers",
                            lower[base + "base address".len()..]
                                .trim_start_matches([':', '=', ' '])
                                .trim()
                        )))
                    }
                }
                continue;
            }
            for (name, width, height) in [
                ("unit", &mut config.unit_width, &mut config.unit_height),
                (
                    "display",
                    &mut config.display_width,
                    &mut config.display_height,
                ),
            ] {
                // `unit width ... 8`, `unit height ... 8`.
                for (axis, slot) in [("width", &mut *width), ("height", &mut *height)] {
                    let key = format!("{name} {axis}");
                    if let Some(n) = lower
                        .find(&key)
                        .and_then(|at| first_number(&lower[at + key.len()..]))
                    {
                        *slot = n;
                        found = true;
                    }
                }
                // `unit 32x32`, `display 128 x 128`.
                if let Some((w, h)) = sized(&lower, name) {
                    *width = w;
                    *height = h;
                    found = true;
                }
            }
        }
        found.then(|| config.check().map(|()| config))
    }
}

/// `NAME W x H` in `text` (a word then two numbers joined by `x`): the numbers.
fn sized(text: &str, name: &str) -> Option<(u32, u32)> {
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let after = rest[at + name.len()..].trim_start();
        let digits = |t: &str| t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let n = digits(after);
        if n > 0 {
            let tail = after[n..].trim_start();
            if let Some(tail) = tail.strip_prefix('x') {
                let tail = tail.trim_start();
                let m = digits(tail);
                if m > 0 {
                    return Some((after[..n].parse().ok()?, tail[..m].parse().ok()?));
                }
            }
        }
        rest = &rest[at + name.len()..];
    }
    None
}

impl fmt::Display for BitmapConfig {
    /// The flag's own syntax: `512x256,unit=8,base=0x10008000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{},unit=", self.display_width, self.display_height)?;
        if self.unit_width == self.unit_height {
            write!(f, "{}", self.unit_width)?;
        } else {
            write!(f, "{}x{}", self.unit_width, self.unit_height)?;
        }
        write!(f, ",base={:#010x}", self.base)
    }
}

/// `8` or `8x4`.
fn pair(text: &str) -> Option<(u32, u32)> {
    let text = text.trim();
    match text.split_once(['x', 'X']) {
        Some((w, h)) => Some((w.trim().parse().ok()?, h.trim().parse().ok()?)),
        None => {
            let n = text.parse().ok()?;
            Some((n, n))
        }
    }
}

fn parse_base(value: &str) -> Result<u32, String> {
    let value = value.trim();
    if let Some(&(_, addr)) = BITMAP_BASES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(value.trim_start_matches('$')))
    {
        return Ok(addr);
    }
    let addr = crate::isa::parse_number(value)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            format!("base={value}: expected an address or gp, data, heap, global, mmio")
        })?;
    if BITMAP_BASES.iter().any(|&(_, a)| a == addr) {
        Ok(addr)
    } else {
        Err(format!(
            "base={value}: MARS's Bitmap Display starts at 0x10000000, 0x10008000 ($gp), \
             0x10010000 (data), 0x10040000 (heap) or 0xffff0000 (MMIO)"
        ))
    }
}

/// A header's base: the first hexadecimal number, or a name (`$gp`, `static data`, `heap`).
fn header_base(value: &str) -> Option<u32> {
    let hex = value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|word| word.strip_prefix("0x"))
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    if let Some(addr) = hex {
        return BITMAP_BASES.iter().any(|&(_, a)| a == addr).then_some(addr);
    }
    if value.contains("gp") {
        Some(0x1000_8000)
    } else if value.contains("heap") {
        Some(0x1004_0000)
    } else if value.contains("mmio") || value.contains("memory map") {
        Some(0xffff_0000)
    } else if value.contains("static") || value.contains("data") {
        Some(0x1001_0000)
    } else if value.contains("global") {
        Some(0x1000_0000)
    } else {
        None
    }
}

fn first_number(text: &str) -> Option<u32> {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .and_then(|w| w.parse().ok())
}

/// When a machine looks (again) for a display or keyboard its program uses but nothing
/// configured, to say once which flag would show it ([`crate::Machine::take_advice`]): every
/// [`Unconfigured::EVERY`] instructions until it has said so.
#[derive(Debug, Clone, Default)]
pub struct Unconfigured {
    next_look: u64,
    said: bool,
}

impl Unconfigured {
    /// Four million instructions: a few looks a second at full speed, each a few thousand
    /// words of memory, so that looking costs nothing measurable.
    pub const EVERY: u64 = 1 << 22;

    /// Whether to look now, at `count` instructions.
    pub fn due(&mut self, count: u64) -> bool {
        if self.said || count < self.next_look {
            return false;
        }
        self.next_look = count + Self::EVERY;
        true
    }

    /// The advice was given: never again.
    pub fn said(&mut self) -> bool {
        self.said = true;
        true
    }
}

/// One key press of a `--keys` schedule: `key` arrives once `at` instructions have run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduledKey {
    pub at: u64,
    pub key: u8,
}

/// A bad line of a `--keys` file, with its line number (from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct KeysError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Parses a `--keys` file: one `COUNT KEY` per line, COUNT instructions (non-decreasing), KEY
/// one printable non-space character or `0xNN`; empty lines and lines starting with `#` are
/// skipped.
pub fn parse_keys(file: &str, text: &str) -> Result<Vec<ScheduledKey>, KeysError> {
    let mut keys: Vec<ScheduledKey> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let error = |message: String| KeysError {
            file: file.to_string(),
            line: index + 1,
            message,
        };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(count), Some(key), None) = (words.next(), words.next(), words.next()) else {
            return Err(error(format!(
                "'{line}': expected COUNT KEY (a number of instructions, then one character or 0xNN)"
            )));
        };
        let at: u64 = count
            .parse()
            .map_err(|_| error(format!("'{count}' is not a number of instructions")))?;
        let key = if let Some(hex) = key.strip_prefix("0x").or_else(|| key.strip_prefix("0X")) {
            u8::from_str_radix(hex, 16)
                .map_err(|_| error(format!("'{key}' is not a byte 0x00-0xff")))?
        } else {
            match key.as_bytes() {
                [b] if b.is_ascii_graphic() => *b,
                _ => {
                    return Err(error(format!(
                        "'{key}' is not one printable character; write other keys as 0xNN (space 0x20, Enter 0x0a)"
                    )))
                }
            }
        };
        if let Some(last) = keys.last() {
            if at < last.at {
                return Err(error(format!(
                    "count {at} comes before the previous line's {}: keep the lines in order",
                    last.at
                )));
            }
        }
        keys.push(ScheduledKey { at, key });
    }
    Ok(keys)
}

/// A `--keys` schedule as a machine runs it: the keys, and how many have been pressed (part
/// of the machine's state, so that time travel presses them again).
#[derive(Debug, Clone, Default)]
pub struct KeyFeed {
    schedule: std::sync::Arc<[ScheduledKey]>,
    /// Keys of the schedule already pressed.
    pub pressed: usize,
}

impl KeyFeed {
    pub fn new(keys: &[ScheduledKey]) -> KeyFeed {
        KeyFeed {
            schedule: keys.into(),
            pressed: 0,
        }
    }

    /// Whether there is a schedule at all.
    pub fn is_empty(&self) -> bool {
        self.schedule.is_empty()
    }

    /// The count at which the next key arrives.
    pub fn next_at(&self) -> Option<u64> {
        self.schedule.get(self.pressed).map(|k| k.at)
    }

    /// The next key if it is due once `count` instructions have run.
    pub fn take_due(&mut self, count: u64) -> Option<u8> {
        let next = self.schedule.get(self.pressed).filter(|k| k.at <= count)?;
        self.pressed += 1;
        Some(next.key)
    }

    /// The next key whenever it is due: for a program that stopped to wait for one.
    pub fn take_next(&mut self) -> Option<u8> {
        let next = self.schedule.get(self.pressed)?;
        self.pressed += 1;
        Some(next.key)
    }
}

/// A machine wrapper that presses the keys of a [`KeyFeed`] at their counts.
pub trait KeyedMachine {
    fn key_feed(&mut self) -> &mut KeyFeed;
    fn key_count(&self) -> u64;
    /// The key arrives on the machine's keyboard device (not logged: the schedule is part of
    /// the machine's options, and its progress part of its state).
    fn press_scheduled(&mut self, key: u8);
    /// The wrapper's run without the schedule.
    fn run_unscheduled(&mut self, budget: u64) -> RunOutcome;

    /// Presses every key due now.
    fn press_due_keys(&mut self) {
        let count = self.key_count();
        while let Some(key) = self.key_feed().take_due(count) {
            self.press_scheduled(key);
        }
    }
}

/// `Machine::run` of a wrapper with a key schedule: each run is cut at the next key's count,
/// where the key is pressed. A program that stops to wait for input before its next key is
/// due gets that key at once (as `--key-every` does).
pub fn run_with_keys<M: KeyedMachine + ?Sized>(machine: &mut M, budget: u64) -> RunOutcome {
    let mut executed = 0;
    loop {
        machine.press_due_keys();
        let mut slice = budget - executed;
        if let Some(at) = machine.key_feed().next_at() {
            slice = slice.min(at.saturating_sub(machine.key_count()).max(1));
        }
        let outcome = machine.run_unscheduled(slice);
        executed += outcome.executed;
        match outcome.stop {
            // Waiting for a key (at once or after polling a while): the next one comes now.
            Some(StopEvent::NeedInput) => match machine.key_feed().take_next() {
                Some(key) => {
                    machine.press_scheduled(key);
                    if executed >= budget {
                        return outcome_of(executed, None);
                    }
                }
                None => return outcome_of(executed, outcome.stop),
            },
            None if executed < budget && outcome.executed > 0 => {}
            stop => {
                machine.press_due_keys();
                return outcome_of(executed, stop);
            }
        }
    }
}

fn outcome_of(executed: u64, stop: Option<StopEvent>) -> RunOutcome {
    RunOutcome { executed, stop }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A machine that polls for a key for `polls` instructions, then stops with NeedInput, and
    /// takes one instruction to read a key it has.
    struct Poller {
        feed: KeyFeed,
        count: u64,
        keys: Vec<u8>,
        read: Vec<u8>,
        polls: u64,
    }

    impl KeyedMachine for Poller {
        fn key_feed(&mut self) -> &mut KeyFeed {
            &mut self.feed
        }
        fn key_count(&self) -> u64 {
            self.count
        }
        fn press_scheduled(&mut self, key: u8) {
            self.keys.push(key);
        }
        fn run_unscheduled(&mut self, budget: u64) -> RunOutcome {
            if let Some(key) = self.keys.pop() {
                self.read.push(key);
                self.count += 1;
                return outcome_of(1, None);
            }
            let n = budget.min(self.polls);
            self.count += n;
            let stop = (n == self.polls).then_some(StopEvent::NeedInput);
            outcome_of(n, stop)
        }
    }

    #[test]
    fn a_program_that_waits_gets_the_next_key_after_polling_a_while() {
        let keys =
            [(10, b'a'), (5000, b'b'), (6000, b'c')].map(|(at, key)| ScheduledKey { at, key });
        let mut m = Poller {
            feed: KeyFeed::new(&keys),
            count: 0,
            keys: Vec::new(),
            read: Vec::new(),
            polls: 2000,
        };
        // One run: each wait (after 2000 polls) takes the next key, until none is left.
        let outcome = run_with_keys(&mut m, 100_000);
        assert_eq!(m.read, b"abc");
        assert_eq!(outcome.stop, Some(StopEvent::NeedInput));
    }

    #[test]
    fn the_flag_names_size_unit_and_base() {
        let c = BitmapConfig::parse("256x256,unit=8,base=gp").unwrap();
        assert_eq!(c.units(), (32, 32));
        assert_eq!(c.base, 0x1000_8000);
        assert_eq!(c.to_string(), "256x256,unit=8,base=0x10008000");
        let c = BitmapConfig::parse("unit=4x8,base=0x10040000").unwrap();
        assert_eq!((c.display_width, c.unit_width, c.unit_height), (512, 4, 8));
        assert_eq!(BitmapConfig::parse("").unwrap(), BitmapConfig::default());
        for base in ["global", "data", "heap", "mmio", "$gp", "0x10010000"] {
            assert!(
                BitmapConfig::parse(&format!("base={base}")).is_ok(),
                "{base}"
            );
        }
    }

    #[test]
    fn the_flag_refuses_what_mars_does_not_offer() {
        for (text, says) in [
            ("512x256,unit=3", "unit width 3 is not one"),
            ("500x256", "display width 500"),
            ("base=0x10000004", "MARS's Bitmap Display starts at"),
            ("colour=red", "unknown key 'colour'"),
            ("big", "'big' is not a display size"),
            ("64x64,unit=32x128", "unit height 128"),
        ] {
            let err = BitmapConfig::parse(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn a_csc258_header_configures_the_display() {
        let header = "\
# Bitmap Display Configuration:
# - Unit width in pixels: 8
# - Unit height in pixels: 8
# - Display width in pixels: 256
# - Display height in pixels: 512
# - Base Address for Display: 0x10008000 ($gp)
.text
";
        let c = BitmapConfig::from_header(header).unwrap().unwrap();
        assert_eq!(c.to_string(), "256x512,unit=8,base=0x10008000");
        assert_eq!(
            BitmapConfig::from_header(".text\nli $v0, 10 # unit: 4\n"),
            None
        );
        let named = "# Base address for display: $gp\n# Unit width in pixels: 4\n";
        let c = BitmapConfig::from_header(named).unwrap().unwrap();
        assert_eq!((c.base, c.unit_width, c.unit_height), (0x1000_8000, 4, 1));
        let bad = "# Unit width in pixels: 7\n";
        assert!(BitmapConfig::from_header(bad).unwrap().is_err());
    }

    /// The headers of public MARS games, as they spell their settings.
    #[test]
    fn the_spellings_of_public_games_headers_configure_the_display() {
        for (header, config) in [
            (
                "# Bitmap display settings:\n# Unit width in pixels: 8\n# Unit Height in pixels: 8\n# Display Width in pixels: 512\n# Display Height in pixels: 512\n# Base address 0x10040000 (heap)\n",
                "512x512,unit=8,base=0x10040000",
            ),
            (
                "# \tBitmap Display Settings:\n#\tUnit Width: 8\n#\tUnit Height: 8\n#\tDisplay Width: 512\n#\tDisplay Height: 512\n#\tBase Address for Display: 0x10008000 ($gp)\n",
                "512x512,unit=8,base=0x10008000",
            ),
            (
                "    ### BITMAP DISPLAY SETTINGS                ###\n    ### UNIT WIDTH = 8                         ###\n    ### UNIT HEIGHT = 8                        ###\n    ### DISPLAY WIDTH = 512                    ###\n    ### DISPLAY HEIGHT = 256                   ###\n    ### BASE ADDRESS = 0x10010000(STATIC DATA) ###\n",
                "512x256,unit=8,base=0x10010000",
            ),
            (
                "# Bitmap display settings: Unit 32x32, Display 128x128 pixels\n",
                "128x128,unit=32,base=0x10010000",
            ),
            (
                "##### Bitmap Display settings: unit 4 x 4, display 1024 x 1024 or\n",
                "1024x1024,unit=4,base=0x10010000",
            ),
            (
                "# Unit Width: 4\n# Unit Height: 4\n# Display Width: 256\n# Display Height: 256\n# Base Address: 0x10010000 (static data)\n",
                "256x256,unit=4,base=0x10010000",
            ),
        ] {
            let got = BitmapConfig::from_header(header).map(|c| c.map(|c| c.to_string()));
            assert_eq!(got, Some(Ok(config.to_string())), "{header}");
        }
        let named = "# Base Address for Display: heap\n";
        assert_eq!(
            BitmapConfig::from_header(named).unwrap().unwrap().base,
            0x1004_0000
        );
        // Words that only look like settings are not.
        assert_eq!(
            BitmapConfig::from_header("# update the display 3 times\n"),
            None
        );
        assert_eq!(
            BitmapConfig::from_header("li $t0, 8 # unit of work\n"),
            None
        );
    }

    #[test]
    fn pennsim_colours_take_five_bits_per_channel() {
        assert_eq!(pennsim_rgb(0x7c00), 0xf8_00_00);
        assert_eq!(pennsim_rgb(0x03e0), 0x00_f8_00);
        assert_eq!(pennsim_rgb(0x001f), 0x00_00_f8);
        assert_eq!(pennsim_rgb(0x7fff), 0xf8_f8_f8);
        assert_eq!(pennsim_rgb(0xffff), 0xf8_f8_f8);
        assert_eq!(pennsim_rgb(0x0000), 0);
    }

    #[test]
    fn a_frame_round_trips_through_png_at_screen_size() {
        let mut frame = Frame::filled(2, 1, 0x112233);
        frame.pixels[1] = 0xff0080;
        frame.unit_width = 2;
        frame.unit_height = 3;
        let (w, h, pixels) = read_png(&frame.to_png()).unwrap();
        assert_eq!((w, h), (4, 3));
        assert_eq!(pixels[..4], [0x112233, 0x112233, 0xff0080, 0xff0080]);
        assert_eq!(pixels[8..], [0x112233, 0x112233, 0xff0080, 0xff0080]);
        assert!(read_png(b"not a png").is_err());
    }

    #[test]
    fn a_keys_file_is_counts_and_keys() {
        let keys = parse_keys("k", "# moves\n100 w\n\n250 0x20\n250 0x0a\n").unwrap();
        assert_eq!(
            keys,
            [
                ScheduledKey { at: 100, key: b'w' },
                ScheduledKey { at: 250, key: b' ' },
                ScheduledKey {
                    at: 250,
                    key: b'\n'
                }
            ]
        );
        for (text, says) in [
            ("100", "expected COUNT KEY"),
            ("x w", "'x' is not a number"),
            ("5 ab", "not one printable character"),
            ("5 0x100", "not a byte"),
            ("9 a\n5 b", "k:2: count 5 comes before"),
        ] {
            let err = parse_keys("k", text).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
