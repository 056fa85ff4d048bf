//! Several jobs' events into one reporter, in the order one job would emit them.

use judge_model::event::{Event, Reporter};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

/// Several jobs' events into one reporter in a fixed order: each piece of work has a slot
/// (its position in the sequential order); the first unfinished slot's events pass at once (so
/// the progress line stays live), later slots' events wait until the slots before are done.
/// [`Ordered::drop_range`] drops slots with their events (tests judged ahead of a solution's
/// first failure). Every format gets the events in the order one job would emit them.
pub struct Ordered<'r> {
    state: Mutex<OrderedState<'r>>,
}

struct OrderedState<'r> {
    reporter: &'r mut dyn Reporter,
    /// The first slot not yet released.
    next: usize,
    /// Dropped slots: their events are never shown and they count as done.
    dropped: Vec<Range<usize>>,
    /// Events of slots after `next`, and whether the slot is done.
    held: BTreeMap<usize, (Vec<Event>, bool)>,
}

impl<'r> Ordered<'r> {
    pub fn new(reporter: &'r mut dyn Reporter) -> Ordered<'r> {
        Ordered {
            state: Mutex::new(OrderedState {
                reporter,
                next: 0,
                dropped: Vec::new(),
                held: BTreeMap::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, OrderedState<'r>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A reporter for slot `slot`.
    pub fn slot(&self, slot: usize) -> Slot<'_, 'r> {
        Slot {
            ordered: self,
            slot,
        }
    }

    /// Slot `slot` has emitted everything.
    pub fn done(&self, slot: usize) {
        let mut s = self.lock();
        if s.is_dropped(slot) {
            return;
        }
        if slot == s.next {
            s.next += 1;
        } else {
            s.held.entry(slot).or_default().1 = true;
        }
        s.release();
    }

    /// Drops the slots of `range`: their events are never shown. A slot being released (the
    /// live one or one before it) must not be in it.
    pub fn drop_range(&self, range: Range<usize>) {
        let mut s = self.lock();
        if range.is_empty() {
            return;
        }
        s.held.retain(|k, _| !range.contains(k));
        s.dropped.push(range);
        s.release();
    }

    /// Drops slot `from` and every later one.
    pub fn cut(&self, from: usize) {
        self.drop_range(from..usize::MAX);
    }
}

impl OrderedState<'_> {
    fn is_dropped(&self, slot: usize) -> bool {
        self.dropped.iter().any(|r| r.contains(&slot))
    }

    /// Shows the held events of the slots that are next in turn.
    fn release(&mut self) {
        loop {
            if let Some(r) = self.dropped.iter().find(|r| r.contains(&self.next)) {
                if r.end == usize::MAX {
                    return;
                }
                self.next = r.end;
                continue;
            }
            let Some((events, done)) = self.held.remove(&self.next) else {
                return;
            };
            for e in &events {
                self.reporter.event(e);
            }
            if !done {
                // Still running: it is the live slot now.
                return;
            }
            self.next += 1;
        }
    }
}

/// The reporter of one slot of an [`Ordered`].
pub struct Slot<'o, 'r> {
    ordered: &'o Ordered<'r>,
    slot: usize,
}

impl Reporter for Slot<'_, '_> {
    fn event(&mut self, event: &Event) {
        let mut s = self.ordered.lock();
        if s.is_dropped(self.slot) {
            return;
        }
        if s.next == self.slot {
            s.reporter.event(event);
        } else {
            s.held.entry(self.slot).or_default().0.push(event.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge_model::event::Collect;

    fn finished(exit: i32) -> Event {
        Event::Finished { exit }
    }

    fn exits(c: &Collect) -> Vec<i32> {
        c.0.iter()
            .map(|e| match e {
                Event::Finished { exit } => *exit,
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn ordered_slots_come_out_in_order_and_the_first_one_live() {
        let mut c = Collect::default();
        {
            let o = Ordered::new(&mut c);
            o.slot(2).event(&finished(20));
            o.slot(1).event(&finished(10));
            o.slot(0).event(&finished(0));
            o.slot(3).event(&finished(30));
            o.done(2);
            o.cut(3);
            o.done(3);
            o.done(0);
            o.slot(1).event(&finished(11));
            o.done(1);
            o.slot(4).event(&finished(40));
        }
        assert_eq!(exits(&c), [0, 10, 11, 20]);
    }

    #[test]
    fn the_live_slot_passes_at_once() {
        let mut c = Collect::default();
        let o = Ordered::new(&mut c);
        o.slot(0).event(&finished(0));
        o.done(0);
        o.slot(1).event(&finished(1));
        drop(o);
        assert_eq!(exits(&c), [0, 1]);
    }

    #[test]
    fn a_dropped_range_hides_its_events_and_the_slots_after_it_go_on() {
        let mut c = Collect::default();
        {
            let o = Ordered::new(&mut c);
            // Slots 1..3 are dropped while 2 is done and held, 3 is still running.
            o.slot(2).event(&finished(20));
            o.done(2);
            o.slot(3).event(&finished(30));
            o.slot(4).event(&finished(40));
            o.done(4);
            o.slot(0).event(&finished(0));
            o.drop_range(1..4);
            o.done(0);
            o.slot(3).event(&finished(31));
            o.done(3);
            o.slot(5).event(&finished(50));
            o.done(5);
        }
        assert_eq!(exits(&c), [0, 40, 50]);
    }
}
