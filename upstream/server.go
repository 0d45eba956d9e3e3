package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// MaxBytes is the largest body /bytes/{n} serves.
const MaxBytes = 10 << 20

// Options are the server's behaviour flags.
type Options struct {
	Latency       time.Duration // added before every response except /health
	LatencyJitter time.Duration // uniform ±jitter around Latency
	MaxRPS        float64       // 0: unlimited
	QueueTimeout  time.Duration // longest wait for a rate-limit token before 503
}

// response is a precomputed answer; fasthttp adds Content-Length from the body (and leaves it
// out where HTTP forbids it: 204, 304).
type response struct {
	status      int
	contentType []byte
	body        []byte
}

var (
	typeText   = []byte("text/plain; charset=utf-8")
	typeJSON   = []byte("application/json; charset=utf-8")
	typeBinary = []byte("application/octet-stream")

	prefixCountries = []byte("/countries/")
	prefixAlpha     = []byte("/v3.1/alpha/")
	prefixBytes     = []byte("/bytes/")
	prefixStatus    = []byte("/status/")
)

func jsonError(status int) *response {
	return &response{status, typeJSON,
		[]byte(`{"status":` + strconv.Itoa(status) + `,"message":"` + http.StatusText(status) + `"}`)}
}

var (
	healthResponse     = &response{http.StatusOK, typeText, []byte("ok\n")}
	valuesResponse     = &response{http.StatusOK, typeJSON, []byte(`["value1","value2"]`)}
	notFoundResponse   = jsonError(http.StatusNotFound)
	notAllowedResponse = jsonError(http.StatusMethodNotAllowed)
	overloadedResponse = jsonError(http.StatusServiceUnavailable)
	badBytesResponse   = &response{http.StatusBadRequest, typeText, []byte("bytes: n must be an integer from 0 to 10485760\n")}
	badStatusResponse  = &response{http.StatusBadRequest, typeText, []byte("status: code must be an integer from 200 to 599\n")}
	statusResponses    [600]*response
)

func init() {
	for code := 200; code < 600; code++ {
		text := http.StatusText(code)
		if text == "" {
			text = "Status"
		}
		statusResponses[code] = &response{code, typeText, []byte(strconv.Itoa(code) + " " + text + "\n")}
	}
	// No body may follow these.
	statusResponses[http.StatusNoContent] = &response{status: http.StatusNoContent}
	statusResponses[http.StatusNotModified] = &response{status: http.StatusNotModified}
}

// Server answers the upstream routes. Build it with NewServer.
type Server struct {
	opts      Options
	countries [26 * 26]*response // by alpha-2 code, letters folded to lower case
	payload   []byte             // MaxBytes bytes that /bytes/{n} slices
	bucket    *Bucket
}

// NewServer precomputes every body: country documents, the /bytes payload, status answers.
func NewServer(opts Options) (*Server, error) {
	docs, err := countryDocuments()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, payload: make([]byte, MaxBytes)}
	for code, doc := range docs {
		s.countries[countryIndex([]byte(code))] = &response{http.StatusOK, typeJSON, doc}
	}
	const pattern = "proxybench-upstream payload 0123456789 abcdefghijklmnopqrstuvwxyz\n"
	for i := range s.payload {
		s.payload[i] = pattern[i%len(pattern)]
	}
	if opts.MaxRPS > 0 {
		s.bucket = NewBucket(opts.MaxRPS, DefaultBurst(opts.MaxRPS), opts.QueueTimeout)
	}
	return s, nil
}

// HTTPServer is the HTTP/1.1 server that serves s: keep-alive, no access log, headers up to
// 16 KiB, Server and Date on every response.
func (s *Server) HTTPServer() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:               s.Handle,
		Name:                  "proxybench-upstream",
		ReadBufferSize:        16 << 10,
		ReadTimeout:           30 * time.Second,
		IdleTimeout:           120 * time.Second,
		MaxRequestBodySize:    1 << 20,
		NoDefaultContentType:  true,
		CloseOnShutdown:       true,
		SecureErrorLogMessage: true,
	}
}

// countryIndex maps a two-letter code (either case) to its slot, or -1.
func countryIndex(code []byte) int {
	if len(code) != 2 {
		return -1
	}
	a, b := code[0]|0x20, code[1]|0x20 // ASCII letters to lower case
	if a < 'a' || a > 'z' || b < 'a' || b > 'z' {
		return -1
	}
	return int(a-'a')*26 + int(b-'a')
}

