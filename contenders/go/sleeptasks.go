package main

import (
	"sync"
	"sync/atomic"
	"time"
)

// sleep-tasks (seed 001): N goroutines; each sleeps, then runs a small CPU loop.

var sleepTasksParams = []string{"tasks", "sleep-ms", "cpu-iters", "pool-size"}

type sleepTasksResult struct {
	Tasks    int64 `json:"tasks"`
	CPUSum   int64 `json:"cpu_sum"`
	PoolSize *int  `json:"pool_size"` // always null: one goroutine per task
}

func newSleepTasks(p params) (runner, error) {
	v, err := p.ints(0, "tasks", "cpu-iters", "pool-size")
	if err != nil {
		return nil, err
	}
	sleep, err := p.millis("sleep-ms")
	if err != nil {
		return nil, err
	}
	tasks, iters := v[0], v[1]

	return func(int) (time.Duration, any) {
		var done, cpuSum atomic.Int64 // one Add each per task, not per loop step
		var wg sync.WaitGroup
		start := time.Now()
		wg.Add(tasks)
		for range tasks {
			go func() {
				defer wg.Done()
				time.Sleep(sleep)
				var s int64
				for i := 0; i < iters; i++ {
					s += int64(i % 2)
				}
				cpuSum.Add(s)
				done.Add(1)
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		return elapsed, sleepTasksResult{Tasks: done.Load(), CPUSum: cpuSum.Load()}
	}, nil
}
