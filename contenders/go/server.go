package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// Server workloads (http-*): the standard library's net/http server, no
// framework, as seed 004 ("net/http default server"). One goroutine per
// connection (net/http's own model); no access log, nothing per request.

// shutdownGrace bounds the graceful Shutdown on SIGTERM; the contract wants the
// process gone within 5 s, so after this the remaining connections are closed.
const shutdownGrace = 3 * time.Second

// A server is a validated server workload, ready to listen.
type server struct {
	bind    string // --bind: the IPv4 address to listen on
	port    int
	handler http.Handler
	info    map[string]any // extra keys for the ready line's "runtime" object
}

type readyLine struct {
	Type    string         `json:"type"`
	Port    int            `json:"port"`
	Runtime map[string]any `json:"runtime"`
}

// port parses --port: 1..65535 (0 asks the kernel for a free one; the ready
// line then says which).
func (p params) port() (int, error) {
	port, err := p.int("port", 0)
	if err == nil && port > 65535 {
		err = fmt.Errorf("--port=%d: not a TCP port", port)
	}
	return port, err
}

// ipv4 parses parameter name (--bind, --backend-host) as an IPv4 address
// literal such as 127.0.0.1.
func (p params) ipv4(name string) (string, error) {
	a, err := netip.ParseAddr(*p[name])
	if err != nil || !a.Is4() {
		return "", fmt.Errorf("--%s=%s: not an IPv4 address", name, *p[name])
	}
	return a.String(), nil
}

// run binds bind:port (never a wildcard address), prints the ready line
// and serves until SIGTERM/SIGINT, then shuts down gracefully and returns nil.
func (s server) run() error {
	ln, err := net.Listen("tcp4", net.JoinHostPort(s.bind, strconv.Itoa(s.port)))
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler: s.handler,
		// The timeout production net/http servers set (the gosec linter's
		// G112 flags its absence); it never fires under the load generator.
		ReadHeaderTimeout: 10 * time.Second,
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	stopped := make(chan error, 1)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		err := srv.Shutdown(ctx) // stops accepting, closes idle connections, waits for active ones
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close() // in-flight requests may be dropped
		}
		stopped <- err
	}()

	rt := map[string]any{"cpus": runtime.GOMAXPROCS(0), "go": runtime.Version(), "server": "net/http"}
	for k, v := range s.info {
		rt[k] = v
	}
	emit(readyLine{"ready", ln.Addr().(*net.TCPAddr).Port, rt})

	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-stopped // Serve returns at once on Shutdown; wait for it to finish
}
