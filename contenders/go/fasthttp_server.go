package main

import (
	"context"
	"net"

	"github.com/valyala/fasthttp"
)

// go-fasthttp: the http-* workloads on valyala/fasthttp, the Go ecosystem's
// minimal-tier HTTP/1.1 server (its own request parser over pooled
// RequestCtx objects, a worker-goroutine pool reused across connections, no
// http.Header map). Handlers match their one path by hand, as fasthttp
// programs without a router do.

// fasthttpVersion is the module version go.mod pins.
const fasthttpVersion = "v1.78.0"

// runFasthttp serves s.fast on ln until SIGTERM/SIGINT, then shuts down
// gracefully (idle connections closed, in-flight requests finished) for at
// most shutdownGrace; returning then exits 0, dropping what is left.
func (s server) runFasthttp(ln net.Listener) error {
	srv := &fasthttp.Server{
		Handler: s.fast,
		// fasthttp's defaults otherwise: keep-alive on, Concurrency 256 Ki
		// connections, 4 KiB read/write buffers per connection, Date and
		// Server headers, no timeouts (ReadTimeout would also be the idle
		// keep-alive limit), no request logging.
		NoDefaultServerHeader: true, // net/http sends none; keeps responses alike
	}

	// a DeadlineExceeded: the rest is dropped at exit
	stopped := shutdownOnSignal(srv.ShutdownWithContext)

	s.emitReady(ln, map[string]any{"server": "fasthttp", "fasthttp": fasthttpVersion})

	if err := srv.Serve(ln); err != nil {
		return err
	}
	if err := <-stopped; err != nil && err != context.DeadlineExceeded {
		return err
	}
	return nil
}

// fastNotFound answers 404 with net/http's text.
func fastNotFound(ctx *fasthttp.RequestCtx) {
	ctx.Error(notFound, fasthttp.StatusNotFound)
}

// fastMethodNotAllowed answers a method other than GET on the path, as
// net/http's "GET /path" pattern does (405, Allow: GET).
func fastMethodNotAllowed(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Allow", "GET, HEAD")
	ctx.Error("Method Not Allowed\n", fasthttp.StatusMethodNotAllowed)
}
