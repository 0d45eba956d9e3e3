package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func postGraphQL(t *testing.T, url, body string, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/graphql", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func TestSubgraphAnswersFixedDataAndTheHeadersItSaw(t *testing.T) {
	s := newTestServer(t, Options{})
	query := `{"query":"{ products { id name price } source: header(name: \"Source\") absent: header(name: \"x-absent\") }"}`
	status, out := postGraphQL(t, s.URL, query, map[string]string{"source": "config"})
	data, _ := out["data"].(map[string]any)
	if status != http.StatusOK || data == nil {
		t.Fatalf("status %d, body %v", status, out)
	}
	if products, _ := data["products"].([]any); len(products) != 3 {
		t.Fatalf("products %v", data["products"])
	}
	if data["source"] != "config" || data["absent"] != nil {
		t.Fatalf("headers seen: %v", data)
	}
}

func TestSubgraphRefusesWhatIsNotAQuery(t *testing.T) {
	s := newTestServer(t, Options{})
	if status, _ := postGraphQL(t, s.URL, `not json`, nil); status != http.StatusBadRequest {
		t.Fatalf("not JSON: status %d", status)
	}
	resp, err := client.Get(s.URL + "/graphql")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
}
