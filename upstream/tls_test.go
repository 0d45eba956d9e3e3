package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"proxybench/upstream/pingpong"
)

// selfSigned writes a certificate for 127.0.0.1 and its key (PEM) into dir; the certificate is
// its own CA, returned as a pool for the clients.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots = x509.NewCertPool()
	roots.AddCert(cert)
	return certFile, keyFile, roots
}

// TestTLSListeners: gRPC and HTTP/1.1 over TLS with the given certificate, verified by clients
// that trust it only.
func TestTLSListeners(t *testing.T) {
	certFile, keyFile, roots := selfSigned(t, t.TempDir())
	cfg := Config{GRPCSListen: "127.0.0.1:0", HTTPSListen: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile}
	server := newServer(t, Options{QueueTimeout: time.Second})
	served := make(chan error, 2)
	lines, out := io.Pipe()
	// Each server prints its ready line into the pipe before it returns: read it meanwhile.
	grpcsStarted := make(chan *grpc.Server, 1)
	go func() {
		gss, err := serveGRPCS(cfg, server, served, out)
		if err != nil {
			served <- err
		}
		grpcsStarted <- gss
	}()
	grpcsAddr := readAddr(t, lines, "grpcs listening on ")
	if gss := <-grpcsStarted; gss != nil {
		defer gss.Stop()
	}
	httpsStarted := make(chan *fasthttp.Server, 1)
	go func() {
		srv, err := serveHTTPS(cfg, server, served, out)
		if err != nil {
			served <- err
		}
		httpsStarted <- srv
	}()
	httpsAddr := readAddr(t, lines, "https listening on ")
	if srv := <-httpsStarted; srv != nil {
		defer func() { _ = srv.Shutdown() }()
	}
	tlsConfig := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}

	conn, err := grpc.NewClient(grpcsAddr, grpc.WithTransportCredentials(credentials.NewTLS(tlsConfig)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reply, err := pingpong.NewPingPongClient(conn).Ping(ctx, &pingpong.PingRequest{Message: "over tls"})
	if err != nil || reply.GetMessage() != "over tls" {
		t.Errorf("Ping over TLS: %v, %v", reply, err)
	}

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}, Timeout: 5 * time.Second}
	resp, err := client.Get("https://" + httpsAddr + "/api/values")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != `["value1","value2"]` || resp.TLS == nil {
		t.Errorf("GET /api/values over TLS: %d %q (TLS %v)", resp.StatusCode, body, resp.TLS != nil)
	}
}

// readAddr reads the ready line `<prefix>host:port` from r.
func readAddr(t *testing.T, r io.Reader, prefix string) string {
	t.Helper()
	buf := make([]byte, 0, 128)
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			t.Fatal(err)
		}
		if one[0] == '\n' {
			break
		}
		buf = append(buf, one[0])
	}
	line := string(buf)
	if len(line) < len(prefix) || line[:len(prefix)] != prefix {
		t.Fatalf("ready line %q, want %q...", line, prefix)
	}
	return line[len(prefix):]
}
