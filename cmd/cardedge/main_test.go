package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/edge/openapitest"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// The shared environment of the end-to-end tests (as wtf's cmd/wtfd
// main_test.go): TestMain runs the real program (Main's Serve) once, and the
// tests of the feature files (rest, sql, prices, imports, chat, mcp, ...)
// talk to it; a test that must change the edge's state in ways others would
// see (swap_test.go, faults, hostile) starts an edge of its own
// (helpers_test.go).

// env is the one edge every test talks to: the real program (Main's Serve)
// on a loopback port over a tiny snapshot built by the real builder.
var env struct {
	root, state, base string
	keys              map[string]string // tier name -> secret
	keyIDs            map[string]string
	stop              context.CancelFunc
	done              chan error
	openapi           *openapi3.T
	router            routers.Router
	// doc validates response bodies under OpenAPI 3.1 (JSON Schema
	// 2020-12); kin-openapi finds the operation of a request (router).
	doc *openapitest.Document
}

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "cardedge-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	env.root = filepath.Join(dir, "snapshots")
	env.state = filepath.Join(dir, "state.bolt")
	if _, err := snapshotstest.Build(env.root, 7, snapshotstest.AsOf, "s0001"); err != nil {
		return 0, err
	}
	env.keys, env.keyIDs = map[string]string{}, map[string]string{}
	st, err := statebolt.Open(env.state, statebolt.Options{})
	if err != nil {
		return 0, err
	}
	keys := access.Keys{State: st}
	for _, k := range []struct {
		name           string
		tier           access.Tier
		sql, unmetered bool
	}{
		{"free", access.Free, false, false}, {"free2", access.Free, false, false}, {"pro", access.Pro, false, false},
		{"elite", access.Elite, false, false}, {"sql", access.Elite, true, false}, {"unmetered", access.Pro, false, true},
		{"revoke", access.Pro, false, false},
	} {
		secret, key, err := keys.Create(context.Background(), access.KeySpec{Tier: k.tier, Name: k.name, SQL: k.sql, Unmetered: k.unmetered})
		if err != nil {
			return 0, err
		}
		env.keys[k.name], env.keyIDs[k.name] = secret, key.ID
	}
	ctx, cancel := context.WithCancel(context.Background())
	env.stop = cancel
	ready := make(chan string, 1)
	env.done = make(chan error, 1)
	go func() {
		env.done <- main.Serve(ctx, main.ServeConfig{
			Snapshots: env.root, State: env.state, Addr: "127.0.0.1:0", CacheMB: 64, LogLevel: "error",
			Ready: func(addr string) { ready <- addr },
		}, io.Discard, io.Discard)
	}()
	select {
	case addr := <-ready:
		env.base = "http://" + addr
	case err := <-env.done:
		return 0, fmt.Errorf("serve: %v", err)
	case <-time.After(60 * time.Second):
		return 0, fmt.Errorf("server did not start")
	}
	if err := loadOpenAPI(); err != nil {
		return 0, err
	}
	code := m.Run()
	cancel()
	if err := <-env.done; err != nil {
		return 0, fmt.Errorf("serve returned: %v", err)
	}
	if err := st.Check(context.Background()); err != nil { // what every test left in the state file
		return 0, err
	}
	return code, nil
}

// stateAt opens the state file at path for a test; tb's Cleanup checks it
// (bbolt's consistency check and a decode of every record).
func stateAt(tb testing.TB, path string) *statebolt.Store {
	tb.Helper()
	return statetest.MustOpenPath(tb, path, statebolt.Options{})
}

// createKey creates a key in the state file at path (see stateAt).
func createKey(tb testing.TB, path string, tier access.Tier, name string, sql, unmetered bool) (string, access.Key, error) {
	tb.Helper()
	return access.Keys{State: stateAt(tb, path)}.Create(context.Background(), access.KeySpec{Tier: tier, Name: name, SQL: sql, Unmetered: unmetered})
}

func loadOpenAPI() error {
	resp, err := http.Get(env.base + "/api/v3/openapi.json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if env.doc, err = openapitest.Load(b); err != nil {
		return err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		return fmt.Errorf("openapi: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return fmt.Errorf("openapi does not validate: %w", err)
	}
	doc.Servers = openapi3.Servers{{URL: env.base}}
	env.openapi = doc
	env.router, err = gorillamux.NewRouter(doc)
	return err
}

// client dials from a given loopback address so that Playground rate limits
// (per client address) do not couple tests.
func client(localIP string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableCompression: true}}
}

var keyedClient = client("127.0.0.1")
var nextIP atomic.Int32

// freshClient returns a client with its own loopback address.
func freshClient() *http.Client {
	n := nextIP.Add(1)
	return client(fmt.Sprintf("127.0.%d.%d", 1+n/250, 2+n%250))
}

type reply struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func do(t *testing.T, c *http.Client, method, path, key string, body []byte, hdr ...string) reply {
	t.Helper()
	return doAt(t, c, env.base, method, path, key, body, hdr...)
}

// doAt is do against the edge at base (an edge of a test's own, such as
// the default snapshot's): the response is checked against the shared
// edge's document all the same.
func doAt(t *testing.T, c *http.Client, base, method, path, key string, body []byte, hdr ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && resp.Header.Get("Content-Encoding") == "" && len(b) > 0 {
		if err := json.Unmarshal(b, &r.json); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, b)
		}
	}
	// Every JSON response is checked against the published OpenAPI document.
	if resp.Header.Get("Content-Encoding") == "" && !strings.HasPrefix(path, "/health") {
		validateOpenAPI(t, req, resp.StatusCode, resp.Header, b)
	}
	return r
}

// validateOpenAPI checks a response of a route of the document twice: its
// body against the response schema under JSON Schema 2020-12, the dialect
// of OpenAPI 3.1 (openapitest: a value may be null only where a list of
// types says "null"), and the whole response with kin-openapi's
// openapi3filter (status, content type, headers).
func validateOpenAPI(t *testing.T, req *http.Request, status int, hdr http.Header, body []byte) {
	t.Helper()
	req = onSharedEdge(req)
	route, params, err := env.router.FindRoute(req)
	if err != nil {
		return // not a public route of the document (removed routes, 404s)
	}
	if env.doc.HasResponse(req.Method, route.Path, status) {
		if err := env.doc.ValidateResponse(req.Method, route.Path, status, body); err != nil {
			t.Errorf("%s %s: response %d does not validate under OpenAPI 3.1 (JSON Schema 2020-12): %v\n%s", req.Method, req.URL, status, err, truncate(body))
		}
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, ExcludeRequestBody: true}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: hdr,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: response %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL, status, err, truncate(body))
	}
}

// onSharedEdge returns req addressed to the shared edge: the document's
// server is env.base and its router matches the host too, so a request to
// an edge of a test's own (getJSON) would find no route and go unchecked.
func onSharedEdge(req *http.Request) *http.Request {
	u, err := url.Parse(env.base)
	if err != nil {
		panic(err)
	}
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, u.Host
	return r
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

func data(t *testing.T, r reply) map[string]any {
	t.Helper()
	d, ok := r.json["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", truncate(r.body))
	}
	return d
}
