package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// http-aggregate on fasthttp (go-fasthttp): the same work as the net/http
// handler (aggregateUser), with fasthttp's own client for downstream=http.

// fastMaxConns caps the client's connections to the backend. fasthttp's
// default (DefaultMaxConnsPerHost) is 512: at 256 client connections each
// request has up to 2 calls in flight, so the default would sit at its edge
// and answer ErrNoFreeConns past it; the cap is set like net/http's idle pool.
const fastMaxConns = 4096

// fastAggregate serves GET /user/{id}, and GET /waits when waits is not nil
// (downstream=inproc), the paths matched by hand.
func fastAggregate(base, detail, extra call, waits *waitsProof) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		rest, ok := strings.CutPrefix(string(ctx.Path()), "/user/")
		id, valid := parseID(rest)
		switch {
		case !ok && waits != nil && string(ctx.Path()) == "/waits":
			if !ctx.IsGet() && !ctx.IsHead() {
				fastMethodNotAllowed(ctx)
				return
			}
			ctx.SetContentType("application/json")
			ctx.SetBody(waits.json())
			return
		case !ok || !valid:
			fastNotFound(ctx)
			return
		case !ctx.IsGet() && !ctx.IsHead():
			fastMethodNotAllowed(ctx)
			return
		}
		// *fasthttp.RequestCtx is a context.Context (Done when the server shuts down).
		body, status, err := aggregateUser(ctx, id, base, detail, extra)
		if err != nil {
			ctx.Error(err.Error(), status)
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(body)
	}
}

// newFastBackendClient is fasthttp's client for the one backend: a HostClient
// (what fasthttp.Client keeps per host) with keep-alive connections reused
// from its pool; idle ones closed after 90 s (fasthttp's default is 10 s), as
// net/http's IdleConnTimeout; no timeouts. Retries stay fasthttp's default: a
// GET whose reused connection broke before an answer is tried again (up to 5
// attempts), as net/http's Transport retries a request on a dead idle connection.
func newFastBackendClient(addr string) *fasthttp.HostClient {
	return &fasthttp.HostClient{
		Addr:                addr,
		MaxConns:            fastMaxConns,
		MaxIdleConnDuration: 90 * time.Second,
	}
}

// fastCall is a GET of url with fasthttp: Do reads the whole response body
// into the pooled Response; status 200 is required.
func fastCall(client *fasthttp.HostClient, url string) call {
	return func(context.Context) error {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI(url)
		if err := client.Do(req, resp); err != nil {
			return err
		}
		if resp.StatusCode() != fasthttp.StatusOK {
			return fmt.Errorf("%s: status %d", url, resp.StatusCode())
		}
		return nil
	}
}
