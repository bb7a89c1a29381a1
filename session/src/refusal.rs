//! Who may talk to the machine while a debugger is attached: one debugger at a time.
//!
//! A connection that arrives while one is attached is usually gdb reconnecting right after its
//! old connection dropped (the old socket's end may not have been read yet), so it is parked for
//! [`HANDOVER_GRACE`] and served next if the attached one turns out closed. Anything else is a
//! second debugger: it is told so in plain words and closed. gdb sends its first packet right
//! after connecting; the answer waits for it, so gdb reads the refusal as the reply to
//! `qSupported` (and prints it) instead of failing on a reset connection. Only
//! [`PATIENT_REFUSALS`] refusals wait at once; past that a refusal is given at once, so a flood
//! of connections cannot pin file descriptors.
//!
//! No I/O here: the glue accepts sockets, reads and writes them and keeps the times given here.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::framer::{has_packet, rsp_packet, PACKET_SIZE};

/// The refusal a second debugger gets.
pub const REFUSAL: &str = "another debugger is already attached to this asmdbg";
/// How long a new connection waits for the attached one to turn out closed (a debugger that
/// reconnects at once) before it is refused as a second debugger.
pub const HANDOVER_GRACE: Duration = Duration::from_millis(200);
/// Refusals that may wait for their client's first packet at once.
pub const PATIENT_REFUSALS: usize = 8;
/// How long a patient refusal waits for the client's first packet, and then for the client to
/// read the answer before the socket goes away.
const PATIENCE: Duration = Duration::from_secs(2);

/// What becomes of a connection that arrives while one is attached.
#[derive(Debug)]
pub enum Admission {
    /// Keep it aside: it is served next if the attached connection ends within the grace
    /// period (the session's [`Poll`](crate::Poll) says when to refuse it instead).
    Park,
    /// Refuse it now.
    Refuse(Refusal),
}

/// Counts the refusals still waiting for their client; shared by every refusal it hands out.
#[derive(Debug, Clone, Default)]
pub struct Refusals {
    waiting: Arc<AtomicUsize>,
}

impl Refusals {
    /// A refusal for one more connection: patient while fewer than [`PATIENT_REFUSALS`] wait.
    pub fn refuse(&self) -> Refusal {
        let before = self.waiting.fetch_add(1, Ordering::Relaxed);
        Refusal {
            seen: Vec::new(),
            patience: if before < PATIENT_REFUSALS {
                PATIENCE
            } else {
                Duration::ZERO
            },
            waiting: Arc::clone(&self.waiting),
        }
    }

    /// Refusals handed out and not yet dropped.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

/// The refusal of one connection: what it has sent so far, and the answer it gets. Counts as
/// waiting until dropped.
#[derive(Debug)]
pub struct Refusal {
    seen: Vec<u8>,
    patience: Duration,
    waiting: Arc<AtomicUsize>,
}

impl Refusal {
    /// How long to wait for the client's first packet, and then for it to read the answer.
    pub fn patience(&self) -> Duration {
        self.patience
    }

    /// Bytes from the refused client; true once its first packet is whole (answer now).
    pub fn on_bytes(&mut self, bytes: &[u8]) -> bool {
        // A client that never ends its packet cannot grow this past one packet's size.
        let room = PACKET_SIZE.saturating_sub(self.seen.len());
        self.seen.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.answered_packet() || self.seen.len() >= PACKET_SIZE
    }

    fn answered_packet(&self) -> bool {
        has_packet(&self.seen)
    }

    /// The answer: an acknowledgement of the client's packet if it sent one, then the error.
    pub fn answer(&self) -> Vec<u8> {
        let ack = if self.answered_packet() { "+" } else { "" };
        format!("{ack}{}", rsp_packet(&format!("E.{REFUSAL}"))).into_bytes()
    }
}

impl Drop for Refusal {
    fn drop(&mut self) {
        self.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_answers_the_first_packet_with_the_message() {
        let refusals = Refusals::default();
        let mut refusal = refusals.refuse();
        assert_eq!(refusal.patience(), PATIENCE);
        assert!(!refusal.on_bytes(b"+$qSupported:multiprocess+#"));
        assert_eq!(
            refusal.answer(),
            rsp_packet(&format!("E.{REFUSAL}")).into_bytes()
        );
        assert!(refusal.on_bytes(b"c6"));
        let answer = String::from_utf8(refusal.answer()).unwrap();
        assert!(answer.starts_with("+$E.another debugger is already attached"));
    }

    #[test]
    fn only_eight_refusals_wait_at_once() {
        let refusals = Refusals::default();
        let patient: Vec<Refusal> = (0..PATIENT_REFUSALS).map(|_| refusals.refuse()).collect();
        assert!(patient.iter().all(|r| r.patience() == PATIENCE));
        let hasty = refusals.refuse();
        assert_eq!(hasty.patience(), Duration::ZERO);
        assert_eq!(refusals.waiting(), PATIENT_REFUSALS + 1);
        drop(hasty);
        drop(patient);
        assert_eq!(refusals.waiting(), 0);
        assert_eq!(refusals.refuse().patience(), PATIENCE, "patient again");
    }

    #[test]
    fn a_client_that_never_ends_its_packet_is_answered_at_one_packet() {
        let mut refusal = Refusals::default().refuse();
        let junk = vec![b'x'; PACKET_SIZE / 2];
        assert!(!refusal.on_bytes(&junk));
        assert!(refusal.on_bytes(&junk));
        assert!(refusal.on_bytes(&junk), "no growth past one packet");
        assert_eq!(refusal.seen.len(), PACKET_SIZE);
    }
}
