package main

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

// http-hello (seed 004): GET /hello answers 200 with a fixed 200-byte body.

var helloParams = []string{"port", "bind", "pool-size"}

func newHello(p params, st stack) (server, error) {
	port, err := p.port()
	if err != nil {
		return server{}, err
	}
	bind, err := p.ipv4("bind")
	if err != nil {
		return server{}, err
	}
	if _, err := p.int("pool-size", 0); err != nil { // validated, then ignored: not pooled
		return server{}, err
	}
	body := []byte(strings.Repeat("x", 199) + "\n") // built once at start-up
	length := strconv.Itoa(len(body))
	if st == stackFasthttp {
		return server{bind: bind, port: port, fast: fastHello(body)}, nil
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8") // set, so net/http does not sniff the body
		h.Set("Content-Length", length)
		w.Write(body)
	})
	return server{bind: bind, port: port, handler: mux}, nil
}

// fastHello is http-hello on fasthttp: the path matched by hand; the body is
// set without a copy (SetBodyRaw: it is never modified), fasthttp adds
// Content-Length.
func fastHello(body []byte) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		switch {
		case string(ctx.Path()) != "/hello":
			fastNotFound(ctx)
		case !ctx.IsGet() && !ctx.IsHead():
			fastMethodNotAllowed(ctx)
		default:
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.Response.SetBodyRaw(body)
		}
	}
}
