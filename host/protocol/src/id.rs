//! Type-prefixed, time-ascending identifiers.
//!
//! Owns the id format `<prefix>_<clock><random>`: 13 characters of clock then 12 of
//! randomness, in a lowercase Crockford base-32 alphabet whose ASCII order is its digit
//! order, so comparing two ids as strings compares when they were made.
//!
//! The clock is one `u64`: 48 bits of Unix milliseconds above a 16-bit counter. It is
//! process-wide and only ever grows — each id takes `max(previous + 1, now << 16)` — so
//! ids made within one millisecond, or after the wall clock stepped back, still sort in
//! the order they were made. (65,536 ids in one millisecond carry into the millisecond
//! field, which keeps the order at the cost of running a little ahead of the wall clock.)
//! The random tail keeps ids made at the same instant by two processes apart.

use std::fmt;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::clock::now_ms;

/// Digits in ascending ASCII order (Crockford's base 32, lowercase: no i, l, o, u).
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
/// Characters encoding the 64-bit clock (13 × 5 = 65 bits, the top one always 0).
const CLOCK_CHARS: usize = 13;
/// Characters of randomness (12 × 5 = 60 bits).
const RANDOM_CHARS: usize = 12;
/// Bits of the per-millisecond counter below the timestamp.
const COUNTER_BITS: u32 = 16;

/// The last clock value handed out by this process.
static CLOCK: AtomicU64 = AtomicU64::new(0);

/// What an id names; decides its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// A session: `ses_…`.
    Session,
    /// A message: `msg_…`.
    Message,
    /// A part of a message: `prt_…`.
    Part,
    /// A permission request: `per_…`.
    Permission,
    /// A tool call made by the host itself rather than the model: `call_…`.
    Call,
    /// A question put to the user: `que_…`.
    Question,
}

impl IdKind {
    /// The prefix before the underscore.
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Session => "ses",
            IdKind::Message => "msg",
            IdKind::Part => "prt",
            IdKind::Permission => "per",
            IdKind::Call => "call",
            IdKind::Question => "que",
        }
    }

    /// The kind named by `id`'s prefix, if it is one of ours.
    pub fn of(id: &str) -> Option<IdKind> {
        let (prefix, _) = id.split_once('_')?;
        [
            IdKind::Session,
            IdKind::Message,
            IdKind::Part,
            IdKind::Permission,
            IdKind::Call,
            IdKind::Question,
        ]
        .into_iter()
        .find(|kind| kind.prefix() == prefix)
    }
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix())
    }
}

/// A new id of `kind`, greater (as a string) than every id of that kind made before it
/// in this process.
pub fn new_id(kind: IdKind) -> String {
    let clock = next_clock();
    let prefix = kind.prefix();
    let mut id = String::with_capacity(prefix.len() + 1 + CLOCK_CHARS + RANDOM_CHARS);
    id.push_str(prefix);
    id.push('_');
    push_base32(&mut id, clock, CLOCK_CHARS);
    push_base32(&mut id, random(clock), RANDOM_CHARS);
    id
}

/// The Unix time in milliseconds at which `id` was made, or `None` if it is not in
/// this format.
pub fn timestamp(id: &str) -> Option<i64> {
    let (_, body) = id.split_once('_')?;
    if body.len() != CLOCK_CHARS + RANDOM_CHARS {
        return None;
    }
    let mut clock: u64 = 0;
    for byte in body.bytes().take(CLOCK_CHARS) {
        let digit = ALPHABET.iter().position(|&c| c == byte)?;
        clock = clock.checked_mul(32)?.checked_add(digit as u64)?;
    }
    i64::try_from(clock >> COUNTER_BITS).ok()
}

/// The next value of the process clock: strictly greater than the previous one and no
/// less than the current millisecond.
fn next_clock() -> u64 {
    let floor = u64::try_from(now_ms()).unwrap_or(0) << COUNTER_BITS;
    let mut previous = CLOCK.load(Ordering::Relaxed);
    loop {
        let next = floor.max(previous.wrapping_add(1));
        match CLOCK.compare_exchange_weak(previous, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(current) => previous = current,
        }
    }
}

/// 64 random bits. SipHash keyed by std's per-process random keys is enough here: the
/// tail only has to differ between processes, not resist an attacker, and this avoids a
/// system call per id.
fn random(clock: u64) -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(clock);
    hasher.finish()
}

/// Appends the low `chars × 5` bits of `value`, most significant digit first.
fn push_base32(out: &mut String, value: u64, chars: usize) {
    for index in (0..chars).rev() {
        // Shifts of 64 bits or more would overflow; those digits are zero.
        let digit = value.checked_shr(5 * index as u32).unwrap_or(0) & 31;
        out.push(char::from(ALPHABET[digit as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_and_shape() {
        let id = new_id(IdKind::Part);
        assert!(id.starts_with("prt_"));
        assert_eq!(id.len(), 4 + CLOCK_CHARS + RANDOM_CHARS);
        assert_eq!(IdKind::of(&id), Some(IdKind::Part));
        assert_eq!(IdKind::of("nope_123"), None);
    }

    #[test]
    fn one_hundred_thousand_ids_sort_in_creation_order() {
        let ids: Vec<String> = (0..100_000).map(|_| new_id(IdKind::Message)).collect();
        for pair in ids.windows(2) {
            assert!(pair[0] < pair[1], "{} !< {}", pair[0], pair[1]);
        }
        // Far more than one id per millisecond: the counter, not the clock, ordered them.
        let first = timestamp(&ids[0]).expect("our format");
        let last = timestamp(&ids[ids.len() - 1]).expect("our format");
        assert!(last - first < 100_000);
    }

    #[test]
    fn ids_from_many_threads_are_unique() {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    (0..10_000)
                        .map(|_| new_id(IdKind::Part))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<String> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread finished"))
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 40_000);
    }

    #[test]
    fn timestamp_reads_the_creation_time() {
        let before = now_ms();
        let id = new_id(IdKind::Session);
        let after = now_ms();
        let at = timestamp(&id).expect("our format");
        // The counter can carry the clock ahead by a millisecond under heavy load.
        assert!(
            at >= before && at <= after + 1,
            "{before} <= {at} <= {after}"
        );
        assert_eq!(timestamp("ses_short"), None);
    }

    #[test]
    fn clock_digits_compare_like_numbers() {
        let mut small = String::new();
        let mut large = String::new();
        push_base32(&mut small, 31, CLOCK_CHARS);
        push_base32(&mut large, 32, CLOCK_CHARS);
        assert!(small < large);
        let mut max = String::new();
        push_base32(&mut max, u64::MAX, CLOCK_CHARS);
        assert_eq!(&max, "fzzzzzzzzzzzz");
    }
}
