//! A lock taken whatever happened to its last holder.
//!
//! A panic while a `Mutex` is held poisons it, and the standard library then refuses every later `lock`.
//! ClawMux's locks guard maps and slots that each critical section leaves whole (an insert, a take, a
//! swap: no half-done step another holder could see), so the value is still good: the hub goes on with it
//! rather than failing every later call, and one agent's bug never silences the others.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// [`Mutex::lock`], poisoned or not.
pub trait Locked<T> {
    /// The guard, even after a holder panicked.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::Locked;

    #[test]
    fn a_lock_whose_holder_panicked_is_still_taken_with_its_value() {
        let m = std::sync::Arc::new(Mutex::new(vec![1]));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("a holder's bug");
        })
        .join();
        assert!(m.is_poisoned());
        m.locked().push(2);
        assert_eq!(*m.locked(), vec![1, 2]);
    }
}
