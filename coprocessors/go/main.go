// The extensibility study's coprocessor in Go: Apollo Router's coprocessor HTTP protocol
// (coprocessors/README.md), standard library only. Usage: coprocessor --listen 127.0.0.1:PORT
package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const language = "go"

// jwtKey is the study's token key (public, for benchmarks only).
var jwtKey = []byte("proxybench-extensibility-key")

// stage is the part of a coprocessor payload this coprocessor reads; everything else is
// returned as it came (payload keeps the whole object).
type stage struct {
	Headers map[string][]string `json:"headers"`
}

// test is what one endpoint does: the headers it sets, or ok=false to stop the request (401).
type test func(s stage) (set map[string]string, ok bool)

var tests = map[string]test{
	"/static-subgraph": func(stage) (map[string]string, bool) {
		return map[string]string{"source": language}, true
	},
	"/guid-response": func(stage) (map[string]string, bool) {
		set := make(map[string]string, 10)
		for i := 1; i <= 10; i++ {
			set[fmt.Sprintf("x-guid-%d", i)] = newGUID()
		}
		return set, true
	},
	"/client-awareness": func(s stage) (map[string]string, bool) {
		auth := ""
		if v := s.Headers["authorization"]; len(v) > 0 {
			auth = v[0]
		}
		name, version, ok := clientFromToken(auth)
		if !ok {
			return nil, false
		}
		return map[string]string{"apollographql-client-name": name, "apollographql-client-version": version}, true
	},
}

func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// clientFromToken returns the client name and version of a valid HS256 bearer token.
func clientFromToken(authorization string) (string, string, bool) {
	token, found := strings.CutPrefix(authorization, "Bearer ")
	parts := strings.Split(token, ".")
	if !found || len(parts) != 3 {
		return "", "", false
	}
	mac := hmac.New(sha256.New, jwtKey)
	mac.Write([]byte(parts[0] + "." + parts[1]))
	given, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(given, mac.Sum(nil)) {
		return "", "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Name    *string `json:"client_name"`
		Version *string `json:"client_version"`
	}
	if err != nil || json.Unmarshal(raw, &claims) != nil || claims.Name == nil || claims.Version == nil {
		return "", "", false
	}
	return *claims.Name, *claims.Version, true
}

func handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/health" {
		_, _ = w.Write([]byte("ok\n"))
		return
	}
	run, known := tests[r.URL.Path]
	if r.Method != http.MethodPost || !known {
		http.NotFound(w, r)
		return
	}
	var payload map[string]any
	var s stage
	body := http.MaxBytesReader(w, r.Body, 1<<20)
	dec := json.NewDecoder(body)
	if err := dec.Decode(&payload); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	raw, _ := json.Marshal(payload)
	_ = json.Unmarshal(raw, &s)
	set, ok := run(s)
	mirror := r.Header.Get("x-proxybench-mirror") == "1"
	w.Header().Set("content-type", "application/json")
	if !ok {
		payload["control"] = map[string]int{"break": http.StatusUnauthorized}
		payload["body"] = `{"errors":[{"message":"invalid token"}]}`
		if mirror {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_ = json.NewEncoder(w).Encode(payload)
		return
	}
	headers := map[string][]string{}
	for name, values := range s.Headers {
		headers[name] = values
	}
	for name, value := range set {
		headers[name] = []string{value}
		if mirror {
			w.Header().Set("x-coprocessor-header-"+name, value)
		}
	}
	payload["headers"] = headers
	payload["control"] = "continue"
	_ = json.NewEncoder(w).Encode(payload)
}

func main() {
	listen := flag.String("listen", "127.0.0.1:8081", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(handle)}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
