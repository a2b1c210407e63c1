// Command concbench-go is the Go contender of concbench. A batch workload runs
// W warm-up and N measured iterations in this process and prints one JSON line
// per iteration on stdout; a server workload (http-*) serves HTTP until
// SIGTERM. As docs/contract.md specifies:
//
//	concbench-go <workload> --<param>=<value> … --warmup=<W> --iterations=<N>
//	concbench-go [--server=net/http|fasthttp] http-<name> --port=<P> --<param>=<value> …
//
// A leading --server= picks the servers' HTTP stack (default net/http; the
// variant go-fasthttp passes --server=fasthttp): the same binary.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A runner performs one iteration of a workload. It returns the time the
// workload itself took and the iteration's result (marshalled as JSON).
type runner func(index int) (elapsed time.Duration, result any)

// A workload is either a batch workload (setup) or a server workload (serve).
type workload struct {
	params []string                                 // every parameter the workload takes; all are required
	setup  func(p params) (runner, error)           // batch: validates the values and builds the runner
	serve  func(p params, st stack) (server, error) // server: validates the values and builds the handler
}

// A stack is the HTTP server library the http-* workloads are served with.
type stack string

const (
	stackNetHTTP  stack = "net/http" // the standard library (the go contender)
	stackFasthttp stack = "fasthttp" // valyala/fasthttp (the variant go-fasthttp)
)

var workloads = map[string]workload{
	"fanout":         {params: fanoutParams, setup: newFanout},
	"sleep-tasks":    {params: sleepTasksParams, setup: newSleepTasks},
	"spawn-idle":     {params: spawnIdleParams, setup: newSpawnIdle},
	"channel":        {params: channelParams, setup: newChannel},
	"ring":           {params: ringParams, setup: newRing},
	"skynet":         {params: skynetParams, setup: newSkynet},
	"http-hello":     {params: helloParams, serve: newHello},
	"http-aggregate": {params: aggregateParams, serve: newAggregate},
}

// main exits 2 on bad input (parseArgs) and 1 on any later failure.
func main() {
	job, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "concbench-go:", err)
		os.Exit(2)
	}
	stopProfile, err := startCPUProfile(os.Getenv("CONCBENCH_CPUPROFILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "concbench-go:", err)
		os.Exit(1)
	}
	err = job()
	stopProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "concbench-go:", err)
		os.Exit(1)
	}
}

// startCPUProfile writes the runtime's own pprof CPU profile of the whole run to path
// (set by the harness's profiler, beside perf's flame graph); "" does nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CONCBENCH_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CONCBENCH_CPUPROFILE: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// runBatch runs warmup+iterations iterations and prints one line each.
func runBatch(run runner, warmup, iterations int) func() error {
	return func() error {
		var before, after runtime.MemStats
		for i := 0; i < warmup+iterations; i++ {
			runtime.ReadMemStats(&before)
			elapsed, result := run(i)
			runtime.ReadMemStats(&after) // outside the timed region, as the result is
			line := iterationLine{Type: "iteration", Index: i, Warmup: i < warmup,
				ElapsedNs: elapsed.Nanoseconds()}
			if timed, ok := result.(timedCPU); ok {
				cpu := timed.cpu.Nanoseconds()
				line.CPUNs, line.CPUTickNs, result = &cpu, &cpuTickNs, timed.result
			}
			line.Result = withRuntime(result, &before, &after)
			emit(line)
		}
		return nil
	}
}

// parseArgs checks the workload name and that exactly its parameters (plus
// warmup and iterations for batch workloads) are given, each once, as
// --name=value. It returns the job to run: the iterations, or the server.
func parseArgs(args []string) (job func() error, err error) {
	st, chosen, args, err := serverStack(args)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errors.New("usage: concbench-go [--server=net/http|fasthttp] <workload> --<param>=<value> … [--warmup=<W> --iterations=<N>]")
	}
	w, ok := workloads[args[0]]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", args[0])
	}
	if chosen && w.serve == nil {
		return nil, fmt.Errorf("--server applies only to the http-* workloads, not %s", args[0])
	}
	names := w.params
	if w.setup != nil {
		names = slices.Concat(w.params, []string{"warmup", "iterations"})
	}
	p, err := collectParams(args[0], names, args[1:])
	if err != nil {
		return nil, err
	}
	if w.serve != nil {
		srv, err := w.serve(p, st)
		if err != nil {
			return nil, err
		}
		return srv.run, nil
	}
	warmup, err := p.int("warmup", 0)
	if err != nil {
		return nil, err
	}
	iterations, err := p.int("iterations", 0)
	if err != nil {
		return nil, err
	}
	run, err := w.setup(p)
	if err != nil {
		return nil, err
	}
	return runBatch(run, warmup, iterations), nil
}

