package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// testServer is a Server listening on 127.0.0.1 for the length of a test.
type testServer struct {
	URL string
}

func newTestServer(t *testing.T, opts Options) *testServer {
	t.Helper()
	s := newServer(t, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := s.HTTPServer()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = srv.ShutdownWithContext(ctx)
	})
	return &testServer{URL: "http://" + ln.Addr().String()}
}

// result is one answer, read in full.
type result struct {
	Code   int
	header http.Header
	Body   *bytes.Buffer
}

func (r *result) Header() http.Header { return r.header }

var client = &http.Client{Timeout: 30 * time.Second}

func get(s *testServer, method, path string) *result {
	req, err := http.NewRequest(method, s.URL+path, nil)
	if err != nil {
		panic(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return &result{Code: -1, header: http.Header{}, Body: bytes.NewBufferString(err.Error())}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return &result{resp.StatusCode, resp.Header, bytes.NewBuffer(body)}
}

func TestRoutes(t *testing.T) {
	s := newTestServer(t, Options{})
	const (
		text = "text/plain; charset=utf-8"
		js   = "application/json; charset=utf-8"
		bin  = "application/octet-stream"
	)
	notFound := `{"status":404,"message":"Not Found"}`
	tests := []struct {
		method, path string
		status       int
		contentType  string
		body         string // exact body, when not empty
		bodyLen      int    // body length, when body is empty
	}{
		{"GET", "/health", 200, text, "ok\n", 0},
		{"GET", "/api/values", 200, js, `["value1","value2"]`, 0},
		{"GET", "/api/values/", 404, js, notFound, 0},
		{"GET", "/api/value", 404, js, notFound, 0},
		{"GET", "/countries/zz", 404, js, notFound, 0},
		{"GET", "/countries/usa", 404, js, notFound, 0},
		{"GET", "/countries/u1", 404, js, notFound, 0},
		{"GET", "/countries/", 404, js, notFound, 0},
		{"GET", "/countries/us/", 404, js, notFound, 0},
		{"GET", "/v3.1/alpha/xx", 404, js, notFound, 0},
		{"GET", "/bytes/0", 200, bin, "", 0},
		{"GET", "/bytes/1", 200, bin, "p", 0},
		{"GET", "/bytes/1000", 200, bin, "", 1000},
		{"GET", "/bytes/10485760", 200, bin, "", 10 << 20},
		{"GET", "/bytes/10485761", 400, text, "", 47},
		{"GET", "/bytes/-1", 400, text, "", 47},
		{"GET", "/bytes/1e3", 400, text, "", 47},
		{"GET", "/bytes/", 400, text, "", 47},
		{"GET", "/bytes/99999999999", 400, text, "", 47},
		{"GET", "/status/200", 200, text, "200 OK\n", 0},
		{"GET", "/status/201", 201, text, "201 Created\n", 0},
		{"GET", "/status/404", 404, text, "404 Not Found\n", 0},
		{"GET", "/status/418", 418, text, "418 I'm a teapot\n", 0},
		{"GET", "/status/500", 500, text, "500 Internal Server Error\n", 0},
		{"GET", "/status/503", 503, text, "503 Service Unavailable\n", 0},
		{"GET", "/status/599", 599, text, "599 Status\n", 0},
		{"GET", "/status/204", 204, "", "", 0},
		{"GET", "/status/199", 400, text, "status: code must be an integer from 200 to 599\n", 0},
		{"GET", "/status/600", 400, text, "status: code must be an integer from 200 to 599\n", 0},
		{"GET", "/status/abc", 400, text, "status: code must be an integer from 200 to 599\n", 0},
		{"GET", "/", 404, js, notFound, 0},
		{"GET", "/nope", 404, js, notFound, 0},
		{"POST", "/api/values", 405, js, `{"status":405,"message":"Method Not Allowed"}`, 0},
		{"PUT", "/health", 405, js, `{"status":405,"message":"Method Not Allowed"}`, 0},
		{"DELETE", "/countries/us", 405, js, `{"status":405,"message":"Method Not Allowed"}`, 0},
		{"POST", "/nope", 404, js, notFound, 0},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := get(s, tt.method, tt.path)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			h := rec.Header()
			if got := h.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := h.Get("Server"); got != "proxybench-upstream" {
				t.Errorf("Server %q", got)
			}
			body := rec.Body.Bytes()
			if tt.body != "" && string(body) != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if tt.body == "" && len(body) != tt.bodyLen {
				t.Errorf("body of %d bytes, want %d", len(body), tt.bodyLen)
			}
			if tt.status == 204 {
				if _, ok := h["Content-Length"]; ok {
					t.Errorf("204 with Content-Length %q", h.Get("Content-Length"))
				}
				return
			}
			if got := h.Get("Content-Length"); got != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length %q for a body of %d bytes", got, len(body))
			}
			if tt.status == 405 && h.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", h.Get("Allow"))
			}
		})
	}
}

