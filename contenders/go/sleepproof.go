package main

import (
	"math"
	"sync/atomic"
	"time"
)

// Proofs that a task slept on a timer of its own (docs/contract.md, fanout and
// sleep-tasks): the task reads the monotonic clock right before its sleep call
// and right after it returns, and the shortest such duration is kept.

// minSleep is the shortest sleep recorded so far, shared by many goroutines;
// reset it before use. sync/atomic has no Min, so record is a compare-and-swap
// loop that only writes when it lowers the value: once the minimum has
// settled, a record is a single Load.
type minSleep struct{ ns atomic.Int64 }

func (m *minSleep) reset() { m.ns.Store(math.MaxInt64) }

func (m *minSleep) record(slept time.Duration) {
	ns := int64(slept)
	for cur := m.ns.Load(); ns < cur; cur = m.ns.Load() {
		if m.ns.CompareAndSwap(cur, ns) {
			return
		}
	}
}

// nanos is the shortest sleep recorded, or 0 if none was (no task ran).
func (m *minSleep) nanos() int64 {
	if ns := m.ns.Load(); ns != math.MaxInt64 {
		return ns
	}
	return 0
}

// timedSleep is time.Sleep(d) with the monotonic clock read around the call;
// it returns how long the sleep took.
func timedSleep(d time.Duration) time.Duration {
	before := time.Now()
	time.Sleep(d)
	return time.Since(before)
}
