package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Server workloads (http-*): the standard library's net/http server, no
// framework, as seed 004 ("net/http default server"). One goroutine per
// connection (net/http's own model); no access log, nothing per request.
// The variant go-fasthttp serves the same workloads with valyala/fasthttp
// (fasthttp_server.go).

// shutdownGrace bounds the graceful Shutdown on SIGTERM; the contract wants the
// process gone within 5 s, so after this the remaining connections are closed.
const shutdownGrace = 3 * time.Second

// A server is a validated server workload, ready to listen.
type server struct {
	bind    string // --bind: the IPv4 address to listen on
	port    int
	handler http.Handler            // net/http's handler, or nil when fast is set
	fast    fasthttp.RequestHandler // fasthttp's handler (go-fasthttp)
	info    map[string]any          // extra keys for the ready line's "runtime" object
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
	if s.fast != nil {
		return s.runFasthttp(ln)
	}
	srv := &http.Server{
		Handler: s.handler,
		// The timeout production net/http servers set (the gosec linter's
		// G112 flags its absence); it never fires under the load generator.
		ReadHeaderTimeout: 10 * time.Second,
	}

	stopped := shutdownOnSignal(func(ctx context.Context) error {
		err := srv.Shutdown(ctx) // stops accepting, closes idle connections, waits for active ones
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close() // in-flight requests may be dropped
		}
		return err
	})

	s.emitReady(ln, map[string]any{"server": "net/http"})

	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-stopped // Serve returns at once on Shutdown; wait for it to finish
}

// shutdownOnSignal runs shutdown, given shutdownGrace, once SIGTERM or SIGINT
// arrives; its error comes on the returned channel.
func shutdownOnSignal(shutdown func(context.Context) error) <-chan error {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	stopped := make(chan error, 1)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		stopped <- shutdown(ctx)
	}()
	return stopped
}

// emitReady prints the ready line: the port ln listens on, the runtime's CPUs,
// the Go version, the stack's keys and the workload's.
func (s server) emitReady(ln net.Listener, stackInfo map[string]any) {
	rt := map[string]any{"cpus": runtime.GOMAXPROCS(0), "go": runtime.Version()}
	maps.Copy(rt, stackInfo)
	maps.Copy(rt, s.info)
	emit(readyLine{"ready", ln.Addr().(*net.TCPAddr).Port, rt})
}

// notFound is the body of every 404, net/http's http.NotFound text, which
// go-fasthttp answers too.
const notFound = "404 page not found\n"