// Handle answers one request.
func (s *Server) Handle(ctx *fasthttp.RequestCtx) {
	path := ctx.Path()
	get := ctx.IsGet() || ctx.IsHead()
	if string(path) == "/health" { // never delayed, never limited
		if !get {
			notAllowed(ctx)
			return
		}
		reply(ctx, healthResponse)
		return
	}
	var resp *response
	n := -1 // the size asked of /bytes/{n}
	switch {
	case string(path) == "/api/values":
		resp = valuesResponse
	case string(path) == "/echo/headers":
		resp = echoHeaders(ctx)
	case string(path) == "/graphql": // POST: the extensibility study's subgraph
		if s.hold() {
			reply(ctx, serveGraphQL(ctx))
		} else {
			reply(ctx, overloadedResponse)
		}
		return
	case bytes.HasPrefix(path, prefixCountries):
		resp = s.country(path[len(prefixCountries):])
	case bytes.HasPrefix(path, prefixAlpha):
		resp = s.country(path[len(prefixAlpha):])
	case bytes.HasPrefix(path, prefixBytes):
		resp = badBytesResponse
		if size, ok := parseInt(path[len(prefixBytes):], MaxBytes); ok {
			resp, n = nil, size
		}
	case bytes.HasPrefix(path, prefixStatus):
		resp = badStatusResponse
		if code, ok := parseInt(path[len(prefixStatus):], 599); ok && code >= 200 {
			resp = statusResponses[code]
		}
	default:
		if s.servePingPongREST(ctx, path) {
			return
		}
		reply(ctx, notFoundResponse) // not a route: neither delayed nor limited
		return
	}
	if !get {
		notAllowed(ctx)
		return
	}
	if !s.hold() {
		reply(ctx, overloadedResponse)
		return
	}
	if n >= 0 {
		ctx.Response.Header.SetContentTypeBytes(typeBinary)
		ctx.Response.SetBodyRaw(s.payload[:n])
		return
	}
	reply(ctx, resp)
}

// hold applies the rate limit, then the added latency, to one request; false: the rate limit
// refused it (no slot within the queue timeout).
func (s *Server) hold() bool {
	if s.bucket != nil {
		wait, ok := s.bucket.Reserve(time.Now())
		if !ok {
			return false
		}
		sleep(wait)
	}
	if s.opts.Latency > 0 || s.opts.LatencyJitter > 0 {
		sleep(latency(s.opts.Latency, s.opts.LatencyJitter, rand.Int64N))
	}
	return true
}

// echoHeaders answers with the request's headers as one JSON object, names in lower case and
// repeated headers joined with ", ": what a proxy sent the upstream, for checks on every response.
func echoHeaders(ctx *fasthttp.RequestCtx) *response {
	body, _ := json.Marshal(requestHeaders(ctx)) // a map of strings always encodes
	return &response{http.StatusOK, typeJSON, body}
}

// requestHeaders are the request's headers, names in lower case, repeated ones joined with ", ".
func requestHeaders(ctx *fasthttp.RequestCtx) map[string]string {
	seen := map[string]string{}
	ctx.Request.Header.VisitAll(func(name, value []byte) {
		key := string(bytes.ToLower(name))
		if prev, ok := seen[key]; ok {
			seen[key] = prev + ", " + string(value)
		} else {
			seen[key] = string(value)
		}
	})
	return seen
}

func (s *Server) country(code []byte) *response {
	if i := countryIndex(code); i >= 0 && s.countries[i] != nil {
		return s.countries[i]
	}
	return notFoundResponse
}

func reply(ctx *fasthttp.RequestCtx, resp *response) {
	ctx.SetStatusCode(resp.status)
	if resp.contentType != nil {
		ctx.Response.Header.SetContentTypeBytes(resp.contentType)
	}
	ctx.Response.SetBodyRaw(resp.body)
}

func notAllowed(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Allow", "GET, HEAD")
	reply(ctx, notAllowedResponse)
}

// parseInt reads a plain decimal integer from 0 to max (digits only: no sign, no spaces).
func parseInt(s []byte, max int) (int, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= max
}

// latency draws the delay of one response: uniform in [base-jitter, base+jitter], never
// negative. randN(n) returns a uniform integer in [0, n).
func latency(base, jitter time.Duration, randN func(int64) int64) time.Duration {
	d := base
	if jitter > 0 {
		d += time.Duration(randN(int64(2*jitter)+1)) - jitter
	}
	if d < 0 {
		return 0
	}
	return d
}

func sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}
