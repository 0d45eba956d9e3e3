// Command proxybench-grpc-gateway is a REST-to-gRPC gateway built with grpc-ecosystem/grpc-gateway
// v2 from the google.api.http annotations of the PingPong service (upstream/pingpong/
// pingpong.proto): POST /ping and GET /pong in JSON over HTTP/1.1, forwarded as gRPC over h2c to
// --upstream on one multiplexed connection. gRPC calls to the same port (h2c) are forwarded too
// (grpc.go), as the original's gateway served both.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	gwruntime "github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"proxybench/grpc-gateway/pingpong"
)

// Version is the gateway's own version, printed by --version with grpc-gateway's.
const Version = "1.0.0"

// Config is everything the command line sets.
type Config struct {
	Listen   string
	Upstream string
	Version  bool
}

// ParseArgs reads the command line; errors name the flag.
func ParseArgs(args []string, stderr io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("proxybench-grpc-gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "address of the REST listener (port 0: any free port)")
	fs.StringVar(&c.Upstream, "upstream", "", "host:port of the PingPong gRPC server (h2c)")
	fs.BoolVar(&c.Version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.Version:
		return c, nil
	case c.Upstream == "":
		return c, errors.New("--upstream: required (host:port of the gRPC server)")
	}
	if _, _, err := net.SplitHostPort(c.Upstream); err != nil {
		return c, fmt.Errorf("--upstream: %v", err)
	}
	return c, nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := ParseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-grpc-gateway:", err)
		return 2
	}
	if cfg.Version {
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	handler, conn, err := NewGateway(context.Background(), cfg.Upstream)
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-grpc-gateway: --upstream:", err)
		return 1
	}
	defer conn.Close()
	listener, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-grpc-gateway: --listen:", err)
		return 1
	}
	srv := newHTTPServer(handler)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(listener) }()
	fmt.Fprintf(stderr, "proxybench-grpc-gateway %s: GOMAXPROCS=%d upstream=%s\n", Version, runtime.GOMAXPROCS(0), cfg.Upstream)
	fmt.Fprintf(stdout, "listening on %s\n", listener.Addr())
	select {
	case err := <-served:
		fmt.Fprintln(stderr, "proxybench-grpc-gateway:", err)
		return 1
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = srv.Shutdown(ctx)
	return 0
}

// NewGateway is the handler of the PingPong service, REST transcoded and gRPC forwarded to the
// gRPC server at upstream over h2c; close the connection when done. The connection is made on
// first use.
func NewGateway(ctx context.Context, upstream string) (http.Handler, *grpc.ClientConn, error) {
	conn, err := grpc.NewClient(upstream, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, err
	}
	mux := gwruntime.NewServeMux()
	if err := pingpong.RegisterPingPongHandler(ctx, mux, conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return withGRPC(mux, newForwardingServer(conn)), conn, nil
}

func versionString() string {
	s := "proxybench-grpc-gateway " + Version + " " + runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/grpc-ecosystem/grpc-gateway/v2" {
				s += " grpc-gateway " + dep.Version
			}
		}
	}
	return s
}
