// Command proxybench-upstream is the HTTP/1.1 server that proxies forward to in proxybench's
// benchmarks: fixed and looked-up bodies, an optional added latency and an optional rate cap;
// with --grpc-listen, also the PingPong gRPC service (pingpong/pingpong.proto) over h2c, and with
// --grpcs-listen over TLS (--tls-cert, --tls-key).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Version is the upstream's version, printed by --version.
const Version = "1.0.0"

// Config is everything the command line sets.
type Config struct {
	Listen     string
	GRPCListen string // "": no gRPC server
	// GRPCSListen and HTTPSListen: "" for no gRPC or HTTP server over TLS; else they serve
	// TLSCert with TLSKey.
	GRPCSListen string
	HTTPSListen string
	TLSCert     string
	TLSKey      string
	Options     Options
	Version     bool
}

// ParseArgs reads the command line; errors name the flag.
func ParseArgs(args []string, stderr io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("proxybench-upstream", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:0", "address to listen on (port 0: any free port)")
	fs.StringVar(&c.GRPCListen, "grpc-listen", "", "also serve the PingPong gRPC service (h2c) on this address (port 0: any free port)")
	fs.StringVar(&c.GRPCSListen, "grpcs-listen", "", "also serve the PingPong gRPC service over TLS on this address (needs --tls-cert and --tls-key)")
	fs.StringVar(&c.HTTPSListen, "https-listen", "", "also serve HTTP/1.1 over TLS on this address (needs --tls-cert and --tls-key)")
	fs.StringVar(&c.TLSCert, "tls-cert", "", "PEM certificate (chain) of the --grpcs-listen and --https-listen servers")
	fs.StringVar(&c.TLSKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.DurationVar(&c.Options.Latency, "latency", 0, "delay added before every response except /health (e.g. 75ms)")
	fs.DurationVar(&c.Options.LatencyJitter, "latency-jitter", 0, "uniform ± jitter around --latency")
	fs.Float64Var(&c.Options.MaxRPS, "max-rps", 0, "requests per second served, /health excluded (0: unlimited)")
	fs.DurationVar(&c.Options.QueueTimeout, "queue-timeout", time.Second,
		"with --max-rps: a request that would wait longer than this for its turn gets 503")
	fs.BoolVar(&c.Version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.Options.Latency < 0:
		return c, fmt.Errorf("--latency: must not be negative, got %s", c.Options.Latency)
	case c.Options.LatencyJitter < 0:
		return c, fmt.Errorf("--latency-jitter: must not be negative, got %s", c.Options.LatencyJitter)
	case c.Options.MaxRPS < 0 || c.Options.MaxRPS != c.Options.MaxRPS:
		return c, fmt.Errorf("--max-rps: must be 0 (unlimited) or positive, got %v", c.Options.MaxRPS)
	case c.GRPCSListen != "" && (c.TLSCert == "" || c.TLSKey == ""):
		return c, errors.New("--grpcs-listen: needs --tls-cert and --tls-key")
	case c.HTTPSListen != "" && (c.TLSCert == "" || c.TLSKey == ""):
		return c, errors.New("--https-listen: needs --tls-cert and --tls-key")
	case c.Options.QueueTimeout < 0:
		return c, fmt.Errorf("--queue-timeout: must not be negative, got %s", c.Options.QueueTimeout)
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
		fmt.Fprintln(stderr, "proxybench-upstream:", err)
		return 2
	}
	if cfg.Version {
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	server, err := NewServer(cfg.Options)
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-upstream:", err)
		return 1
	}
	return serve(cfg, server, stdout, stderr)
}

// serve listens (HTTP, and gRPC with --grpc-listen), prints the ready lines and serves until
// SIGTERM or SIGINT.
func serve(cfg Config, server *Server, stdout, stderr io.Writer) int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	listener, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-upstream: --listen:", err)
		return 1
	}
	srv := server.HTTPServer()
	served := make(chan error, 2)
	go func() { served <- srv.Serve(listener) }()
	fmt.Fprintf(stderr, "proxybench-upstream %s: GOMAXPROCS=%d latency=%s jitter=%s max-rps=%v queue-timeout=%s\n",
		Version, runtime.GOMAXPROCS(0), cfg.Options.Latency, cfg.Options.LatencyJitter,
		cfg.Options.MaxRPS, cfg.Options.QueueTimeout)
	fmt.Fprintf(stdout, "listening on %s\n", listener.Addr())
	gs := server.GRPCServer()
	if cfg.GRPCListen != "" {
		ln, grpcServed, err := listenGRPC(gs, cfg.GRPCListen)
		if err != nil {
			fmt.Fprintln(stderr, "proxybench-upstream: --grpc-listen:", err)
			return 1
		}
		go func() { served <- <-grpcServed }()
		fmt.Fprintf(stdout, "grpc listening on %s\n", ln.Addr())
	}
	gss, err := serveGRPCS(cfg, server, served, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-upstream: --grpcs-listen:", err)
		return 1
	}
	tlsSrv, err := serveHTTPS(cfg, server, served, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "proxybench-upstream: --https-listen:", err)
		return 1
	}
	select {
	case err := <-served:
		fmt.Fprintln(stderr, "proxybench-upstream:", err)
		return 1
	case <-stop:
	}
	shutdown(srv, gs)
	if gss != nil {
		gss.Stop()
	}
	if tlsSrv != nil {
		_ = tlsSrv.Shutdown()
	}
	return 0
}

