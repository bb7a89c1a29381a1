//! Packet framing of the byte stream from gdb, before gdbstub sees it.
//!
//! gdbstub ends its state machine on any byte outside a packet other than `$`, `+` and 0x03, on
//! a bad checksum, on a `-` and on a packet longer than its buffer. A debugger on a noisy line or
//! a client that sends garbage must keep its session instead, so the [`Framer`] passes on only
//! whole, checksum-valid packets and interrupts, and answers the rest itself.

/// gdb may send and receive packets this large (qSupported PacketSize).
pub const PACKET_SIZE: usize = 0x4000;

/// What arrives from gdb after framing: a checksum-valid packet or an interrupt for gdbstub, or
/// an answer the session gives itself.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// `$...#xx` with a correct checksum, or the single byte 0x03.
    Feed(Vec<u8>),
    /// A packet that cannot be served (bad checksum, too long): this goes back to gdb.
    Reply(Vec<u8>),
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum FrameState {
    #[default]
    Between,
    Body,
    Checksum1,
    Checksum2,
}

/// Frames the byte stream from gdb before gdbstub sees it. gdbstub ends the session on any
/// byte outside a packet other than `$`, `+` and 0x03, on a bad checksum, on a `-` and on a
/// packet longer than its buffer; a debugger on a noisy line or a client that sends garbage
/// must keep its session instead. Acks are dropped here (asmdbg never resends).
#[derive(Debug, Default)]
pub struct Framer {
    state: FrameState,
    packet: Vec<u8>,
    /// The packet grew past the buffer: its bytes are skipped up to its checksum.
    oversized: bool,
    /// gdb switched acknowledgements off (replayed when gdbstub is restarted).
    pub no_ack: bool,
    /// Bytes dropped, for the log.
    pub dropped: u64,
    /// Packets gdbstub failed on in this connection.
    pub(crate) recoveries: u32,
}

/// `-`: the packet arrived damaged; in acknowledgement mode gdb sends it again.
const NACK: &[u8] = b"-";

impl Framer {
    /// Splits `bytes` into frames, keeping an unfinished packet for the next call.
    pub fn push(&mut self, bytes: &[u8], frames: &mut Vec<Frame>) {
        for &b in bytes {
            match self.state {
                FrameState::Between => match b {
                    b'$' => {
                        self.packet.clear();
                        self.packet.push(b);
                        self.oversized = false;
                        self.state = FrameState::Body;
                    }
                    0x03 => frames.push(Frame::Feed(vec![b])),
                    b'+' => {}
                    _ => self.dropped += 1,
                },
                FrameState::Body => {
                    if b == b'#' {
                        self.state = FrameState::Checksum1;
                    }
                    self.keep(b);
                }
                FrameState::Checksum1 => {
                    self.keep(b);
                    self.state = FrameState::Checksum2;
                }
                FrameState::Checksum2 => {
                    self.keep(b);
                    self.state = FrameState::Between;
                    frames.push(self.finish());
                }
            }
        }
    }

    fn keep(&mut self, b: u8) {
        // Room for the checksum gdbstub's buffer must also hold.
        if self.packet.len() < PACKET_SIZE {
            self.packet.push(b);
        } else {
            self.oversized = true;
        }
    }

    fn finish(&mut self) -> Frame {
        let packet = std::mem::take(&mut self.packet);
        if self.oversized {
            self.dropped += packet.len() as u64;
            log::warn!("gdb sent a packet longer than {PACKET_SIZE} bytes; answered E01");
            return Frame::Reply(rsp_packet("E01").into_bytes());
        }
        let n = packet.len();
        let payload = &packet[1..n - 3];
        let sum = payload.iter().fold(0u8, |a, &b| a.wrapping_add(b));
        let given = std::str::from_utf8(&packet[n - 2..])
            .ok()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if given != Some(sum) {
            self.dropped += n as u64;
            if self.no_ack {
                // Without acknowledgements gdb will not resend: answer the packet it thinks it
                // sent with an error instead of a `-` it does not expect.
                log::warn!("gdb sent a packet with a bad checksum; answered E01");
                return Frame::Reply(rsp_packet("E01").into_bytes());
            }
            log::warn!("gdb sent a packet with a bad checksum; asked for it again");
            return Frame::Reply(NACK.to_vec());
        }
        if payload == b"QStartNoAckMode" {
            self.no_ack = true;
        }
        Frame::Feed(packet)
    }
}

