// Command latency-backend is the downstream service of concbench's http-aggregate workload
// (docs/contract.md, "Servers"). It answers GET /delay/<ms> with {"delay_ms":<ms>} after <ms>
// milliseconds and counts the requests it served and the milliseconds of delay it served them
// with (GET /stats → {"requests":n,"delay_ms":sum}), so the harness can check that a contender
// really made its downstream calls, with the delays asked for, during the measured window. It
// must never be the bottleneck: a goroutine per request parked on the runtime timer, no
// logging, a constant-size response, two atomic adds per request.
//
//	latency-backend --port=P [--bind=ADDR]   (binds ADDR:P, 127.0.0.1 by default; prints {"type":"ready","port":P,...})
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

var served, delayMs atomic.Int64

func delay(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/delay/"))
	if err != nil || ms < 0 || ms > 600_000 {
		http.Error(w, "want /delay/<ms> with 0 <= ms <= 600000", http.StatusBadRequest)
		return
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	// Counted before the response is written: a caller that has its answer is always counted.
	delayMs.Add(int64(ms))
	served.Add(1)
	body := []byte(`{"delay_ms":` + strconv.Itoa(ms) + "}")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func stats(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	// The count first: a request is added to the sum before it is counted, so the sum read
	// after the count covers every request counted.
	requests := served.Load()
	fmt.Fprintf(w, `{"requests":%d,"delay_ms":%d}`, requests, delayMs.Load())
}

func main() {
	port := flag.Int("port", 0, "TCP port to listen on")
	bind := flag.String("bind", "127.0.0.1", "address to listen on (a remote backend host binds its own address)")
	flag.Parse()
	if *port <= 0 || *port > 65535 {
		fmt.Fprintln(os.Stderr, "latency-backend: --port=P (1..65535) is required")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*bind, strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency-backend:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/delay/", delay)
	mux.HandleFunc("/stats", stats)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ready, _ := json.Marshal(map[string]any{"type": "ready", "port": *port,
		"runtime": map[string]any{"cpus": runtime.GOMAXPROCS(0), "go": runtime.Version()}})
	os.Stdout.Write(append(ready, '\n'))

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "latency-backend:", err)
		os.Exit(1)
	}
}
