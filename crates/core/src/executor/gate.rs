//! The gate the engines of one judge share: who is running, and the lock that lets a re-judge
//! run alone (the honest-timing rule of `crate::jobs`). Every run an engine starts holds it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Shared by the engines of one judge: who is running, and the lock that lets a re-judge run
/// alone.
#[derive(Default)]
pub struct Gate {
    lock: RwLock<()>,
    /// Runs under way.
    active: AtomicUsize,
    /// Runs started so far: a run ran alone if none started while it ran and none was running
    /// when it began.
    started: AtomicUsize,
    /// A job holds the gate exclusively ([`Gate::alone`]).
    exclusive: AtomicBool,
}

/// The gate held exclusively (see [`Gate::alone`]) until dropped.
pub struct Alone<'a> {
    gate: &'a Gate,
    _guard: RwLockWriteGuard<'a, ()>,
}

impl Drop for Alone<'_> {
    fn drop(&mut self) {
        // Before the lock is released (fields drop after this).
        self.gate.exclusive.store(false, Ordering::SeqCst);
    }
}

/// A run under way (see [`Gate::enter`]); [`Ticket::alone`] says whether it had the CPUs to itself.
pub struct Ticket<'a> {
    gate: &'a Gate,
    _shared: Option<RwLockReadGuard<'a, ()>>,
    alone_at_start: bool,
    started: usize,
}

impl Gate {
    /// Marks a run as begun; `exclusive` is true when the caller already holds [`Gate::alone`].
    pub fn enter(&self, exclusive: bool) -> Ticket<'_> {
        let shared = if exclusive {
            None
        } else {
            Some(self.lock.read().unwrap_or_else(|e| e.into_inner()))
        };
        let before = self.active.fetch_add(1, Ordering::SeqCst);
        let started = self.started.fetch_add(1, Ordering::SeqCst) + 1;
        Ticket {
            gate: self,
            _shared: shared,
            alone_at_start: before == 0,
            started,
        }
    }

    /// Another job's run starts and ends now, unless a job holds the gate exclusively (then
    /// no other run is under way, and nothing happens): whether it did. The fake executor's
    /// neighbour (`crate::executor::fake`).
    pub fn neighbour(&self) -> bool {
        if self.exclusive.load(Ordering::SeqCst) {
            return false;
        }
        self.started.fetch_add(1, Ordering::SeqCst);
        true
    }

    /// Waits until no other run is under way and keeps others from starting until dropped.
    pub fn alone(&self) -> Alone<'_> {
        let guard = self.lock.write().unwrap_or_else(|e| e.into_inner());
        self.exclusive.store(true, Ordering::SeqCst);
        Alone {
            gate: self,
            _guard: guard,
        }
    }
}

impl Ticket<'_> {
    /// No other run was under way at any moment of this one.
    pub fn alone(&self) -> bool {
        self.alone_at_start && self.gate.started.load(Ordering::SeqCst) == self.started
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.gate.active.fetch_sub(1, Ordering::SeqCst);
    }
}
