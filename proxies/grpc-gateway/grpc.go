package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"

	"proxybench/grpc-gateway/pingpong"
)

// The gateway's gRPC path (the seed's BenchmarkGoGatewayGRPC): gRPC calls to the gateway's own
// port, told from REST by HTTP/2 and their content type, each forwarded to the upstream over the
// multiplexed connection the REST routes use. The upstream's status (UNAVAILABLE...) comes back
// as it is.

// forwarder is the PingPong service as the gateway serves it: the upstream's answer.
type forwarder struct {
	pingpong.UnimplementedPingPongServer
	client pingpong.PingPongClient
}

func (f *forwarder) Ping(ctx context.Context, req *pingpong.PingRequest) (*pingpong.PongReply, error) {
	return f.client.Ping(ctx, req)
}

func (f *forwarder) NoPing(ctx context.Context, req *emptypb.Empty) (*pingpong.PongReply, error) {
	return f.client.NoPing(ctx, req)
}

// healthForwarder answers the standard health check with the upstream's: the whole path is up.
type healthForwarder struct {
	grpc_health_v1.UnimplementedHealthServer
	client grpc_health_v1.HealthClient
}

func (h *healthForwarder) Check(ctx context.Context, req *grpc_health_v1.HealthCheckRequest) (*grpc_health_v1.HealthCheckResponse, error) {
	return h.client.Check(ctx, req)
}

// newForwardingServer is the gateway's gRPC server, forwarding over conn.
func newForwardingServer(conn *grpc.ClientConn) *grpc.Server {
	gs := grpc.NewServer()
	pingpong.RegisterPingPongServer(gs, &forwarder{client: pingpong.NewPingPongClient(conn)})
	grpc_health_v1.RegisterHealthServer(gs, &healthForwarder{client: grpc_health_v1.NewHealthClient(conn)})
	return gs
}

// withGRPC sends gRPC calls (HTTP/2, content type application/grpc...) to gs, the rest to rest.
func withGRPC(rest http.Handler, gs *grpc.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			gs.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	})
}

// newHTTPServer serves handler over HTTP/1.1 and HTTP/2 without TLS (h2c with prior knowledge,
// as gRPC clients speak it) on the same port.
func newHTTPServer(handler http.Handler) *http.Server {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{Handler: handler, Protocols: protocols, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
}