func TestValuesBodyIs19Bytes(t *testing.T) {
	rec := get(newTestServer(t, Options{}), "GET", "/api/values")
	if rec.Body.Len() != 19 {
		t.Fatalf("/api/values is %d bytes, the Ocelot study's body is 19", rec.Body.Len())
	}
}

func TestCountries(t *testing.T) {
	s := newTestServer(t, Options{})
	codes := []string{"us", "US", "Us", "fr", "de", "jp", "br", "in", "gb", "GB", "cn", "ru", "au", "za", "ch", "aq"}
	for _, code := range codes {
		for _, prefix := range []string{"/countries/", "/v3.1/alpha/"} {
			t.Run(prefix+code, func(t *testing.T) {
				rec := get(s, "GET", prefix+code)
				if rec.Code != 200 {
					t.Fatalf("status %d", rec.Code)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("Content-Type %q", ct)
				}
				var doc struct {
					Name               struct{ Common, Official string }
					CCA2, CCA3, Region string
					Capital            []string
					Translations       map[string]struct{ Official, Common string }
					Timezones          []string
					Latlng             []float64
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
					t.Fatalf("invalid JSON: %v", err)
				}
				if doc.CCA2 != strings.ToUpper(code) {
					t.Errorf("cca2 %q for %q", doc.CCA2, code)
				}
				if doc.Name.Common == "" || doc.Region == "" || len(doc.CCA3) != 3 || len(doc.Timezones) == 0 || len(doc.Latlng) != 2 {
					t.Errorf("incomplete document: %+v", doc)
				}
				if n := rec.Body.Len(); n < 3000 || n > 3800 {
					t.Errorf("document of %d bytes, want 3000..3800", n)
				}
			})
		}
	}
	// Same document for both paths and any case.
	a, b := get(s, "GET", "/countries/fr").Body.String(), get(s, "GET", "/v3.1/alpha/FR").Body.String()
	if a != b {
		t.Error("/countries/fr and /v3.1/alpha/FR differ")
	}
}

