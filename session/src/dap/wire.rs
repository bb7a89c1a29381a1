//! The Debug Adapter Protocol's base protocol: each message is a header block
//! (`Content-Length: N`, other fields ignored, each line ended by CRLF, a blank line after)
//! followed by N bytes of JSON.
//!
//! A damaged message is reported and skipped, never fatal: a header block without a usable
//! `Content-Length` is dropped up to its blank line; a body that is not JSON (a wrong length
//! cuts it or runs into the next message) is reported with what the parser said, and the
//! framer looks for the next header from where the body ended.

use serde_json::Value;

/// A header block longer than this without its blank line is garbage, not a header.
const MAX_HEADER: usize = 8 * 1024;
/// Largest body accepted: a client's request is small; this only stops a wrong length from
/// swallowing everything that follows.
pub const MAX_BODY: usize = 16 << 20;

/// What one framed message turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Message(Value),
    /// Why bytes were skipped.
    Damaged(String),
}

/// Splits a byte stream into messages.
#[derive(Debug, Default)]
pub struct DapFramer {
    buf: Vec<u8>,
    /// The body length of the header block already read.
    body_len: Option<usize>,
}

impl DapFramer {
    /// Adds bytes as they were read; appends every complete message to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Incoming>) {
        self.buf.extend_from_slice(bytes);
        loop {
            match self.body_len {
                None => {
                    let Some(end) = find(&self.buf, b"\r\n\r\n") else {
                        if self.buf.len() > MAX_HEADER {
                            out.push(Incoming::Damaged(format!(
                                "{} bytes with no header block (`Content-Length: N` then a blank line) were dropped",
                                self.buf.len()
                            )));
                            self.buf.clear();
                        }
                        return;
                    };
                    let header = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                    self.buf.drain(..end + 4);
                    match content_length(&header) {
                        Ok(len) => self.body_len = Some(len),
                        Err(why) => out.push(Incoming::Damaged(why)),
                    }
                }
                Some(len) => {
                    if self.buf.len() < len {
                        return;
                    }
                    let body: Vec<u8> = self.buf.drain(..len).collect();
                    self.body_len = None;
                    out.push(match serde_json::from_slice::<Value>(&body) {
                        Ok(value) if value.is_object() => Incoming::Message(value),
                        Ok(_) => Incoming::Damaged(
                            "a message must be a JSON object (a request has `seq`, `type` and `command`)"
                                .to_string(),
                        ),
                        Err(e) => Incoming::Damaged(format!(
                            "the {len}-byte body is not JSON ({e}); is Content-Length right?"
                        )),
                    });
                }
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The body length a header block gives. The field is looked for anywhere in the block, so
/// bytes left over from a damaged message before the header do not lose the message.
fn content_length(header: &str) -> Result<usize, String> {
    let lower = header.to_ascii_lowercase();
    let Some(at) = lower.rfind("content-length:") else {
        return Err(format!(
            "a header block without Content-Length was dropped: {header:?}"
        ));
    };
    let text = header[at + "content-length:".len()..]
        .split("\r\n")
        .next()
        .unwrap_or("")
        .trim();
    match text.parse::<usize>() {
        Ok(len) if len <= MAX_BODY => Ok(len),
        Ok(len) => Err(format!(
            "Content-Length {len} is over the limit of {MAX_BODY} bytes; the header was dropped"
        )),
        Err(_) => Err(format!("Content-Length {text:?} is not a number")),
    }
}

/// One message on the wire.
pub fn encode(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard base64 with padding (DAP's `readMemory` and `writeMemory` data).
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 (whitespace and padding ignored); `None` for another character.
pub fn unbase64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        let v = B64.iter().position(|&b| b == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for data in [&b""[..], b"a", b"ab", b"abc", b"\x00\xff\x10\x20"] {
            assert_eq!(unbase64(&base64(data)).as_deref(), Some(data));
        }
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
    }

    use serde_json::json;

    fn frame(chunks: &[&[u8]]) -> Vec<Incoming> {
        let mut framer = DapFramer::default();
        let mut out = Vec::new();
        for chunk in chunks {
            framer.push(chunk, &mut out);
        }
        out
    }

    #[test]
    fn messages_split_anywhere_come_out_whole() {
        let a = encode(&json!({"seq": 1, "type": "request", "command": "initialize"}));
        let b = encode(&json!({"seq": 2, "type": "request", "command": "threads"}));
        let all: Vec<u8> = [a.clone(), b].concat();
        for cut in 0..all.len() {
            let out = frame(&[&all[..cut], &all[cut..]]);
            assert_eq!(out.len(), 2, "cut at {cut}");
            assert!(matches!(&out[1], Incoming::Message(v) if v["command"] == "threads"));
        }
    }

    #[test]
    fn a_wrong_length_or_broken_json_is_reported_and_the_next_message_is_read() {
        let good = encode(&json!({"seq": 3, "type": "request", "command": "threads"}));
        let short = b"Content-Length: 5\r\n\r\n{\"seq\": 1}";
        let mut bytes = short.to_vec();
        // The 5 bytes read are `{"seq` (not JSON); the rest, ` 1}`, is garbage before the
        // next header, which the header search skips along with it.
        bytes.extend_from_slice(&good);
        let out = frame(&[&bytes]);
        assert!(
            matches!(&out[0], Incoming::Damaged(why) if why.contains("not JSON")),
            "{out:?}"
        );
        assert!(
            matches!(out.last(), Some(Incoming::Message(v)) if v["seq"] == 3),
            "{out:?}"
        );
        let out = frame(&[b"Content-Type: x\r\n\r\n", &good]);
        assert!(
            matches!(&out[0], Incoming::Damaged(why) if why.contains("without Content-Length"))
        );
        assert!(matches!(&out[1], Incoming::Message(_)));
        let out = frame(&[b"Content-Length: lots\r\n\r\n", &good]);
        assert!(matches!(&out[0], Incoming::Damaged(why) if why.contains("not a number")));
        let out = frame(&[b"Content-Length: 2\r\n\r\n[]", &good]);
        assert!(matches!(&out[0], Incoming::Damaged(why) if why.contains("JSON object")));
    }
}
