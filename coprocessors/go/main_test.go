package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

const goodToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwcm94eWJlbmNoIiwiY2xpZW50X25hbWUiOiJwcm94eWJlbmNoLXdlYiIsImNsaWVudF92ZXJzaW9uIjoiMS40LjIifQ.yUbHkLIA2Cr5h6gZEdofEKjoyfRxIUsboFDz-4IroR4"
const badToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwcm94eWJlbmNoIiwiY2xpZW50X25hbWUiOiJwcm94eWJlbmNoLXdlYiIsImNsaWVudF92ZXJzaW9uIjoiMS40LjIifQ.8dtnHVqvd6EX4xn1ThsLLXfQ1_1jB1A3DLWlh8NxU5I"

func post(t *testing.T, path, auth string, mirror bool) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	body := `{"version":1,"stage":"RouterRequest","control":"continue","id":"abc","headers":{"authorization":["` + auth + `"]},"extra":{"kept":true}}`
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	if mirror {
		req.Header.Set("x-proxybench-mirror", "1")
	}
	rec := httptest.NewRecorder()
	handle(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: not JSON: %q", path, rec.Body.String())
	}
	return rec, out
}

func TestStaticSubgraphSetsSourceAndKeepsTheRest(t *testing.T) {
	rec, out := post(t, "/static-subgraph", "", true)
	headers := out["headers"].(map[string]any)
	if out["control"] != "continue" || out["id"] != "abc" || out["extra"] == nil {
		t.Fatalf("payload not returned as it came: %v", out)
	}
	if got := headers["source"].([]any)[0]; got != "go" {
		t.Fatalf("source %v", got)
	}
	if rec.Header().Get("x-coprocessor-header-source") != "go" {
		t.Fatalf("mirror header missing: %v", rec.Header())
	}
}

func TestGuidResponseSetsTenDistinctGuids(t *testing.T) {
	_, out := post(t, "/guid-response", "", false)
	headers := out["headers"].(map[string]any)
	guid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i := 1; i <= 10; i++ {
		s := headers[fmt.Sprintf("x-guid-%d", i)].([]any)[0].(string)
		if !guid.MatchString(s) {
			t.Fatalf("x-guid-%d = %q is not a version 4 GUID", i, s)
		}
		seen[s] = true
	}
	if len(seen) != 10 {
		t.Fatalf("%d distinct GUIDs", len(seen))
	}
}

func TestClientAwareness(t *testing.T) {
	_, out := post(t, "/client-awareness", "Bearer "+goodToken, false)
	headers := out["headers"].(map[string]any)
	if headers["apollographql-client-name"].([]any)[0] != "proxybench-web" ||
		headers["apollographql-client-version"].([]any)[0] != "1.4.2" {
		t.Fatalf("client headers %v", headers)
	}
	rec, out := post(t, "/client-awareness", "Bearer "+badToken, false)
	if rec.Code != http.StatusOK {
		t.Fatalf("without the mirror a break is still HTTP 200 (the router reads control), got %d", rec.Code)
	}
	if control, ok := out["control"].(map[string]any); !ok || control["break"] != float64(401) {
		t.Fatalf("control %v", out["control"])
	}
	rec, _ = post(t, "/client-awareness", "Bearer "+badToken, true)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("with the mirror a break is its status, got %d", rec.Code)
	}
}
