package main

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// sleep-tasks (seed 001): N goroutines; each sleeps, then runs K steps of a
// 32-bit chain seeded at run time (docs/contract.md).

var sleepTasksParams = []string{"tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"}

type sleepTasksResult struct {
	Tasks      int64 `json:"tasks"`
	CPUSum     int64 `json:"cpu_sum"`
	SleptMinNs int64 `json:"slept_min_ns"` // shortest sleep a task timed around its own time.Sleep
	PoolSize   *int  `json:"pool_size"`    // always null: one goroutine per task
}

// cpuChain runs k steps of x = x*1664525 + 1013904223, s += x from x = seed;
// uint32 arithmetic wraps mod 2³² as the contract asks. Each step needs the
// previous x, so the loop is one multiply-add chain, not vectorisable.
func cpuChain(seed uint32, k int) uint32 {
	x, s := seed, uint32(0)
	for range k {
		x = x*1664525 + 1013904223
		s += x
	}
	return s
}

func newSleepTasks(p params) (runner, error) {
	v, err := p.ints(0, "tasks", "cpu-iters", "cpu-seed", "pool-size")
	if err != nil {
		return nil, err
	}
	sleep, err := p.millis("sleep-ms")
	if err != nil {
		return nil, err
	}
	tasks, iters, seed := v[0], v[1], v[2]
	if seed > math.MaxUint32 {
		return nil, fmt.Errorf("--cpu-seed=%d: must be below 2^32", seed)
	}

	return func(int) (time.Duration, any) {
		var done, cpuSum atomic.Int64 // one Add each per task, not per loop step
		var slept minSleep
		slept.reset()
		var wg sync.WaitGroup
		start := time.Now()
		wg.Add(tasks)
		for range tasks {
			go func() {
				defer wg.Done()
				slept.record(timedSleep(sleep))
				cpuSum.Add(int64(cpuChain(uint32(seed), iters)))
				done.Add(1)
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		return elapsed, sleepTasksResult{Tasks: done.Load(), CPUSum: cpuSum.Load(), SleptMinNs: slept.nanos()}
	}, nil
}
