package main

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// response is a precomputed answer: its header values are shared slices, assigned into the
// header map without allocating.
type response struct {
	status        int
	body          []byte
	contentType   []string
	contentLength []string
}

var (
	serverHeader = []string{"proxybench-upstream"}
	typeText     = []string{"text/plain; charset=utf-8"}
	typeJSON     = []string{"application/json; charset=utf-8"}
	typeBinary   = []string{"application/octet-stream"}
	allowGetHead = []string{"GET, HEAD"}
)

func newResponse(status int, contentType []string, body string) *response {
	return &response{status, []byte(body), contentType, []string{strconv.Itoa(len(body))}}
}

func jsonError(status int) *response {
	return newResponse(status, typeJSON,
		`{"status":`+strconv.Itoa(status)+`,"message":"`+http.StatusText(status)+`"}`)
}

var (
	healthResponse     = newResponse(http.StatusOK, typeText, "ok\n")
	valuesResponse     = newResponse(http.StatusOK, typeJSON, `["value1","value2"]`)
	notFoundResponse   = jsonError(http.StatusNotFound)
	notAllowedResponse = jsonError(http.StatusMethodNotAllowed)
	overloadedResponse = jsonError(http.StatusServiceUnavailable)
	badBytesResponse   = newResponse(http.StatusBadRequest, typeText, "bytes: n must be an integer from 0 to 10485760\n")
	badStatusResponse  = newResponse(http.StatusBadRequest, typeText, "status: code must be an integer from 200 to 599\n")
	statusResponses    [600]*response
)

func init() {
	for code := 200; code < 600; code++ {
		text := http.StatusText(code)
		if text == "" {
			text = "Status"
		}
		statusResponses[code] = newResponse(code, typeText, strconv.Itoa(code)+" "+text+"\n")
	}
	// No body may follow these: Content-Length must be absent (204) or zero (304).
	statusResponses[http.StatusNoContent] = &response{status: http.StatusNoContent}
	statusResponses[http.StatusNotModified] = &response{status: http.StatusNotModified, contentLength: []string{"0"}}
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
		s.countries[countryIndex(code)] = &response{http.StatusOK, doc, typeJSON, []string{strconv.Itoa(len(doc))}}
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

// countryIndex maps a two-letter code (either case) to its slot, or -1.
func countryIndex(code string) int {
	if len(code) != 2 {
		return -1
	}
	a, b := code[0]|0x20, code[1]|0x20 // ASCII letters to lower case
	if a < 'a' || a > 'z' || b < 'a' || b > 'z' {
		return -1
	}
	return int(a-'a')*26 + int(b-'a')
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	if path == "/health" { // never delayed, never limited
		if !get {
			s.notAllowed(w, r)
			return
		}
		s.reply(w, r, healthResponse)
		return
	}
	var resp *response
	var n int
	switch {
	case path == "/api/values":
		resp = valuesResponse
	case strings.HasPrefix(path, "/countries/"):
		resp = s.country(path[len("/countries/"):])
	case strings.HasPrefix(path, "/v3.1/alpha/"):
		resp = s.country(path[len("/v3.1/alpha/"):])
	case strings.HasPrefix(path, "/bytes/"):
		var ok bool
		if n, ok = parseInt(path[len("/bytes/"):], MaxBytes); ok {
			resp = nil // built below, after the waits
		} else {
			resp = badBytesResponse
		}
	case strings.HasPrefix(path, "/status/"):
		resp = badStatusResponse
		if code, ok := parseInt(path[len("/status/"):], 599); ok && code >= 200 {
			resp = statusResponses[code]
		}
	default:
		s.reply(w, r, notFoundResponse) // not a route: neither delayed nor limited
		return
	}
	if !get {
		s.notAllowed(w, r)
		return
	}
	if s.bucket != nil {
		wait, ok := s.bucket.Reserve(time.Now())
		if !ok {
			s.reply(w, r, overloadedResponse)
			return
		}
		sleep(wait)
	}
	if s.opts.Latency > 0 || s.opts.LatencyJitter > 0 {
		sleep(latency(s.opts.Latency, s.opts.LatencyJitter, rand.Int64N))
	}
	if resp == nil {
		s.replyBytes(w, r, n)
		return
	}
	s.reply(w, r, resp)
}

func (s *Server) country(code string) *response {
	if i := countryIndex(code); i >= 0 && s.countries[i] != nil {
		return s.countries[i]
	}
	return notFoundResponse
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, resp *response) {
	h := w.Header()
	h["Server"] = serverHeader
	if resp.contentType != nil {
		h["Content-Type"] = resp.contentType
	}
	if resp.contentLength != nil {
		h["Content-Length"] = resp.contentLength
	}
	w.WriteHeader(resp.status)
	if r.Method != http.MethodHead && len(resp.body) > 0 {
		_, _ = w.Write(resp.body)
	}
}

func (s *Server) notAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header()["Allow"] = allowGetHead
	s.reply(w, r, notAllowedResponse)
}

func (s *Server) replyBytes(w http.ResponseWriter, r *http.Request, n int) {
	h := w.Header()
	h["Server"] = serverHeader
	h["Content-Type"] = typeBinary
	h["Content-Length"] = []string{strconv.Itoa(n)}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead && n > 0 {
		_, _ = w.Write(s.payload[:n])
	}
}

// parseInt reads a plain decimal integer from 0 to max (digits only: no sign, no spaces).
func parseInt(s string, max int) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
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
