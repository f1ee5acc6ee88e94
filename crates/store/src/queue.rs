//! Work waiting for the writer: the queue both group commits (agent events in `commit.rs`, messages in
//! `append.rs`) take their batches from.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::Writer;
use clawmux_core::sync::Locked;

/// Work committed in batches by whoever holds the writer.
pub(crate) trait Batched: Sized + Send + 'static {
    /// The most committed in one transaction (bounds the statements' sizes and the wait of the last).
    const MAX: usize;

    /// Commits a batch and answers each of its callers.
    fn commit(writer: &mut Writer, batch: Vec<Self>) -> impl Future<Output = ()> + Send;
}

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
        self.0.locked()
    }

    fn push(&self, item: T) {
        self.lock().push_back(item);
    }

    /// Whether none waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.lock().is_empty()
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

impl<T: Batched> Queue<T> {
    /// Queues `item` and makes sure a task holding the writer commits it: that task commits the whole queue,
    /// batch by batch. Every item queued has a task that takes the writer after queueing it, so none is
    /// left behind, and a caller that stops waiting never takes a batch of others' with it.
    pub(crate) fn commit(&self, item: T, writer: &Arc<tokio::sync::Mutex<Writer>>) {
        self.push(item);
        let (writer, queue) = (writer.clone(), self.clone());
        tokio::spawn(async move {
            let mut writer = writer.lock_owned().await;
            writer.taken();
            loop {
                let batch = queue.take(T::MAX);
                if batch.is_empty() {
                    break;
                }
                T::commit(&mut writer, batch).await;
            }
        });
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