// serverStack takes a leading --server=<stack> off args; without one the
// stack is net/http.
func serverStack(args []string) (st stack, chosen bool, rest []string, err error) {
	if len(args) == 0 {
		return stackNetHTTP, false, args, nil
	}
	value, ok := strings.CutPrefix(args[0], "--server=")
	if !ok {
		return stackNetHTTP, false, args, nil
	}
	switch st := stack(value); st {
	case stackNetHTTP, stackFasthttp:
		return st, true, args[1:], nil
	}
	return "", false, nil, fmt.Errorf("--server=%s: want net/http or fasthttp", value)
}

// collectParams parses args as --name=value, each name in names exactly once.
func collectParams(workload string, names, args []string) (params, error) {
	allowed := map[string]bool{}
	for _, name := range names {
		allowed[name] = true
	}
	p := params{}
	for _, arg := range args {
		name, value, found := cutParam(arg)
		switch {
		case !found:
			return nil, fmt.Errorf("malformed argument %q (want --name=value)", arg)
		case !allowed[name]:
			return nil, fmt.Errorf("unknown parameter --%s for workload %s", name, workload)
		case p[name] != nil:
			return nil, fmt.Errorf("parameter --%s given twice", name)
		}
		p[name] = &value
	}
	for _, name := range names {
		if p[name] == nil {
			return nil, fmt.Errorf("missing parameter --%s for workload %s", name, workload)
		}
	}
	return p, nil
}

// cutParam splits "--name=value" (name non-empty) into name and value.
func cutParam(arg string) (name, value string, ok bool) {
	rest, ok := strings.CutPrefix(arg, "--")
	if !ok {
		return "", "", false
	}
	name, value, ok = strings.Cut(rest, "=")
	return name, value, ok && name != ""
}

// params holds the raw --name=value arguments.
type params map[string]*string

// int parses parameter name as a plain decimal integer (digits only) ≥ min.
func (p params) int(name string, min int) (int, error) {
	s := *p[name]
	if s == "" {
		return 0, fmt.Errorf("--%s: empty value", name)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("--%s=%s: not a non-negative integer", name, s)
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("--%s=%s: not a valid integer", name, s)
	}
	if v < min {
		return 0, fmt.Errorf("--%s=%s: must be at least %d", name, s, min)
	}
	return v, nil
}

// ints parses several integer parameters, all with the same minimum.
func (p params) ints(min int, names ...string) ([]int, error) {
	vs := make([]int, len(names))
	for i, name := range names {
		v, err := p.int(name, min)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

// millis parses parameter name as a whole number of milliseconds.
func (p params) millis(name string) (time.Duration, error) {
	v, err := p.int(name, 0)
	if err == nil && v > int(math.MaxInt64/time.Millisecond) {
		err = fmt.Errorf("--%s=%d: too large a duration", name, v)
	}
	return time.Duration(v) * time.Millisecond, err
}

// allMillis parses several millisecond parameters.
func (p params) allMillis(names ...string) ([]time.Duration, error) {
	ds := make([]time.Duration, len(names))
	for i, name := range names {
		d, err := p.millis(name)
		if err != nil {
			return nil, err
		}
		ds[i] = d
	}
	return ds, nil
}

type iterationLine struct {
	Type      string `json:"type"`
	Index     int    `json:"index"`
	Warmup    bool   `json:"warmup"`
	ElapsedNs int64  `json:"elapsed_ns"`
	Result    any    `json:"result"`
	CPUNs     *int64 `json:"cpu_ns,omitempty"`      // ring, skynet: process CPU over the timer
	CPUTickNs *int64 `json:"cpu_tick_ns,omitempty"` // that clock's resolution
}

type markLine struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Index     int    `json:"index"`
	ElapsedNs int64  `json:"elapsed_ns"`
}

// emitMark prints a mark line; spawn-idle uses it in the middle of an iteration.
func emitMark(name string, index int, elapsed time.Duration) {
	emit(markLine{"mark", name, index, elapsed.Nanoseconds()})
}

// emit writes one JSON line with a single write to the unbuffered os.Stdout,
// so every line reaches the harness at once.
func emit(line any) {
	b, err := json.Marshal(line)
	if err == nil {
		_, err = os.Stdout.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "concbench-go: writing output:", err)
		os.Exit(1)
	}
}

// withRuntime adds what the runtime did during the iteration to its result
// (informational keys, docs/contract.md): GC cycles and their stop-the-world
// pauses, and the goroutines and live heap left after it. The result is
// re-read with UseNumber, so 64-bit integers stay exact.
func withRuntime(result any, before, after *runtime.MemStats) any {
	raw, err := json.Marshal(result)
	if err != nil {
		return result
	}
	fields := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&fields) != nil {
		return result
	}
	fields["go_gc_cycles"] = after.NumGC - before.NumGC
	fields["go_gc_pause_ms"] = float64(after.PauseTotalNs-before.PauseTotalNs) / 1e6
	fields["go_goroutines"] = runtime.NumGoroutine()
	fields["go_heap_mib"] = after.HeapAlloc >> 20
	return fields
}
