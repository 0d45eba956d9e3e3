package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/emptypb"

	"proxybench/upstream/pingpong"
)

// newGRPCClient serves s's gRPC server on 127.0.0.1 for the length of a test and dials it.
func newGRPCClient(t *testing.T, s *Server) *grpc.ClientConn {
	t.Helper()
	gs := s.GRPCServer()
	ln, served, err := listenGRPC(gs, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		gs.Stop()
		<-served
	})
	return conn
}

// newServer is a Server with opts, or the test fails.
func newServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPingPongOverGRPC(t *testing.T) {
	conn := newGRPCClient(t, newServer(t, Options{}))
	client := pingpong.NewPingPongClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, message := range []string{"ping", "", strings.Repeat("é", 1000)} {
		pong, err := client.Ping(ctx, &pingpong.PingRequest{Message: message})
		if err != nil || pong.GetMessage() != message {
			t.Errorf("Ping(%.20q) = %v, %v; want the same message", message, pong, err)
		}
	}
	pong, err := client.NoPing(ctx, &emptypb.Empty{})
	if err != nil || pong.GetMessage() != "pong" {
		t.Errorf("NoPing = %v, %v; want pong", pong, err)
	}
	health, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || health.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health = %v, %v; want SERVING", health, err)
	}
	if services := reflectedServices(t, ctx, conn); !slices.Contains(services, "proxybench.pingpong.v1.PingPong") {
		t.Errorf("reflection lists %v; want proxybench.pingpong.v1.PingPong among them", services)
	}
}

// reflectedServices is the list of services the server's reflection reports.
func reflectedServices(t *testing.T, ctx context.Context, conn *grpc.ClientConn) []string {
	t.Helper()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := &reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: ""},
	}
	if err := stream.Send(req); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names
}

func TestPingPongOverGRPCRateLimited(t *testing.T) {
	// One request a minute, no queueing: the first passes, the next is refused at once.
	conn := newGRPCClient(t, newServer(t, Options{MaxRPS: 1.0 / 60, QueueTimeout: 0}))
	client := pingpong.NewPingPongClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := client.NoPing(ctx, &emptypb.Empty{}); err != nil {
		t.Fatalf("first NoPing: %v", err)
	}
	_, err := client.Ping(ctx, &pingpong.PingRequest{Message: "x"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("second call: %v; want UNAVAILABLE", err)
	}
}

func TestPingPongOverGRPCLatency(t *testing.T) {
	conn := newGRPCClient(t, newServer(t, Options{Latency: 50 * time.Millisecond}))
	start := time.Now()
	if _, err := pingpong.NewPingPongClient(conn).NoPing(context.Background(), &emptypb.Empty{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("NoPing took %s; want at least the 50ms latency", took)
	}
}

func TestPingPongOverREST(t *testing.T) {
	s := newTestServer(t, Options{})
	tests := []struct {
		method, path, body string
		status             int
		message            string // the PongReply's message, for a 200
		allow              string
	}{
		{"POST", "/ping", `{"message":"hello"}`, 200, "hello", ""},
		{"POST", "/ping", `{"message":"hello","unknown":1}`, 200, "hello", ""},
		{"POST", "/ping", `{}`, 200, "", ""},
		{"GET", "/pong", "", 200, "pong", ""},
		{"POST", "/ping", `{"message":`, 400, "", ""},
		{"GET", "/ping", "", 405, "", "POST"},
		{"POST", "/pong", "", 405, "", "GET"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, s.URL+tt.path, strings.NewReader(tt.body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(data)
		if resp.StatusCode != tt.status || resp.Header.Get("Allow") != tt.allow {
			t.Errorf("%s %s %s: %d Allow %q; want %d Allow %q (%s)", tt.method, tt.path, tt.body,
				resp.StatusCode, resp.Header.Get("Allow"), tt.status, tt.allow, body)
			continue
		}
		if tt.status != 200 {
			continue
		}
		var pong pingpong.PongReply
		if err := protojson.Unmarshal([]byte(body), &pong); err != nil || pong.GetMessage() != tt.message {
			t.Errorf("%s %s %s: body %s (%v); want message %q", tt.method, tt.path, tt.body, body, err, tt.message)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q; want application/json", tt.method, tt.path, ct)
		}
		// Unpopulated fields are written, as grpc-gateway writes them.
		if !strings.Contains(body, `"message"`) {
			t.Errorf("%s %s: body %s has no message field", tt.method, tt.path, body)
		}
	}
}

func TestGRPCListenFlag(t *testing.T) {
	got, err := ParseArgs([]string{"--grpc-listen", "127.0.0.1:9090"}, io.Discard)
	if err != nil || got.GRPCListen != "127.0.0.1:9090" {
		t.Errorf("ParseArgs(--grpc-listen) = %+v, %v", got, err)
	}
	if _, _, err := listenGRPC(grpc.NewServer(), "127.0.0.1:notaport"); err == nil {
		t.Error("listenGRPC on a bad address: no error")
	}
}
