package main

import (
	"context"
	"net"

	"github.com/valyala/fasthttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"proxybench/upstream/pingpong"
)

// The PingPong service of the gRPC-gateway study (pingpong/pingpong.proto): over gRPC on
// --grpc-listen, and as JSON on the HTTP listener (POST /ping, GET /pong), the "REST direct"
// path. Both answer from the same methods, with the rate limit and the latency of every route.

// noPingMessage is NoPing's answer.
const noPingMessage = "pong"

// JSON as grpc-gateway v2 writes and reads it by default, so the direct REST answer and the
// gateway's are the same document.
var (
	restMarshal   = protojson.MarshalOptions{EmitUnpopulated: true}
	restUnmarshal = protojson.UnmarshalOptions{DiscardUnknown: true}
	typeRESTJSON  = []byte("application/json")
)

// pingPongService implements pingpong.PingPongServer.
type pingPongService struct {
	pingpong.UnimplementedPingPongServer
	server *Server
}

func (p *pingPongService) Ping(_ context.Context, req *pingpong.PingRequest) (*pingpong.PongReply, error) {
	if !p.server.hold() {
		return nil, status.Error(codes.Unavailable, "rate limit: no slot within the queue timeout")
	}
	return &pingpong.PongReply{Message: req.GetMessage()}, nil
}

func (p *pingPongService) NoPing(context.Context, *emptypb.Empty) (*pingpong.PongReply, error) {
	if !p.server.hold() {
		return nil, status.Error(codes.Unavailable, "rate limit: no slot within the queue timeout")
	}
	return &pingpong.PongReply{Message: noPingMessage}, nil
}

// GRPCServer is the gRPC server (HTTP/2 without TLS, "h2c") of the PingPong service, with the
// standard health service reporting SERVING and server reflection (k6's gRPC client reads the
// service's definition from it, through the proxy under test).
func (s *Server) GRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	gs := grpc.NewServer(opts...)
	pingpong.RegisterPingPongServer(gs, &pingPongService{server: s})
	healthpb.RegisterHealthServer(gs, health.NewServer())
	reflection.Register(gs)
	return gs
}

// servePingPongREST answers POST /ping and GET /pong with the service's JSON; false: the path
// is neither.
func (s *Server) servePingPongREST(ctx *fasthttp.RequestCtx, path []byte) bool {
	svc := pingPongService{server: s}
	var pong *pingpong.PongReply
	var err error
	switch string(path) {
	case "/ping":
		if !ctx.IsPost() {
			restNotAllowed(ctx, "POST")
			return true
		}
		var req pingpong.PingRequest
		if err := restUnmarshal.Unmarshal(ctx.PostBody(), &req); err != nil {
			reply(ctx, &response{fasthttp.StatusBadRequest, typeText,
				[]byte("ping: the body is not a PingRequest in JSON: " + err.Error() + "\n")})
			return true
		}
		pong, err = svc.Ping(ctx, &req)
	case "/pong":
		if !ctx.IsGet() {
			restNotAllowed(ctx, "GET")
			return true
		}
		pong, err = svc.NoPing(ctx, &emptypb.Empty{})
	default:
		return false
	}
	if err != nil {
		reply(ctx, overloadedResponse)
		return true
	}
	writeREST(ctx, pong)
	return true
}

func writeREST(ctx *fasthttp.RequestCtx, message proto.Message) {
	body, err := restMarshal.Marshal(message)
	if err != nil {
		ctx.Error(err.Error(), fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.Response.Header.SetContentTypeBytes(typeRESTJSON)
	ctx.Response.SetBodyRaw(body)
}

func restNotAllowed(ctx *fasthttp.RequestCtx, allow string) {
	ctx.Response.Header.Set("Allow", allow)
	reply(ctx, notAllowedResponse)
}

// listenGRPC serves the gRPC server on addr; the returned channel gets Serve's error.
func listenGRPC(gs *grpc.Server, addr string) (net.Listener, <-chan error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	served := make(chan error, 1)
	go func() { served <- gs.Serve(ln) }()
	return ln, served, nil
}
