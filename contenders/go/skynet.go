package main

import (
	"fmt"
	"runtime"
	"time"
)

// skynet (atemerev/skynet): a goroutine per tree node. As in the public Go
// skynet, every parent makes one unbuffered channel, starts its branch
// children with go statements and receives branch results from it; a child's
// send completes when its parent takes it, then the child ends. The channel
// carries {sum, tasks}: a leaf sends (its ordinal, 1), a parent
// (Σ sums, 1 + Σ tasks), so the task count is carried up the tree, not kept
// in a shared counter.

var skynetParams = []string{"size", "branch"}

// subtree is what a node returns to its parent.
type subtree struct {
	Sum   int64 `json:"sum"`   // Σ of the leaves' ordinals
	Tasks int64 `json:"tasks"` // goroutines run in the subtree, itself included
}

func newSkynet(p params) (runner, error) {
	size, err := p.int("size", 1)
	if err != nil {
		return nil, err
	}
	branch, err := p.int("branch", 2)
	if err != nil {
		return nil, err
	}
	for n := size; n > 1; n /= branch {
		if n%branch != 0 {
			return nil, fmt.Errorf("--size=%d is not a power of --branch=%d", size, branch)
		}
	}
	return func(int) (time.Duration, any) {
		firstLeaf.before = runtime.NumGoroutine()
		cpu0 := processCPU()
		start := time.Now()
		root := make(chan subtree)
		go skynet(root, 0, int64(size), int64(branch)) // the root is a task too
		result := <-root
		elapsed := time.Since(start)
		cpu := processCPU() - cpu0
		return elapsed, timedCPU{skynetResult{result, firstLeaf.alive}, cpu}
	}, nil
}

// skynetResult adds the live-goroutine proof to the root's subtree.
type skynetResult struct {
	subtree
	TasksAlive int `json:"tasks_alive"` // runtime.NumGoroutine() at leaf 0 − before the root
}

// firstLeaf: the goroutine count before the root is spawned, and what leaf 0
// (one goroutine, once per tree) reads when it runs: no race, as the root's
// result is received after leaf 0 has written it (a channel chain).
var firstLeaf struct{ before, alive int }

// skynet is the node for leaves num..num+size-1: it sends its subtree's result on out.
func skynet(out chan<- subtree, num, size, branch int64) {
	if size == 1 {
		if num == 0 {
			firstLeaf.alive = runtime.NumGoroutine() - firstLeaf.before
		}
		out <- subtree{Sum: num, Tasks: 1}
		return
	}
	children := make(chan subtree)
	child := size / branch
	for i := range branch {
		go skynet(children, num+i*child, child, branch)
	}
	total := subtree{Tasks: 1}
	for range branch {
		r := <-children
		total.Sum += r.Sum
		total.Tasks += r.Tasks
	}
	out <- total
}