// serveGRPCS starts the gRPC server over TLS when --grpcs-listen is set (nil otherwise) and
// prints its ready line.
func serveGRPCS(cfg Config, server *Server, served chan<- error, stdout io.Writer) (*grpc.Server, error) {
	if cfg.GRPCSListen == "" {
		return nil, nil
	}
	creds, err := credentials.NewServerTLSFromFile(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, err
	}
	gss := server.GRPCServer(grpc.Creds(creds))
	ln, grpcsServed, err := listenGRPC(gss, cfg.GRPCSListen)
	if err != nil {
		return nil, err
	}
	go func() { served <- <-grpcsServed }()
	fmt.Fprintf(stdout, "grpcs listening on %s\n", ln.Addr())
	return gss, nil
}

// shutdown lets requests in progress finish briefly, then returns: well within 1 s. Connections
// still open (a request sleeping for its latency) close with the process.
func shutdown(srv *fasthttp.Server, gs *grpc.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	stopped := make(chan struct{})
	go func() { gs.GracefulStop(); close(stopped) }()
	_ = srv.ShutdownWithContext(ctx)
	select {
	case <-stopped:
	case <-ctx.Done():
		gs.Stop()
	}
}

func versionString() string {
	s := "proxybench-upstream " + Version + " " + runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, setting := range info.Settings {
			switch {
			case setting.Key == "vcs.revision" && len(setting.Value) >= 12:
				s += " " + setting.Value[:12]
			case setting.Key == "vcs.modified" && setting.Value == "true":
				s += "+modified"
			}
		}
	}
	return s
}

// serveHTTPS starts the HTTP/1.1 server over TLS when --https-listen is set (nil otherwise) and
// prints its ready line: the same routes as the cleartext one (REST over HTTPS, direct).
func serveHTTPS(cfg Config, server *Server, served chan<- error, stdout io.Writer) (*fasthttp.Server, error) {
	if cfg.HTTPSListen == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", cfg.HTTPSListen)
	if err != nil {
		return nil, err
	}
	srv := server.HTTPServer()
	if err := srv.AppendCert(cfg.TLSCert, cfg.TLSKey); err != nil {
		ln.Close()
		return nil, err
	}
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	fmt.Fprintf(stdout, "https listening on %s\n", ln.Addr())
	return srv, nil
}
