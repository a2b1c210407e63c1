package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spawn-idle (seed 004): spawn N goroutines that each sleep H ms; mark the
// moment all of them have started, then wait for all.

var spawnIdleParams = []string{"tasks", "hold-ms"}

type spawnIdleResult struct {
	Tasks int64 `json:"tasks"`
	// goroutines alive when the last one started (informational): N tasks,
	// main and the runtime's own; read after the mark's clock, one atomic load
	GoroutinesAtMark int `json:"go_goroutines_at_mark"`
}

func newSpawnIdle(p params) (runner, error) {
	tasks, err := p.int("tasks", 0)
	if err != nil {
		return nil, err
	}
	hold, err := p.millis("hold-ms")
	if err != nil {
		return nil, err
	}

	return func(index int) (time.Duration, any) {
		var started, completed atomic.Int64
		allStarted := make(chan struct{}) // closed by the goroutine that brings started to N
		var wg sync.WaitGroup
		start := time.Now()
		if tasks == 0 {
			close(allStarted)
		}
		wg.Add(tasks)
		for range tasks {
			go func() {
				if started.Add(1) == int64(tasks) {
					close(allStarted)
				}
				time.Sleep(hold)
				completed.Add(1)
				wg.Done()
			}()
		}
		<-allStarted
		emitMark("all-spawned", index, time.Since(start))
		atMark := runtime.NumGoroutine()
		wg.Wait()
		elapsed := time.Since(start)
		return elapsed, spawnIdleResult{Tasks: completed.Load(), GoroutinesAtMark: atMark}
	}, nil
}
