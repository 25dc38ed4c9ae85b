//! Runs futures at once, at most `limit` at a time, with no executor of its own: the
//! parallel nodes run their flows this way on whatever executor polls the session.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The outputs of `futures`, in their order, with at most `limit` (at least 1) polled at
/// a time: a future starts once an earlier one is done.
pub(crate) async fn bounded<F, I>(futures: I, limit: usize) -> Vec<F::Output>
where
    I: IntoIterator<Item = F>,
    F: Future + Unpin,
{
    Bounded {
        waiting: futures.into_iter().collect::<Vec<_>>().into_iter(),
        running: Vec::new(),
        outputs: Vec::new(),
        started: 0,
        limit: limit.max(1),
    }
    .await
}

struct Bounded<F: Future> {
    waiting: std::vec::IntoIter<F>,
    /// The futures running, each with its index.
    running: Vec<(usize, F)>,
    outputs: Vec<Option<F::Output>>,
    started: usize,
    limit: usize,
}

// the outputs are only moved, never pinned
impl<F: Future + Unpin> Unpin for Bounded<F> {}

impl<F: Future + Unpin> Future for Bounded<F> {
    type Output = Vec<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        loop {
            while this.running.len() < this.limit {
                let Some(next) = this.waiting.next() else {
                    break;
                };
                this.running.push((this.started, next));
                this.outputs.push(None);
                this.started += 1;
            }
            let mut finished = false;
            let mut i = 0;
            while i < this.running.len() {
                let (index, future) = &mut this.running[i];
                if let Poll::Ready(output) = Pin::new(future).poll(cx) {
                    this.outputs[*index] = Some(output);
                    this.running.swap_remove(i);
                    finished = true;
                } else {
                    i += 1;
                }
            }
            if this.running.is_empty() && this.waiting.len() == 0 {
                let outputs = std::mem::take(&mut this.outputs);
                return Poll::Ready(
                    outputs
                        .into_iter()
                        .map(|o| o.expect("every future finished"))
                        .collect(),
                );
            }
            // a finished future made room: start the next ones at once
            if !finished || this.waiting.len() == 0 {
                return Poll::Pending;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A future that is pending `polls` times (waking itself), then gives `value`.
    struct After<'a> {
        polls: u32,
        value: u32,
        running: &'a Cell<u32>,
        most: &'a Cell<u32>,
        started: bool,
    }

    impl Future for After<'_> {
        type Output = u32;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            if !self.started {
                self.started = true;
                self.running.set(self.running.get() + 1);
                self.most.set(self.most.get().max(self.running.get()));
            }
            if self.polls == 0 {
                self.running.set(self.running.get() - 1);
                return Poll::Ready(self.value);
            }
            self.polls -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn keeps_the_order_and_the_limit() {
        let running = Cell::new(0);
        let most = Cell::new(0);
        let futures = (0..7u32).map(|i| After {
            polls: 7 - i,
            value: i,
            running: &running,
            most: &most,
            started: false,
        });
        let out = agentspec_types::tool::block_on(bounded(futures, 3));
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(most.get(), 3);
        let empty: Vec<After<'_>> = Vec::new();
        assert!(agentspec_types::tool::block_on(bounded(empty, 2)).is_empty());
    }
}
