package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"proxybench/grpc-gateway/pingpong"
)

// pingPong is a PingPong gRPC server for the tests: it echoes, or fails with `fail`.
type pingPong struct {
	pingpong.UnimplementedPingPongServer
	fail error
}

func (p *pingPong) Ping(_ context.Context, req *pingpong.PingRequest) (*pingpong.PongReply, error) {
	return &pingpong.PongReply{Message: req.GetMessage()}, p.fail
}

func (p *pingPong) NoPing(context.Context, *emptypb.Empty) (*pingpong.PongReply, error) {
	return &pingpong.PongReply{Message: "pong"}, p.fail
}

// gateway serves the gateway on 127.0.0.1 in front of a PingPong gRPC server on 127.0.0.1.
func gateway(t *testing.T, upstream *pingPong) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pingpong.RegisterPingPongServer(gs, upstream)
	go func() { _ = gs.Serve(ln) }()
	handler, conn, err := NewGateway(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		srv.Close()
		conn.Close()
		gs.Stop()
	})
	return srv.URL
}

func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func TestGatewayTranscodesRESTToGRPC(t *testing.T) {
	url := gateway(t, &pingPong{})
	tests := []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"POST", "/ping", `{"message":"hello"}`, 200, `"hello"`},
		{"GET", "/pong", "", 200, `"pong"`},
		{"POST", "/ping", `{"message":`, 400, ""},
		{"GET", "/nowhere", "", 404, ""},
	}
	for _, tt := range tests {
		code, body := send(t, tt.method, url+tt.path, tt.body)
		if code != tt.status || !strings.Contains(body, tt.contains) {
			t.Errorf("%s %s %s: %d %s; want %d with %s", tt.method, tt.path, tt.body, code, body, tt.status, tt.contains)
		}
	}
}

func TestGatewayMapsGRPCStatus(t *testing.T) {
	url := gateway(t, &pingPong{fail: status.Error(codes.Unavailable, "down")})
	if code, body := send(t, "GET", url+"/pong", ""); code != http.StatusServiceUnavailable {
		t.Errorf("GET /pong from an UNAVAILABLE upstream: %d %s; want 503", code, body)
	}
}

func TestParseArgs(t *testing.T) {
	got, err := ParseArgs([]string{"--listen", "127.0.0.1:8080", "--upstream", "127.0.0.1:9090"}, io.Discard)
	if err != nil || got != (Config{Listen: "127.0.0.1:8080", Upstream: "127.0.0.1:9090"}) {
		t.Errorf("ParseArgs = %+v, %v", got, err)
	}
	for _, args := range [][]string{{}, {"--upstream", "nohostport"}, {"--upstream", "127.0.0.1:1", "extra"}} {
		if _, err := ParseArgs(args, io.Discard); err == nil {
			t.Errorf("ParseArgs(%q): no error", args)
		}
	}
}

// grpcGateway serves the gateway as the command does (HTTP/1.1 and h2c on one port) and returns
// a gRPC client connected to it.
func grpcGateway(t *testing.T, upstream *pingPong) *grpc.ClientConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pingpong.RegisterPingPongServer(gs, upstream)
	grpc_health_v1.RegisterHealthServer(gs, health.NewServer())
	go func() { _ = gs.Serve(ln) }()
	handler, conn, err := NewGateway(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	front, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(handler)
	go func() { _ = srv.Serve(front) }()
	client, err := grpc.NewClient(front.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.Close()
		srv.Close()
		conn.Close()
		gs.Stop()
	})
	return client
}

func TestGatewayForwardsGRPC(t *testing.T) {
	client := grpcGateway(t, &pingPong{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reply, err := pingpong.NewPingPongClient(client).Ping(ctx, &pingpong.PingRequest{Message: "hello"})
	if err != nil || reply.GetMessage() != "hello" {
		t.Errorf("Ping through the gateway: %v, %v; want hello", reply, err)
	}
	checked, err := grpc_health_v1.NewHealthClient(client).Check(ctx, &grpc_health_v1.HealthCheckRequest{})
	if err != nil || checked.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Errorf("health check through the gateway: %v, %v; want SERVING", checked, err)
	}
}

func TestGatewayForwardsGRPCStatus(t *testing.T) {
	client := grpcGateway(t, &pingPong{fail: status.Error(codes.Unavailable, "down")})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := pingpong.NewPingPongClient(client).Ping(ctx, &pingpong.PingRequest{Message: "hello"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("Ping from an UNAVAILABLE upstream through the gateway: %v; want UNAVAILABLE", err)
	}
}
