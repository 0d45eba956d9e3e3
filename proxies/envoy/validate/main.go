// Checks Envoy bootstrap configs against Envoy's v3 API without an Envoy binary (the image runs
// only in Docker, on GitHub's runners). Each file, YAML or JSON, is read into
// envoy.config.bootstrap.v3.Bootstrap with protojson: an unknown field, a value of the wrong
// type or a typed_config of a type not linked in here is an error. Then every message, and
// every message packed in an Any (typed_config, which protoc-gen-validate does not look into),
// is checked with the protoc-gen-validate rules Envoy applies when it loads a config, and a
// deprecated field or enum value is refused. What this cannot see: semantics Envoy checks only
// in C++ (a cluster named by a route exists, a Lua script compiles, a JWKS parses).
//
// Usage: proxybench-envoy-validate FILE...; prints "FILE: ok" for each valid file, and
// "FILE: <problem>" on stderr for each other, then exits 1.
package main

import (
	"fmt"
	"os"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"

	// The typed_config types proxybench's Envoy configs use: an Any resolves only to a type
	// linked in, so a config with another filter fails here until it is added.
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: proxybench-envoy-validate FILE... (Envoy v3 bootstraps, YAML or JSON)")
		os.Exit(2)
	}
	failed := false
	for _, file := range os.Args[1:] {
		if err := validateFile(file); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			failed = true
			continue
		}
		fmt.Printf("%s: ok\n", file)
	}
	if failed {
		os.Exit(1)
	}
}

// validateFile reads one bootstrap and returns its first problem, or nil.
func validateFile(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	// Envoy itself reads YAML by converting it to JSON first, then protobuf's JSON mapping.
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	var bootstrap bootstrapv3.Bootstrap
	if err := protojson.Unmarshal(js, &bootstrap); err != nil {
		return fmt.Errorf("not an Envoy v3 bootstrap: %w", err)
	}
	return checkMessage(bootstrap.ProtoReflect(), "")
}
