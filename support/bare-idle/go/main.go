// Bare idle goroutines: the reference for spawn-idle's bytes per task.
//
//	bare-idle-go N HOLD_MS
//
// Spawns N goroutines that each only sleep HOLD_MS, prints "spawned" once the
// spawning loop is done, then waits for all of them (sync.WaitGroup) and exits.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: bare-idle-go N HOLD_MS")
		os.Exit(2)
	}
	n, err1 := strconv.Atoi(os.Args[1])
	ms, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "usage: bare-idle-go N HOLD_MS")
		os.Exit(2)
	}
	d := time.Duration(ms) * time.Millisecond
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		go func() { time.Sleep(d); wg.Done() }()
	}
	os.Stdout.WriteString("spawned\n") // os.Stdout is unbuffered: one write(2)
	wg.Wait()
}
