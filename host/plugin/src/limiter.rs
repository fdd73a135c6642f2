//! The store's resource limiter: one memory budget for all of a call's linear
//! memories and one element budget for all of its tables.

use wasmtime::ResourceLimiter;

/// Enforces the plugin's memory and table limits for one store, and remembers whether
/// it had to, so a trap that follows a refused allocation is reported as "out of
/// memory" rather than a crash.
///
/// The limits are totals for the whole store — every linear memory and every table of
/// every core instance in the component — not per memory: a component with four
/// memories gets the same budget as one with one. wasmtime asks before creating each
/// memory (`current` 0, `desired` its initial size) and before each growth, and sizes
/// only grow, so the running sum of `desired - current` is what the store holds. A
/// growth wasmtime then fails to perform itself (the OS refusing the pages) stays
/// counted: `memory_grow_failed` does not say which memory failed, and over-counting
/// only refuses the plugin early, never late.
pub(crate) struct Limiter {
    memory_bytes: usize,
    memory_used: usize,
    table_elements: usize,
    pub(crate) memory_refused: bool,
}

/// Table elements all of a store's tables may hold together: five tables at the
/// pooling allocator's cap for one table (wasmtime's default, 20,000), where a Rust
/// component has one table of a few thousand. At a pointer per element, 800 KB.
pub(crate) const MAX_TABLE_ELEMENTS: usize = 100_000;

impl Limiter {
    /// A limiter allowing `memory_bytes` of linear memory in all.
    pub(crate) fn new(memory_bytes: usize) -> Self {
        Limiter {
            memory_bytes,
            memory_used: 0,
            table_elements: 0,
            memory_refused: false,
        }
    }
}

/// The total after a memory or table of a store holding `used` in all goes from
/// `current` to `desired`, or `None` when that would exceed `limit`.
fn admit(used: usize, limit: usize, current: usize, desired: usize) -> Option<usize> {
    let total = used.checked_add(desired.saturating_sub(current))?;
    (total <= limit).then_some(total)
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Beyond what the memory itself declares: wasmtime refuses it after asking, so
        // it must not be counted, and it is the guest's own bound, not the plugin's
        // limit, that it broke.
        if maximum.is_some_and(|max| desired > max) {
            return Ok(false);
        }
        match admit(self.memory_used, self.memory_bytes, current, desired) {
            Some(total) => {
                self.memory_used = total;
                Ok(true)
            }
            None => {
                self.memory_refused = true;
                Ok(false)
            }
        }
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if maximum.is_some_and(|max| desired > max) {
            return Ok(false);
        }
        match admit(self.table_elements, MAX_TABLE_ELEMENTS, current, desired) {
            Some(total) => {
                self.table_elements = total;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn memories_share_one_budget() {
        let mut l = Limiter::new(64 * MIB);
        // Four memories created at 10 MiB each: 40 MiB.
        for _ in 0..4 {
            assert!(l.memory_growing(0, 10 * MIB, None).unwrap());
        }
        // Each grows by 6 MiB: fine up to 64 MiB, then refused.
        assert!(l.memory_growing(10 * MIB, 16 * MIB, None).unwrap());
        assert!(l.memory_growing(10 * MIB, 16 * MIB, None).unwrap());
        assert!(l.memory_growing(10 * MIB, 16 * MIB, None).unwrap());
        assert!(l.memory_growing(10 * MIB, 16 * MIB, None).unwrap());
        assert!(!l.memory_refused);
        assert!(!l.memory_growing(16 * MIB, 16 * MIB + 1, None).unwrap());
        assert!(l.memory_refused);
    }

    #[test]
    fn the_initial_size_counts() {
        let mut l = Limiter::new(64 * MIB);
        assert!(l.memory_growing(0, 40 * MIB, None).unwrap());
        assert!(!l.memory_growing(0, 40 * MIB, None).unwrap());
        assert!(l.memory_refused);
    }

    #[test]
    fn growth_past_a_declared_maximum_is_not_counted() {
        let mut l = Limiter::new(64 * MIB);
        for _ in 0..100 {
            assert!(!l.memory_growing(MIB, 2 * MIB, Some(MIB)).unwrap());
        }
        assert!(!l.memory_refused);
        assert!(l.memory_growing(0, 64 * MIB, None).unwrap());
    }

    #[test]
    fn tables_share_one_budget() {
        let mut l = Limiter::new(64 * MIB);
        let half = MAX_TABLE_ELEMENTS / 2;
        assert!(l.table_growing(0, half, None).unwrap());
        assert!(l.table_growing(0, half, None).unwrap());
        assert!(!l.table_growing(0, 1, None).unwrap());
        assert!(!l.table_growing(0, usize::MAX, None).unwrap());
    }
}
