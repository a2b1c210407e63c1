//! `channel` (seed 002, bench-of-chan): W consumers, each with its own bounded
//! `tokio::sync::mpsc` queue of capacity Q, and one producer task per consumer
//! that sends E events and then drops its `Sender` (closing the queue).
//!
//! Every event kind gets its own channel element type (the code is generic and
//! monomorphised), as a Rust programmer would write it, instead of one enum:
//! `int` → `u64`; `str` → a `String` of S bytes built per event; `str_ptr` →
//! a `&'static str` to one string leaked at set-up, as seed 002's own Rust
//! program does (a pointer copy per event; an `Arc<str>` would add an atomic
//! increment and decrement per event on one cache line shared by every task);
//! `str_clone` → `String::clone` of a prototype per event (allocate + memcpy).
//!
//! Proofs in the result: `min_events`/`max_events` over the consumers, and for
//! the string kinds `same_as_prev`: each consumer keeps the previous event alive
//! until the next one arrives and compares the two strings' `as_ptr()`.

use tokio::sync::mpsc;

use crate::{Fields, Params, joined};

pub const PARAMS: &[&str] = &["workers", "events", "queue", "etype", "esize"];

#[derive(Clone, Copy)]
enum Kind {
    Int,
    Str,
    StrPtr,
    StrClone,
}

/// What a consumer adds up: the int value, or the string's length in bytes;
/// and whether two events are the same object (same string allocation).
trait Event: Send + 'static {
    fn value(&self) -> u64;
    fn same_object(&self, other: &Self) -> bool;
}

impl Event for u64 {
    fn value(&self) -> u64 {
        *self
    }
    // An int has no identity: `int` reports no same_as_prev.
    fn same_object(&self, _other: &Self) -> bool {
        false
    }
}

impl Event for String {
    fn value(&self) -> u64 {
        self.len() as u64
    }
    fn same_object(&self, other: &Self) -> bool {
        self.as_ptr() == other.as_ptr()
    }
}

impl Event for &'static str {
    fn value(&self) -> u64 {
        self.len() as u64
    }
    fn same_object(&self, other: &Self) -> bool {
        self.as_ptr() == other.as_ptr()
    }
}

/// What one consumer saw.
#[derive(Default)]
struct Seen {
    events: u64,
    sum: u64,
    same_as_prev: u64,
}

pub struct Channel {
    workers: usize,
    events: u64,
    queue: usize,
    kind: Kind,
    /// The S-byte string that `str_ptr` shares and `str_clone` copies; made
    /// once at set-up, outside the timed region (leaked: it lives as long as
    /// the process, a few bytes once per run).
    shared: &'static str,
    prototype: String,
}

impl Channel {
    pub fn new(p: &Params) -> Channel {
        let kind = match p.str("etype") {
            "int" => Kind::Int,
            "str" => Kind::Str,
            "str_ptr" => Kind::StrPtr,
            "str_clone" => Kind::StrClone,
            _ => p.reject("etype", "expected int, str, str_ptr or str_clone"),
        };
        let queue = p.usize("queue");
        if queue == 0 || queue > tokio::sync::Semaphore::MAX_PERMITS {
            p.reject(
                "queue",
                "tokio's bounded mpsc needs a capacity from 1 to Semaphore::MAX_PERMITS",
            );
        }
        let esize = p.usize("esize");
        let prototype = "s".repeat(esize);
        Channel {
            workers: p.usize("workers"),
            events: p.u64("events"),
            queue,
            kind,
            shared: Box::leak(prototype.clone().into_boxed_str()),
            prototype,
        }
    }

    pub async fn run(&self) -> Fields {
        let esize = self.prototype.len();
        let seen = match self.kind {
            Kind::Int => self.pump(|i| i).await,
            Kind::Str => self.pump(move |_| "s".repeat(esize)).await,
            Kind::StrPtr => {
                let shared = self.shared;
                self.pump(move |_| shared).await
            }
            Kind::StrClone => {
                let prototype = self.prototype.clone();
                self.pump(move |_| prototype.clone()).await
            }
        };
        let events = seen.iter().map(|s| s.events);
        let mut fields: Fields = vec![
            ("events", Some(events.clone().sum())),
            ("min_events", Some(events.clone().min().unwrap_or(0))),
            ("max_events", Some(events.max().unwrap_or(0))),
        ];
        let sum = seen.iter().map(|s| s.sum).sum();
        if matches!(self.kind, Kind::Int) {
            fields.push(("value_sum", Some(sum)));
        } else {
            fields.push(("bytes", Some(sum)));
            let same = seen.iter().map(|s| s.same_as_prev).sum();
            fields.push(("same_as_prev", Some(same)));
        }
        fields
    }

    /// Spawn W consumer/producer pairs; `make(i)` builds event i in the producer.
    /// Returns what each consumer saw, in spawn order.
    async fn pump<T, F>(&self, make: F) -> Vec<Seen>
    where
        T: Event,
        F: Fn(u64) -> T + Clone + Send + 'static,
    {
        let mut consumers = Vec::with_capacity(self.workers);
        for _ in 0..self.workers {
            let (tx, mut rx) = mpsc::channel::<T>(self.queue);
            consumers.push(tokio::spawn(async move {
                let mut seen = Seen::default();
                // The previous event stays alive until the next one has been
                // compared with it, so its allocation cannot be reused meanwhile.
                let mut prev: Option<T> = None;
                while let Some(event) = rx.recv().await {
                    seen.events += 1;
                    seen.sum += event.value();
                    if prev.as_ref().is_some_and(|p| event.same_object(p)) {
                        seen.same_as_prev += 1;
                    }
                    prev = Some(event);
                }
                seen
            }));
            let (make, events) = (make.clone(), self.events);
            tokio::spawn(async move {
                for i in 0..events {
                    if tx.send(make(i)).await.is_err() {
                        crate::fail("channel closed before the producer finished");
                    }
                }
            });
        }
        let mut seen = Vec::with_capacity(consumers.len());
        for consumer in consumers {
            seen.push(joined(consumer.await));
        }
        seen
    }
}
