//! The queue of pending requests: their order, which one is on screen, and what only the queue
//! decides as requests come in, take an earlier one's place and leave. What the broker does
//! about each (accepting, superseding, withdrawing and ending it) is in `ops/queue.rs`.

use super::pipes::Asker;
use super::request::Request;

/// The pending requests of every caller, in the order they came, and the current one: the
/// one the popup shows.
#[derive(Debug, Default)]
pub(super) struct Queue {
    requests: Vec<Request>,
    /// The current request's index: within the queue, or 0 when it is empty.
    current: usize,
}

impl Queue {
    pub(super) fn len(&self) -> usize {
        self.requests.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, Request> {
        self.requests.iter()
    }

    pub(super) fn iter_mut(&mut self) -> std::slice::IterMut<'_, Request> {
        self.requests.iter_mut()
    }

    /// The requests asked: the pending ones but those only shown yet (see `Broker::preview`).
    pub(super) fn asked(&self) -> impl Iterator<Item = &Request> {
        self.requests.iter().filter(|r| !r.provisional)
    }

    pub(super) fn get(&self, index: usize) -> Option<&Request> {
        self.requests.get(index)
    }

    pub(super) fn get_mut(&mut self, index: usize) -> Option<&mut Request> {
        self.requests.get_mut(index)
    }

    /// The current request's index.
    pub(super) fn current_index(&self) -> usize {
        self.current
    }

    /// The current request, the one the popup shows.
    pub(super) fn current(&self) -> Option<&Request> {
        self.requests.get(self.current)
    }

    pub(super) fn current_mut(&mut self) -> Option<&mut Request> {
        self.requests.get_mut(self.current)
    }

    /// Where `caller`'s request `id` waits, if it does.
    pub(super) fn position_of(&self, caller: &Asker, id: &str) -> Option<usize> {
        self.requests
            .iter()
            .position(|r| r.caller == *caller && r.request_id.as_deref() == Some(id))
    }

    /// Adds `request` at the end of the queue: its index. The first one is current.
    pub(super) fn push(&mut self, request: Request) -> usize {
        self.requests.push(request);
        if self.requests.len() == 1 {
            self.current = 0;
        }
        self.requests.len() - 1
    }

    /// Puts `request` in the place of request `index` (the same caller asking again with the
    /// same id): the one it replaces.
    pub(super) fn replace(&mut self, index: usize, request: Request) -> Request {
        std::mem::replace(&mut self.requests[index], request)
    }

    /// Takes request `index` out of the queue: the current one stays current, or the one
    /// before it (the last one, if it was the last) becomes current.
    pub(super) fn take(&mut self, index: usize) -> Request {
        let request = self.requests.remove(index);
        if self.current > index || self.current >= self.requests.len() {
            self.current = self.current.saturating_sub(1);
        }
        if self.requests.is_empty() {
            self.current = 0;
        }
        request
    }

    /// Makes request `index` current: whether it was not already.
    pub(super) fn make_current(&mut self, index: usize) -> bool {
        let changed = index < self.requests.len() && index != self.current;
        if changed {
            self.current = index;
        }
        changed
    }

    /// Makes the next request current (`forward`), or the one before, round the queue:
    /// whether another one became current (there is more than one).
    pub(super) fn switch(&mut self, forward: bool) -> bool {
        let n = self.requests.len();
        if n < 2 {
            return false;
        }
        self.current = if forward {
            (self.current + 1) % n
        } else {
            (self.current + n - 1) % n
        };
        true
    }
}
