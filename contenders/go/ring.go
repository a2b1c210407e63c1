package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
)

// ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings
// of W goroutines pass a token H times. Each goroutine receives on its own
// unbuffered channel (a rendezvous: the sender hands the value straight to the
// parked receiver) and sends the count minus one to the next goroutine's
// channel; the one that receives 0 is its ring's final holder.
//
// Set-up (outside the clock): the channels, every goroutine started and about
// to receive, ring 1's clock-reading slots touched. The clock starts when the
// main goroutine hands each ring's task 1 its token (count H) and stops when
// the last ring's final holder has reported. Closing every channel afterwards
// ends the goroutines; each then writes how many tokens it received.

var ringParams = []string{"rings", "size", "passes", "sample-every"}

type ringResult struct {
	Rings          int    `json:"rings"`
	Passes         int64  `json:"passes"`     // Σ tokens received, counted by the tasks
	HolderMin      int    `json:"holder_min"` // smallest final-holder id over the rings
	HolderMax      int    `json:"holder_max"`
	HandoffP50Ns   *int64 `json:"handoff_p50_ns,omitempty"` // omitted below 2 readings
	HandoffP99Ns   *int64 `json:"handoff_p99_ns,omitempty"`
	HandoffSamples int    `json:"handoff_samples"`
	TasksAlive     int    `json:"tasks_alive"`   // runtime.NumGoroutine() at the barrier − before the rings
	ClockReadNs    int64  `json:"clock_read_ns"` // one time.Since(base), as ring 1's readings take it
}

// ringSet is one iteration's rings: the channels, where every goroutine puts
// its count when it ends, and what the final holders report.
type ringSet struct {
	rings, size, passes, every int
	inboxes                    []chan int // rings×size, ring r's task i at r*size+i-1
	received                   []int64    // per task, written when the goroutine ends
	holders                    chan int   // each ring's final holder sends its id (buffered: R)
	ready, ended               sync.WaitGroup
	readings                   []int64 // ring 1: ns since base at count c (c%every == 0), slot c/every
	base                       time.Time
}

func newRing(p params) (runner, error) {
	v, err := p.ints(1, "rings", "passes")
	if err != nil {
		return nil, err
	}
	rings, passes := v[0], v[1]
	every, err := p.int("sample-every", 0) // 0: no clock read in the passes
	if err != nil {
		return nil, err
	}
	size, err := p.int("size", 2)
	if err != nil {
		return nil, err
	}
	// Ring 1's reading slots and the samples made of them: made once and reused, so
	// an iteration leaves no megabytes of garbage for the GC to collect during the
	// next one's passes.
	var readings, samples []int64
	if every > 0 {
		readings = make([]int64, passes/every+1)
		samples = make([]int64, 0, len(readings)-1)
	}
	return func(int) (time.Duration, any) {
		before := runtime.NumGoroutine()
		rs := startRings(rings, size, passes, every, readings)
		alive := runtime.NumGoroutine() - before // every ring goroutine, at its first receive
		cpu0 := processCPU()
		start := time.Now()
		for r := range rs.rings {
			rs.inboxes[r*rs.size] <- rs.passes // task 1 holds the token first
		}
		holderMin, holderMax := rs.size+1, 0
		for range rs.rings {
			id := <-rs.holders
			holderMin, holderMax = min(holderMin, id), max(holderMax, id)
		}
		elapsed := time.Since(start)
		cpu := processCPU() - cpu0
		res := rs.stop(holderMin, holderMax, samples)
		res.TasksAlive, res.ClockReadNs = alive, clockReadNs(rs.base)
		settle(before)
		return elapsed, timedCPU{res, cpu}
	}, nil
}

// startRings makes the channels and starts every goroutine, returning once all
// of them are at their first receive.
func startRings(rings, size, passes, every int, readings []int64) *ringSet {
	rs := &ringSet{rings: rings, size: size, passes: passes, every: every,
		inboxes:  make([]chan int, rings*size),
		received: make([]int64, rings*size),
		holders:  make(chan int, rings),
		readings: readings,
		base:     time.Now(),
	}
	for i := range rs.readings {
		rs.readings[i] = -1 // not read yet; also touches every page before the clock
	}
	for i := range rs.inboxes {
		rs.inboxes[i] = make(chan int)
	}
	rs.ready.Add(rings * size)
	rs.ended.Add(rings * size)
	for r := range rings {
		for i := 1; i <= size; i++ {
			go rs.task(r, i)
		}
	}
	rs.ready.Wait()
	return rs
}

