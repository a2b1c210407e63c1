package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// channel (seed 002, bench-of-chan): W consumers, each with its own buffered
// channel of capacity Q fed by its own producer with E events.
//
// Each event kind has its own element type, so the channel carries the value
// itself (no interface boxing):
//
//	int        chan int      the index i, no allocation
//	str        chan string   newString: a new S-byte string built per event
//	str_ptr    chan *string  a pointer to one shared S-byte string
//	str_clone  chan string   strings.Clone of a prototype: a new S-byte copy per event
//
// String consumers keep the previous event's string alive until the next one
// arrives and compare the two strings' data pointers (unsafe.StringData): one
// pointer compare per event counts the events that carried the very same
// allocation as the one before (same_as_prev).

var channelParams = []string{"workers", "events", "queue", "etype", "esize"}

type channelIntResult struct {
	Events    int64 `json:"events"`
	ValueSum  int64 `json:"value_sum"`
	MinEvents int64 `json:"min_events"` // fewest events one consumer received
	MaxEvents int64 `json:"max_events"` // most events one consumer received
}

type channelStrResult struct {
	Events     int64 `json:"events"`
	Bytes      int64 `json:"bytes"`
	MinEvents  int64 `json:"min_events"`
	MaxEvents  int64 `json:"max_events"`
	SameAsPrev int64 `json:"same_as_prev"` // events whose string is the previous event's allocation
}

// tally is what one consumer counted: events received, the sum of their
// values (int) or lengths in bytes (strings), and (strings) how many events
// carried the same allocation as the event before.
type tally struct{ events, sum, same int64 }

// noPrev is the "previous string" before the first event: its data is in the
// binary's read-only data, so it matches no event's string, not even an empty one.
var noPrev = "(no previous event)"

func newChannel(p params) (runner, error) {
	v, err := p.ints(0, "workers", "events", "esize")
	if err != nil {
		return nil, err
	}
	workers, events, size := v[0], v[1], v[2]
	queue, err := p.int("queue", 1) // a bounded queue; 0 would be an unbuffered (rendezvous) channel
	if err != nil {
		return nil, err
	}
	proto := strings.Repeat("x", size) // shared by str_ptr, copied by str_clone

	var run func() []tally
	switch etype := *p["etype"]; etype {
	case "int":
		run = func() []tally {
			return pipes(workers, queue,
				func(ch chan<- int) {
					for i := range events {
						ch <- i
					}
					close(ch)
				},
				func(ch <-chan int) (t tally) {
					for v := range ch {
						t.events++
						t.sum += int64(v)
					}
					return t
				})
		}
	case "str", "str_clone":
		next := func() string { return newString(size) }
		if etype == "str_clone" {
			next = func() string { return strings.Clone(proto) }
		}
		run = func() []tally {
			return pipes(workers, queue,
				func(ch chan<- string) {
					for range events {
						ch <- next()
					}
					close(ch)
				},
				consumeStrings)
		}
	case "str_ptr":
		shared := &proto
		run = func() []tally {
			return pipes(workers, queue,
				func(ch chan<- *string) {
					for range events {
						ch <- shared
					}
					close(ch)
				},
				func(ch <-chan *string) (t tally) {
					prev := noPrev
					for p := range ch {
						s := *p
						t.events++
						t.sum += int64(len(s))
						if unsafe.StringData(s) == unsafe.StringData(prev) {
							t.same++
						}
						prev = s
					}
					return t
				})
		}
	default:
		return nil, fmt.Errorf("--etype=%s: want int, str, str_ptr or str_clone", etype)
	}
	isInt := *p["etype"] == "int"

	return func(int) (time.Duration, any) {
		start := time.Now()
		tallies := run()
		elapsed := time.Since(start)
		var total tally
		var minEvents, maxEvents int64 // 0 and 0 when there are no consumers
		for i, t := range tallies {
			total.events += t.events
			total.sum += t.sum
			total.same += t.same
			if i == 0 || t.events < minEvents {
				minEvents = t.events
			}
			maxEvents = max(maxEvents, t.events)
		}
		if isInt {
			return elapsed, channelIntResult{total.events, total.sum, minEvents, maxEvents}
		}
		return elapsed, channelStrResult{total.events, total.sum, minEvents, maxEvents, total.same}
	}, nil
}

// newString builds a new string of size bytes with one allocation. strings.Repeat
// returns its argument itself for a count of 1, so that case is cloned instead.
func newString(size int) string {
	if size == 1 {
		return strings.Clone("x")
	}
	return strings.Repeat("x", size)
}

func consumeStrings(ch <-chan string) (t tally) {
	prev := noPrev
	for s := range ch {
		t.events++
		t.sum += int64(len(s))
		if unsafe.StringData(s) == unsafe.StringData(prev) {
			t.same++
		}
		prev = s
	}
	return t
}

// pipes starts, per worker, a channel of capacity queue, a producer goroutine
// that fills and closes it and a consumer goroutine that drains it; it returns
// the consumers' tallies once all consumers are done.
func pipes[T any](workers, queue int, produce func(chan<- T), consume func(<-chan T) tally) []tally {
	tallies := make([]tally, workers)
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := range workers {
		ch := make(chan T, queue)
		go func() {
			defer wg.Done()
			tallies[w] = consume(ch)
		}()
		go produce(ch)
	}
	wg.Wait()
	return tallies
}
