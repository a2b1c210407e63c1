package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// http-aggregate (seed 003): GET /user/{id} waits for a base call, then for
// the detail and extra calls concurrently (each in its own goroutine, joined
// by a sync.WaitGroup), and answers the user as JSON.

var aggregateParams = []string{"port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream", "backend-host", "backend-port", "pool-size"}

// Client pool for downstream=http. DefaultTransport keeps at most 2 idle
// connections per host (and 100 in all): with hundreds of calls in flight
// to the one backend, almost every call would dial a new connection and
// close it afterwards. So idle connections are kept up to maxIdlePerHost,
// and the number of connections is not capped.
const (
	maxIdlePerHost = 4096
	maxConnsHost   = 0 // 0: no limit on connections to the backend
)

// userInfo is the response body, encoded by encoding/json (which writes
// non-ASCII such as "VIP会员" as plain UTF-8).
type userInfo struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Age   int    `json:"age"`
	Sex   int    `json:"sex"`
	Phone string `json:"phone"`
	Level string `json:"level"`
}

// A call is one downstream call; it returns when the downstream has answered.
type call func(ctx context.Context) error

func newAggregate(p params, st stack) (server, error) {
	port, err := p.port()
	if err != nil {
		return server{}, err
	}
	bind, err := p.ipv4("bind")
	if err != nil {
		return server{}, err
	}
	d, err := p.allMillis("base-ms", "detail-ms", "extra-ms")
	if err != nil {
		return server{}, err
	}
	if _, err := p.int("pool-size", 0); err != nil { // validated, then ignored: not pooled
		return server{}, err
	}
	backendHost, err := p.ipv4("backend-host")
	if err != nil {
		return server{}, err
	}
	backendPort, err := p.int("backend-port", 0)
	if err != nil {
		return server{}, err
	}

	var base, detail, extra call
	var waits *waitsProof // downstream=inproc only; nil (GET /waits: 404) with http
	info := map[string]any{"downstream": *p["downstream"]}
	switch *p["downstream"] {
	case "inproc": // backend-host and backend-port are not used
		waits = newWaitsProof()
		base, detail, extra = sleepCall(d[0], &waits.base), sleepCall(d[1], &waits.detail), sleepCall(d[2], &waits.extra)
	case "http":
		if backendPort < 1 || backendPort > 65535 {
			return server{}, fmt.Errorf("--backend-port=%d: want a TCP port for --downstream=http", backendPort)
		}
		addr := net.JoinHostPort(backendHost, strconv.Itoa(backendPort))
		prefix := "http://" + addr + "/delay/"
		urls := make([]string, 3)
		for i := range urls {
			urls[i] = prefix + strconv.FormatInt(d[i].Milliseconds(), 10)
		}
		if st == stackFasthttp {
			client := newFastBackendClient(addr)
			base, detail, extra = fastCall(client, urls[0]), fastCall(client, urls[1]), fastCall(client, urls[2])
			info["client_pool"] = map[string]any{"client": "fasthttp.HostClient", "max_conns": fastMaxConns}
			break
		}
		client := newBackendClient()
		base, detail, extra = httpCall(client, urls[0]), httpCall(client, urls[1]), httpCall(client, urls[2])
		info["client_pool"] = map[string]any{"max_idle_conns_per_host": maxIdlePerHost, "max_conns_per_host": "unbounded"}
	default:
		return server{}, fmt.Errorf("--downstream=%s: want inproc or http", *p["downstream"])
	}

	if st == stackFasthttp {
		return server{bind: bind, port: port, fast: fastAggregate(base, detail, extra, waits), info: info}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /user/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, ok := parseID(r.PathValue("id"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, status, err := aggregateUser(r.Context(), id, base, detail, extra)
		if err != nil {
			http.Error(w, err.Error(), status)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
	if waits != nil {
		mux.HandleFunc("GET /waits", func(w http.ResponseWriter, _ *http.Request) {
			body := waits.json()
			h := w.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		})
	}
	return server{bind: bind, port: port, handler: mux, info: info}, nil
}

// aggregateUser is the handler's work: base on the handler goroutine, then
// detail and extra each in its own goroutine joined by a sync.WaitGroup, then
// the JSON body. On failure it returns the status to answer (502, or 500 if
// the encoding failed) and the error.
func aggregateUser(ctx context.Context, id int64, base, detail, extra call) ([]byte, int, error) {
	if err := base(ctx); err != nil {
		return nil, http.StatusBadGateway, fmt.Errorf("base: %w", err)
	}
	var wg sync.WaitGroup
	var detailErr, extraErr error
	wg.Add(2)
	go func() { defer wg.Done(); detailErr = detail(ctx) }()
	go func() { defer wg.Done(); extraErr = extra(ctx) }()
	wg.Wait()
	if err := errors.Join(detailErr, extraErr); err != nil {
		return nil, http.StatusBadGateway, err
	}
	body, err := json.Marshal(userInfo{id, "User-" + strconv.FormatInt(id, 10), 25, 1, "13800138000", "VIP会员"})
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	return body, http.StatusOK, nil
}

// maxID is the largest user id, 2^53 − 1: the integers every JSON reader
// holds exactly (docs/contract.md, "Error answers").
const maxID = 1<<53 - 1

// parseID accepts a user id: digits only (leading zeros allowed), 1..maxID.
// Anything else is a path no workload serves, answered 404.
func parseID(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id >= 1 && id <= maxID
}

// sleepCall is an in-process downstream call: time.Sleep parks the goroutine
// on the runtime timer (no OS thread blocked), timed and counted in proof.
func sleepCall(d time.Duration, proof *fetchProof) call {
	return func(context.Context) error {
		proof.sleep(d)
		return nil
	}
}

// waitsProof is docs/contract.md's "Proof of the waits" (downstream=inproc):
// each call counts one wait of its kind (base, detail, extra) and keeps the
// shortest, timed on the monotonic clock right around its own time.Sleep, so
// the harness can tell three real waits per request from one merged or
// skipped wait, none shorter than asked. fetchProof (fanout.go) does it off
// the sleep's timed span: after time.Since, one atomic Add and the
// compare-and-swap minimum (a single Load once the minimum has settled).
// Served as totals since start at GET /waits.
type waitsProof struct{ base, detail, extra fetchProof }

func newWaitsProof() *waitsProof {
	w := &waitsProof{}
	w.base.slept.reset()
	w.detail.slept.reset()
	w.extra.slept.reset()
	return w
}

// waitCount is one kind's totals in GET /waits: MinUs nil (null) before its
// first wait.
type waitCount struct {
	Count int64  `json:"count"`
	MinUs *int64 `json:"min_us"`
}

func (f *fetchProof) waitCount() waitCount {
	c := waitCount{Count: f.count.Load()}
	if ns := f.slept.ns.Load(); ns != math.MaxInt64 {
		us := ns / 1000 // whole µs, rounded down: never overstates a wait
		c.MinUs = &us
	}
	return c
}

// json is GET /waits's body: {"base": {"count": n, "min_us": m}, "detail": …, "extra": …}.
func (w *waitsProof) json() []byte {
	body, _ := json.Marshal(struct {
		Base   waitCount `json:"base"`
		Detail waitCount `json:"detail"`
		Extra  waitCount `json:"extra"`
	}{w.base.waitCount(), w.detail.waitCount(), w.extra.waitCount()})
	return body
}

// newBackendClient is net/http's client with a Transport tuned for many
// concurrent calls to one host (see maxIdlePerHost). HTTP/1.1 keep-alive.
func newBackendClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil, // the backend is reached directly; no proxy from the environment
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0, // no total cap on idle connections (DefaultTransport: 100)
		MaxIdleConnsPerHost: maxIdlePerHost,
		MaxConnsPerHost:     maxConnsHost,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // no Accept-Encoding: gzip; the backend does not compress
	}}
}

// httpCall is a GET of url: it reads the whole body (so the connection goes
// back to the pool) and wants status 200. It is bound to the incoming
// request's context: no timeout of its own, cancelled if the client goes away.
func httpCall(client *http.Client, url string) call {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: status %d", url, resp.StatusCode)
		}
		return nil
	}
}
