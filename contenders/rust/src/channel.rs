//! `channel` (seed 002, bench-of-chan): W consumers, each with its own bounded
//! `tokio::sync::mpsc` queue of capacity Q, and one producer task per consumer
//! that sends E events and then drops its `Sender` (closing the queue).
//!
//! Every event kind gets its own channel element type (the code is generic and
//! monomorphised), as a Rust programmer would write it, instead of one enum:
//! `int` → `u64`; `str` → a `String` of S bytes built per event; `str_ptr` →
//! an `Arc<str>` clone of one shared string (a refcount bump, no copy);
//! `str_clone` → `String::clone` of a prototype per event (allocate + memcpy).

use std::sync::Arc;

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

/// What a consumer adds up: the int value, or the string's length in bytes.
trait Event: Send + 'static {
    fn value(&self) -> u64;
}

impl Event for u64 {
    fn value(&self) -> u64 {
        *self
    }
}

impl Event for String {
    fn value(&self) -> u64 {
        self.len() as u64
    }
}

impl Event for Arc<str> {
    fn value(&self) -> u64 {
        self.len() as u64
    }
}

pub struct Channel {
    workers: usize,
    events: u64,
    queue: usize,
    kind: Kind,
    /// The S-byte string that `str_ptr` shares and `str_clone` copies; made
    /// once at set-up, outside the timed region.
    shared: Arc<str>,
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
            shared: Arc::from(prototype.as_str()),
            prototype,
        }
    }

    pub async fn run(&self) -> Fields {
        let esize = self.prototype.len();
        let (events, sum) = match self.kind {
            Kind::Int => self.pump(|i| i).await,
            Kind::Str => self.pump(move |_| "s".repeat(esize)).await,
            Kind::StrPtr => {
                let shared = Arc::clone(&self.shared);
                self.pump(move |_| Arc::clone(&shared)).await
            }
            Kind::StrClone => {
                let prototype = self.prototype.clone();
                self.pump(move |_| prototype.clone()).await
            }
        };
        let sum_key = if matches!(self.kind, Kind::Int) {
            "value_sum"
        } else {
            "bytes"
        };
        vec![("events", Some(events)), (sum_key, Some(sum))]
    }

    /// Spawn W consumer/producer pairs; `make(i)` builds event i in the producer.
    async fn pump<T, F>(&self, make: F) -> (u64, u64)
    where
        T: Event,
        F: Fn(u64) -> T + Clone + Send + 'static,
    {
        let mut consumers = Vec::with_capacity(self.workers);
        for _ in 0..self.workers {
            let (tx, mut rx) = mpsc::channel::<T>(self.queue);
            consumers.push(tokio::spawn(async move {
                let (mut count, mut sum) = (0u64, 0u64);
                while let Some(event) = rx.recv().await {
                    count += 1;
                    sum += event.value();
                }
                (count, sum)
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
        let (mut count, mut sum) = (0u64, 0u64);
        for consumer in consumers {
            let (c, s) = joined(consumer.await);
            count += c;
            sum += s;
        }
        (count, sum)
    }
}
