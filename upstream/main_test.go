package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	ok := []struct {
		args []string
		want Config
	}{
		{nil, Config{Listen: "127.0.0.1:0", Options: Options{QueueTimeout: time.Second}}},
		{[]string{"--listen", "127.0.0.1:8080", "--latency", "75ms", "--latency-jitter", "5ms", "--max-rps", "500", "--queue-timeout", "2s"},
			Config{Listen: "127.0.0.1:8080", Options: Options{75 * time.Millisecond, 5 * time.Millisecond, 500, 2 * time.Second}}},
		{[]string{"-max-rps=0.5"}, Config{Listen: "127.0.0.1:0", Options: Options{MaxRPS: 0.5, QueueTimeout: time.Second}}},
		{[]string{"--version"}, Config{Listen: "127.0.0.1:0", Options: Options{QueueTimeout: time.Second}, Version: true}},
		{[]string{"--grpcs-listen", "127.0.0.1:0", "--https-listen", "127.0.0.1:0", "--tls-cert", "c.pem", "--tls-key", "k.pem"},
			Config{Listen: "127.0.0.1:0", GRPCSListen: "127.0.0.1:0", HTTPSListen: "127.0.0.1:0", TLSCert: "c.pem", TLSKey: "k.pem", Options: Options{QueueTimeout: time.Second}}},
	}
	for _, tt := range ok {
		got, err := ParseArgs(tt.args, io.Discard)
		if err != nil || got != tt.want {
			t.Errorf("ParseArgs(%q) = %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
	bad := []struct {
		args    []string
		message string
	}{
		{[]string{"--latency", "-1ms"}, "--latency"},
		{[]string{"--latency", "75"}, "-latency"},
		{[]string{"--latency-jitter", "-1ms"}, "--latency-jitter"},
		{[]string{"--max-rps", "-5"}, "--max-rps"},
		{[]string{"--max-rps", "fast"}, "-max-rps"},
		{[]string{"--queue-timeout", "-1s"}, "--queue-timeout"},
		{[]string{"--port", "80"}, "-port"},
		{[]string{"extra"}, `"extra"`},
		{[]string{"--grpcs-listen", "127.0.0.1:0", "--tls-cert", "c.pem"}, "--grpcs-listen: needs --tls-cert and --tls-key"},
		{[]string{"--https-listen", "127.0.0.1:0", "--tls-key", "k.pem"}, "--https-listen: needs --tls-cert and --tls-key"},
	}
	for _, tt := range bad {
		_, err := ParseArgs(tt.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("ParseArgs(%q): error %v, want one naming %s", tt.args, err, tt.message)
		}
	}
}

func TestVersion(t *testing.T) {
	var out strings.Builder
	if code := run([]string{"--version"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(out.String(), "proxybench-upstream "+Version+" go") {
		t.Errorf("version line %q", out.String())
	}
}

func TestBadFlagExits2(t *testing.T) {
	var errOut strings.Builder
	if code := run([]string{"--max-rps", "-1"}, io.Discard, &errOut); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "--max-rps") {
		t.Errorf("stderr %q does not name the flag", errOut.String())
	}
}