/// Whether `bytes` hold a whole `$...#xx` packet.
pub(crate) fn has_packet(bytes: &[u8]) -> bool {
    let Some(start) = bytes.iter().position(|&b| b == b'$') else {
        return false;
    };
    bytes[start..]
        .iter()
        .position(|&b| b == b'#')
        .is_some_and(|hash| start + hash + 3 <= bytes.len())
}

/// `$payload#checksum`.
pub fn rsp_packet(payload: &str) -> String {
    let sum = payload.bytes().fold(0u8, |a, b| a.wrapping_add(b));
    format!("${payload}#{sum:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(framer: &mut Framer, bytes: &[u8]) -> Vec<Frame> {
        let mut out = Vec::new();
        framer.push(bytes, &mut out);
        out
    }

    #[test]
    fn framer_passes_valid_packets_and_interrupts_across_reads() {
        let mut f = Framer::default();
        assert_eq!(frames(&mut f, b"+$g#6"), vec![]);
        assert_eq!(
            frames(&mut f, b"7\x03$?#3f"),
            vec![
                Frame::Feed(b"$g#67".to_vec()),
                Frame::Feed(vec![0x03]),
                Frame::Feed(b"$?#3f".to_vec()),
            ]
        );
        assert_eq!(f.dropped, 0);
        assert!(!f.no_ack);
        let noack = rsp_packet("QStartNoAckMode");
        assert_eq!(
            frames(&mut f, noack.as_bytes()),
            vec![Frame::Feed(noack.into_bytes())]
        );
        assert!(f.no_ack);
    }

    #[test]
    fn framer_drops_garbage_and_nacks_bad_checksums() {
        let mut f = Framer::default();
        assert_eq!(
            frames(&mut f, b"hello-\xff$g#00$g#zz$m0,4#fd"),
            vec![
                Frame::Reply(b"-".to_vec()),
                Frame::Reply(b"-".to_vec()),
                Frame::Feed(b"$m0,4#fd".to_vec()),
            ]
        );
        assert_eq!(f.dropped, 7 + 5 + 5);
    }

    #[test]
    fn framer_answers_bad_checksums_with_an_error_once_acks_are_off() {
        let mut f = Framer::default();
        let _ = frames(&mut f, b"$QStartNoAckMode#b0");
        assert_eq!(
            frames(&mut f, b"$g#00"),
            vec![Frame::Reply(rsp_packet("E01").into_bytes())]
        );
    }

    #[test]
    fn framer_answers_an_oversized_packet_with_an_error_and_goes_on() {
        let mut f = Framer::default();
        let mut huge = vec![b'$'];
        huge.extend(std::iter::repeat(b'M').take(3 * PACKET_SIZE));
        huge.extend_from_slice(b"#00$g#67");
        assert_eq!(
            frames(&mut f, &huge),
            vec![
                Frame::Reply(rsp_packet("E01").into_bytes()),
                Frame::Feed(b"$g#67".to_vec()),
            ]
        );
    }

    #[test]
    fn a_packet_is_whole_with_its_checksum() {
        assert!(has_packet(b"+$qSupported:x#12"));
        assert!(!has_packet(b"+$qSupported:x#1"));
        assert!(!has_packet(b"+"));
    }

    #[test]
    fn packets_carry_their_checksum() {
        assert_eq!(rsp_packet("OK"), "$OK#9a");
        assert_eq!(rsp_packet(""), "$#00");
    }
}
