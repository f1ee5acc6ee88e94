//! Work waiting for the writer: the queue both group commits (agent events in `commit.rs`, messages in
//! `append.rs`) take their batches from.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Items waiting for the writer. A std mutex: held only to push or to take, never across an await.
#[derive(Debug)]
pub(crate) struct Queue<T>(Arc<Mutex<VecDeque<T>>>);

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Queue(Arc::clone(&self.0))
    }
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue(Arc::new(Mutex::new(VecDeque::new())))
    }
}

impl<T> Queue<T> {
    fn lock(&self) -> MutexGuard<'_, VecDeque<T>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn push(&self, item: T) {
        self.lock().push_back(item);
    }

    /// How many wait.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Up to `max` items, oldest first.
    pub(crate) fn take(&self, max: usize) -> Vec<T> {
        let mut q = self.lock();
        let n = q.len().min(max);
        q.drain(..n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Queue;

    #[test]
    fn takes_in_order_and_at_most_max() {
        let q = Queue::default();
        for i in 0..5 {
            q.push(i);
        }
        assert_eq!(q.take(3), vec![0, 1, 2]);
        assert_eq!(q.clone().take(3), vec![3, 4]);
        assert!(q.take(3).is_empty());
    }
}