// task is goroutine i (1..size) of ring r.
func (rs *ringSet) task(r, id int) {
	slot := r*rs.size + id - 1
	in := rs.inboxes[slot]
	out := rs.inboxes[r*rs.size+id%rs.size]
	sampled := r == 0 && rs.every > 0
	var received int64
	rs.ready.Done()
	if id == 1 {
		c := <-in // the token's first holder: given, not passed, so not counted
		if sampled && c%rs.every == 0 {
			rs.readings[c/rs.every] = time.Since(rs.base).Nanoseconds()
		}
		out <- c - 1
	}
	for c := range in {
		received++
		if sampled && c%rs.every == 0 {
			rs.readings[c/rs.every] = time.Since(rs.base).Nanoseconds()
		}
		if c == 0 {
			rs.holders <- id
			continue // wait for the close like the others
		}
		out <- c - 1
	}
	rs.received[slot] = received
	rs.ended.Done()
}

// stop closes every channel (no token is in flight once every ring's final
// holder has reported), waits for the goroutines to end and builds the result.
func (rs *ringSet) stop(holderMin, holderMax int, samples []int64) ringResult {
	for _, ch := range rs.inboxes {
		close(ch)
	}
	rs.ended.Wait()
	var passes int64
	for _, n := range rs.received {
		passes += n
	}
	res := ringResult{Rings: rs.rings, Passes: passes, HolderMin: holderMin, HolderMax: holderMax}
	samples = handoffSamples(rs.readings, rs.every, samples[:0])
	res.HandoffSamples = len(samples)
	if len(samples) > 0 {
		slices.Sort(samples)
		p50, p99 := nearestRank(samples, 50), nearestRank(samples, 99)
		res.HandoffP50Ns, res.HandoffP99Ns = &p50, &p99
	}
	return res
}

// handoffSamples turns ring 1's readings (slot c/every, taken at count c, so
// the highest slot is the earliest) into per-hand-off times: the gap between
// consecutive readings divided by every, appended to samples. Every count c ≤ H with c%every == 0
// passes through ring 1 once, so every slot is read; one that is not is a bug.
func handoffSamples(readings []int64, every int, samples []int64) []int64 {
	for s, ns := range readings {
		if ns < 0 {
			fmt.Fprintf(os.Stderr, "concbench-go: ring: ring 1 never took clock reading %d\n", s)
			os.Exit(1)
		}
	}
	for s := len(readings) - 1; s > 0; s-- {
		samples = append(samples, (readings[s-1]-readings[s])/int64(every))
	}
	return samples
}

// settle waits (at most a second, outside the clock) until the goroutines
// this iteration started have exited, not only marked themselves ended, so
// the next iteration's count before its rings is the main goroutine's alone
// and its tasks_alive counts its own rings only.
func settle(before int) {
	for deadline := time.Now().Add(time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		runtime.Gosched()
	}
}

// clockReadNs is the cost of one reading as ring 1 takes it (time.Since: a
// vDSO read of the wall and monotonic clocks), the mean of 10 000 in a row.
func clockReadNs(base time.Time) int64 {
	const reads = 10_000
	var sink time.Duration
	start := time.Now()
	for range reads {
		sink += time.Since(base)
	}
	total := time.Since(start)
	if sink == 0 {
		fmt.Fprintln(os.Stderr, "concbench-go: ring: the clock did not move")
	}
	return (total.Nanoseconds() + reads/2) / reads
}

// nearestRank is the p-th percentile by the nearest-rank method: the smallest
// sample with at least p % of the samples at or below it; samples are sorted.
func nearestRank(samples []int64, p int) int64 {
	rank := (p*len(samples) + 99) / 100 // ⌈p·n/100⌉, ≥ 1 for n ≥ 1
	return samples[rank-1]
}
