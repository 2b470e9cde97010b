//! The engine's event queue: a binary min-heap of `Copy` events keyed by (time, sequence
//! number), written out so that its sift loops inline into the event loop.
//!
//! The standard library's `BinaryHeap` gives the same order (the keys are unique, so any
//! correct heap pops the same sequence), but its `sift_up` / `sift_down_to_bottom` stayed
//! out of line once the engine grew (callgrind: the single-cell benchmark spent 2.8 % more
//! instructions after the multi-cell change, most of it in those calls). A comparison packs
//! the time and the sequence number into one `u128` (one wide compare); an entry stays 24
//! bytes.

//!
//! **Sorted lanes.** Some events are pushed in nondecreasing time order by construction: a
//! delivery one TTI after the TTI that sent it, the arrival at the base station after the one
//! backhaul link (a FIFO), an ACK a fixed delay after it left. Such a push may go to a *lane*
//! ([`EventQueue::push_sorted`]), a FIFO that stays sorted by (time, sequence number): a push
//! earlier than the lane's last entry goes to the heap instead, so the lanes are sorted
//! whatever the caller does. A pop takes the smallest key among the heap's root and the
//! lanes' fronts: the same order as one heap of every event (the keys are unique), without
//! the heap's sift for most of the events of a bulk TCP run.

use std::collections::VecDeque;

use cellshare_core::Nanos;

/// Number of sorted lanes.
pub(crate) const LANES: usize = 3;

/// A min-heap of events of type `E`, ordered by (time, sequence number); sequence numbers
/// are unique, so the order is total and equal times pop in push order.
#[derive(Debug)]
pub(crate) struct EventQueue<E: Copy> {
    heap: Vec<Entry<E>>,
    /// Sorted FIFOs (see "Sorted lanes" in the module documentation).
    lanes: [VecDeque<Entry<E>>; LANES],
}

/// Where the earliest event is.
#[derive(Clone, Copy)]
enum Source {
    Heap,
    Lane(usize),
}

#[derive(Clone, Copy, Debug)]
struct Entry<E: Copy> {
    t: Nanos,
    seq: u64,
    ev: E,
}

impl<E: Copy> Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.t) << 64) | u128::from(self.seq)
    }
}

impl<E: Copy> EventQueue<E> {
    pub(crate) fn new() -> Self {
        Self { heap: Vec::new(), lanes: std::array::from_fn(|_| VecDeque::new()) }
    }

    /// Number of queued events.
    #[allow(dead_code)]
    pub(crate) fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Queues `ev` at time `t` with sequence number `seq` (unique, larger than every earlier
    /// one) in sorted lane `lane` if `t` is not earlier than the lane's last event, else in
    /// the heap: either way it pops in its (time, sequence) place.
    #[inline]
    pub(crate) fn push_sorted(&mut self, lane: usize, t: Nanos, seq: u64, ev: E) {
        let l = &mut self.lanes[lane];
        if l.back().is_none_or(|b| t >= b.t) {
            l.push_back(Entry { t, seq, ev });
        } else {
            self.push(t, seq, ev);
        }
    }

    /// The queue holding the earliest event and that event's key (`None`: empty).
    #[inline(always)]
    fn earliest(&self) -> Option<(Source, u128)> {
        let mut best = self.heap.first().map(|e| (Source::Heap, e.key()));
        for (i, l) in self.lanes.iter().enumerate() {
            if let Some(e) = l.front() {
                let k = e.key();
                if best.is_none_or(|(_, b)| k < b) {
                    best = Some((Source::Lane(i), k));
                }
            }
        }
        best
    }

    /// Queues `ev` at time `t` with sequence number `seq` (unique).
    #[inline]
    pub(crate) fn push(&mut self, t: Nanos, seq: u64, ev: E) {
        let e = Entry { t, seq, ev };
        let k = e.key();
        let mut pos = self.heap.len();
        self.heap.push(e);
        // Sift up with a hole: parents move down until the new key's place is found.
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if k >= self.heap[parent].key() {
                break;
            }
            self.heap[pos] = self.heap[parent];
            pos = parent;
        }
        self.heap[pos] = e;
    }

    /// Time of the earliest event.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<Nanos> {
        self.earliest().map(|(_, k)| (k >> 64) as Nanos)
    }

    /// Removes and returns the earliest event (time, event) if its time is at most `t`.
    #[inline]
    pub(crate) fn pop_upto(&mut self, t: Nanos) -> Option<(Nanos, E)> {
        let (src, key) = self.earliest()?;
        if (key >> 64) as Nanos > t {
            return None;
        }
        match src {
            Source::Lane(i) => {
                let e = self.lanes[i].pop_front().expect("not empty");
                Some((e.t, e.ev))
            }
            Source::Heap => {
                let Entry { t: et, ev, .. } = self.heap[0];
                let last = self.heap.pop().expect("not empty");
                if !self.heap.is_empty() {
                    self.sift_down_from_root(last);
                }
                Some((et, ev))
            }
        }
    }

    /// Puts `elem` (the former last element) in the root's place: the hole at the root moves
    /// down along the smaller children to the bottom, then `elem` sifts up from there (it
    /// usually belongs near the bottom, so this takes fewer comparisons than stopping early).
    #[inline]
    fn sift_down_from_root(&mut self, elem: Entry<E>) {
        let h = &mut self.heap;
        let end = h.len();
        let mut pos = 0;
        let mut child = 1;
        while child + 1 < end {
            if h[child + 1].key() < h[child].key() {
                child += 1;
            }
            h[pos] = h[child];
            pos = child;
            child = 2 * pos + 1;
        }
        if child == end - 1 {
            h[pos] = h[child];
            pos = child;
        }
        let k = elem.key();
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if k >= h[parent].key() {
                break;
            }
            h[pos] = h[parent];
            pos = parent;
        }
        h[pos] = elem;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn pops_in_the_order_of_the_standard_heap() {
        // A pseudo-random mix of pushes and pops with many equal times.
        let mut q = EventQueue::new();
        let mut std_heap = BinaryHeap::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut seq = 0u64;
        let mut now = 0u64;
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 5 < 3 {
                seq += 1;
                let t = now + x % 17;
                // Some events through the lanes, mostly in order, sometimes not (the heap
                // takes those).
                match (x >> 8) % 4 {
                    0 => q.push(t, seq, (x % 1000) as u32),
                    l => q.push_sorted(l as usize - 1, t, seq, (x % 1000) as u32),
                }
                std_heap.push(Reverse((t, seq, (x % 1000) as u32)));
            } else {
                now += x % 3;
                while let Some((t, ev)) = q.pop_upto(now) {
                    ours.push((t, ev));
                }
                while let Some(&Reverse((t, _, ev))) = std_heap.peek() {
                    if t > now {
                        break;
                    }
                    std_heap.pop();
                    theirs.push((t, ev));
                }
                assert_eq!(q.peek_time(), std_heap.peek().map(|Reverse((t, _, _))| *t));
                assert_eq!(q.len(), std_heap.len());
            }
        }
        while let Some(e) = q.pop_upto(u64::MAX) {
            ours.push(e);
        }
        while let Some(Reverse((t, _, ev))) = std_heap.pop() {
            theirs.push((t, ev));
        }
        assert_eq!(ours.len() as u64, seq, "every pushed event pops once");
        assert_eq!(ours, theirs);
    }
}