func TestCountryNames(t *testing.T) {
	s := newTestServer(t, Options{})
	for code, want := range map[string][3]string{
		"us": {"United States", "Washington, D.C.", "Americas"},
		"fr": {"France", "Paris", "Europe"},
		"de": {"Germany", "Berlin", "Europe"},
		"jp": {"Japan", "Tokyo", "Asia"},
		"br": {"Brazil", "Brasília", "Americas"},
		"in": {"India", "New Delhi", "Asia"},
		"gb": {"United Kingdom", "London", "Europe"},
		"ke": {"Kenya", "Nairobi", "Africa"},
		"nz": {"New Zealand", "Wellington", "Oceania"},
	} {
		var doc struct {
			Name    struct{ Common string }
			Capital []string
			Region  string
		}
		if err := json.Unmarshal(get(s, "GET", "/countries/"+code).Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		got := [3]string{doc.Name.Common, strings.Join(doc.Capital, ","), doc.Region}
		if got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}

func TestEveryCountryDocument(t *testing.T) {
	docs, err := countryDocuments()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 249 {
		t.Errorf("%d countries, ISO 3166-1 has 249 codes", len(docs))
	}
	for code, doc := range docs {
		if !json.Valid(doc) {
			t.Errorf("%s: invalid JSON", code)
		}
		if len(doc) < minSize || len(doc) > maxSize {
			t.Errorf("%s: %d bytes", code, len(doc))
		}
	}
	// Built twice, the documents are the same bytes.
	again, _ := countryDocuments()
	for code, doc := range docs {
		if string(again[code]) != string(doc) {
			t.Errorf("%s: document differs between two builds", code)
		}
	}
}

func TestHeadOverHTTP(t *testing.T) {
	ts := newTestServer(t, Options{})
	for path, length := range map[string]string{"/api/values": "19", "/bytes/12345": "12345", "/health": "3"} {
		resp, err := http.Head(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != length || len(body) != 0 {
			t.Errorf("HEAD %s: %d, Content-Length %q, %d body bytes", path, resp.StatusCode,
				resp.Header.Get("Content-Length"), len(body))
		}
	}
}

func TestKeepAlive(t *testing.T) {
	ts := newTestServer(t, Options{})
	for i := 0; i < 20; i++ {
		resp, err := client.Get(ts.URL + "/countries/us")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Close {
			t.Fatal("server asked to close the connection")
		}
	}
}

func TestLatency(t *testing.T) {
	const delay = 50 * time.Millisecond
	ts := newTestServer(t, Options{Latency: delay})
	for _, path := range []string{"/api/values", "/countries/us", "/bytes/10", "/status/500", "/countries/zz"} {
		start := time.Now()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if elapsed := time.Since(start); elapsed < delay {
			t.Errorf("%s answered in %s, before the %s latency", path, elapsed, delay)
		}
	}
}

func TestHealthIsNeverDelayedNorLimited(t *testing.T) {
	// A latency of an hour, and a rate of one request per 100 s: /health must still answer at
	// once, and /api/values must be refused (its turn is too far away) rather than wait.
	status := func(url string) int {
		t.Helper()
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	slow := newTestServer(t, Options{Latency: time.Hour})
	limited := newTestServer(t, Options{MaxRPS: 0.01, QueueTimeout: 0})
	for i := 0; i < 5; i++ {
		if got := status(slow.URL + "/health"); got != 200 {
			t.Fatalf("/health with --latency 1h: %d", got)
		}
		if got := status(limited.URL + "/health"); got != 200 {
			t.Fatalf("/health with --max-rps 0.01: %d", got)
		}
	}
	codes := []int{status(limited.URL + "/api/values"), status(limited.URL + "/api/values"), status(limited.URL + "/countries/us")}
	if codes[0] != 200 || codes[1] != 503 || codes[2] != 503 {
		t.Errorf("statuses %v, want the first served (burst of 1) and then 503", codes)
	}
}

func TestLatencyDraw(t *testing.T) {
	min := func(n int64) int64 { return 0 }
	max := func(n int64) int64 { return n - 1 }
	mid := func(n int64) int64 { return n / 2 }
	ms := time.Millisecond
	tests := []struct {
		base, jitter time.Duration
		randN        func(int64) int64
		want         time.Duration
	}{
		{0, 0, min, 0},
		{75 * ms, 0, max, 75 * ms},
		{75 * ms, 10 * ms, min, 65 * ms},
		{75 * ms, 10 * ms, max, 85 * ms},
		{75 * ms, 10 * ms, mid, 75 * ms},
		{5 * ms, 10 * ms, min, 0}, // never negative
		{0, 10 * ms, max, 10 * ms},
	}
	for _, tt := range tests {
		if got := latency(tt.base, tt.jitter, tt.randN); got != tt.want {
			t.Errorf("latency(%s ± %s) = %s, want %s", tt.base, tt.jitter, got, tt.want)
		}
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want int
		ok   bool
	}{
		{"0", 10, 0, true}, {"10", 10, 10, true}, {"11", 10, 0, false}, {"007", 10, 7, true},
		{"", 10, 0, false}, {"-1", 10, 0, false}, {"+1", 10, 0, false}, {"1 ", 10, 0, false},
		{"1234567890", 1 << 40, 0, false},
	}
	for _, tt := range tests {
		got, ok := parseInt([]byte(tt.in), tt.max)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseInt(%q, %d) = %d, %v", tt.in, tt.max, got, ok)
		}
	}
}

func TestMalformedAndOversizedRequests(t *testing.T) {
	ts := newTestServer(t, Options{})
	tests := []struct {
		request string
		status  string
	}{
		{"GARBAGE\r\n\r\n", "HTTP/1.1 400 "},
		{"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 20000) + "\r\n\r\n", "HTTP/1.1 431 "},
		{"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 10000) + "\r\n\r\n", "HTTP/1.1 200 "},
		{"GET /api/values HTTP/1.0\r\n\r\n", "HTTP/1.1 200 "},
	}
	for _, tt := range tests {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte(tt.request)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, _ := io.ReadAtLeast(conn, buf, len(tt.status))
		conn.Close()
		if got := string(buf[:n]); !strings.HasPrefix(got, tt.status) {
			t.Errorf("%.40q...: answer %q, want %q", tt.request, got, tt.status)
		}
	}
}

// The hot path allocates nothing: bodies and header values are precomputed.
func TestHandlerDoesNotAllocate(t *testing.T) {
	s, err := NewServer(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/values", "/countries/us", "/v3.1/alpha/FR", "/bytes/100", "/health", "/status/503", "/nope"} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(path)
		allocs := testing.AllocsPerRun(200, func() {
			ctx.Response.Reset()
			s.Handle(&ctx)
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per request", path, allocs)
		}
	}
}

func TestEchoHeaders(t *testing.T) {
	s := newTestServer(t, Options{})
	req, err := http.NewRequest(http.MethodGet, s.URL+"/echo/headers", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Source", "config")
	req.Header.Add("X-Twice", "a")
	req.Header.Add("X-Twice", "b")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var seen map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&seen); err != nil {
		t.Fatal(err)
	}
	if seen["source"] != "config" || seen["x-twice"] != "a, b" || seen["host"] == "" {
		t.Fatalf("echoed headers %v", seen)
	}
	if _, ok := seen["x-absent"]; ok {
		t.Fatalf("a header that was not sent: %v", seen)
	}
}
