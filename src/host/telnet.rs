//! The display's TCP channel tells the viewer's window size the way telnet does (RFC 1073,
//! "Negotiate About Window Size"): the server asks with `IAC DO NAWS` as its first bytes, the
//! viewer (`asmdbg console`, or any telnet client) answers `IAC WILL NAWS` and sends its size
//! as `IAC SB NAWS W W H H IAC SE`, again whenever the window changes. Only the display's
//! channel speaks it; the guest's console passes bytes unchanged.

const IAC: u8 = 255;
const DO: u8 = 253;
const WILL: u8 = 251;
const SB: u8 = 250;
const SE: u8 = 240;
const NAWS: u8 = 31;

/// What the display's server sends first.
pub const ASK_SIZE: [u8; 3] = [IAC, DO, NAWS];

/// The viewer's answer to [`ASK_SIZE`] with its size, or a later size alone (`first`: false).
pub fn tell_size((cols, rows): (u16, u16), first: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    if first {
        bytes.extend_from_slice(&[IAC, WILL, NAWS]);
    }
    bytes.extend_from_slice(&[IAC, SB, NAWS]);
    for byte in [cols.to_be_bytes(), rows.to_be_bytes()].concat() {
        bytes.push(byte);
        if byte == IAC {
            bytes.push(IAC);
        }
    }
    bytes.extend_from_slice(&[IAC, SE]);
    bytes
}

/// What the viewer sent, read as it arrives (a command may be cut between two reads).
#[derive(Debug, Default)]
pub struct ViewerBytes {
    state: State,
}

#[derive(Debug, Default, Clone)]
enum State {
    #[default]
    Data,
    /// After IAC.
    Command,
    /// After IAC WILL/WONT/DO/DONT: the option byte is skipped.
    Option,
    /// Inside IAC SB ... IAC SE: the bytes so far, and whether the last one was IAC.
    Sub(Vec<u8>, bool),
}

impl ViewerBytes {
    /// The keys among `bytes`, and the last size told in them.
    pub fn take(&mut self, bytes: &[u8]) -> (Vec<u8>, Option<(u16, u16)>) {
        let mut keys = Vec::new();
        let mut size = None;
        for &byte in bytes {
            self.state = match std::mem::take(&mut self.state) {
                State::Data if byte == IAC => State::Command,
                State::Data => {
                    keys.push(byte);
                    State::Data
                }
                State::Command => match byte {
                    IAC => {
                        keys.push(IAC);
                        State::Data
                    }
                    SB => State::Sub(Vec::new(), false),
                    251..=254 => State::Option,
                    _ => State::Data,
                },
                State::Option => State::Data,
                State::Sub(body, true) if byte == SE => {
                    if let [NAWS, c1, c0, r1, r0] = body[..] {
                        size = Some((u16::from_be_bytes([c1, c0]), u16::from_be_bytes([r1, r0])));
                    }
                    State::Data
                }
                // IAC IAC inside: one 255 of the size.
                State::Sub(mut body, true) => {
                    body.push(byte);
                    State::Sub(body, false)
                }
                State::Sub(body, false) if byte == IAC => State::Sub(body, true),
                State::Sub(mut body, false) => {
                    if body.len() < 16 {
                        body.push(byte);
                    }
                    State::Sub(body, false)
                }
            };
        }
        (keys, size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_between_keys_even_when_cut_between_reads() {
        let mut viewer = ViewerBytes::default();
        let told = tell_size((120, 40), true);
        let mut bytes = b"w".to_vec();
        bytes.extend_from_slice(&told);
        bytes.extend_from_slice(b"a\xff\xffd");
        let (first, second) = bytes.split_at(6);
        let (keys, size) = viewer.take(first);
        assert_eq!((keys, size), (b"w".to_vec(), None));
        let (keys, size) = viewer.take(second);
        assert_eq!(keys, b"a\xffd");
        assert_eq!(size, Some((120, 40)));
    }

    #[test]
    fn a_size_with_a_255_byte_is_doubled_and_read_back() {
        let mut viewer = ViewerBytes::default();
        let (keys, size) = viewer.take(&tell_size((255, 511), false));
        assert!(keys.is_empty());
        assert_eq!(size, Some((255, 511)));
    }
}
