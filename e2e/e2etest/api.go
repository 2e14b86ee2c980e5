package e2etest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// API is the REST API of a cardedge at Base whose responses are checked
// against the OpenAPI document it serves.
type API struct {
	Base string
	// Schemas validates response bodies under OpenAPI 3.1 (JSON Schema
	// 2020-12); kin-openapi finds the operation of a request (Router).
	Schemas Schemas
	Router  routers.Router
	Spec    *openapi3.T    // the document as kin-openapi reads it
	Raw     map[string]any // the document as JSON
}

// Schemas checks response bodies against the response schemas of an OpenAPI
// 3.1 document: openapi/openapitest's Document, which the tests hand to
// LoadAPI (this package may not import edge/: only the commands import the
// front door, docs/layers_test.go).
type Schemas interface {
	// HasResponse reports whether the operation describes a JSON response
	// of status.
	HasResponse(method, pattern string, status int) bool
	// ValidateResponse checks body against that response's schema.
	ValidateResponse(method, pattern string, status int, body []byte) error
}

// LoadAPI reads base's OpenAPI document (GET /api/v3/openapi.json), checks
// that it validates, and returns the API it describes; schemas reads the
// document's response schemas (openapitest.Load).
func LoadAPI[S Schemas](base string, schemas func(doc []byte) (S, error)) (*API, error) {
	resp, err := http.Get(base + "/api/v3/openapi.json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	a := &API{Base: base}
	if a.Schemas, err = schemas(b); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &a.Raw); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi does not validate: %w", err)
	}
	doc.Servers = openapi3.Servers{{URL: base}}
	a.Spec = doc
	if a.Router, err = gorillamux.NewRouter(doc); err != nil {
		return nil, err
	}
	return a, nil
}

// Client dials from a given loopback address so that Playground rate
// limits (per client address) do not couple tests.
func Client(localIP string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableCompression: true}}
}

// KeyedClient is the client of requests with a key (127.0.0.1).
var KeyedClient = Client("127.0.0.1")

var nextIP atomic.Int32

// FreshClient returns a client with its own loopback address (127.0.1.2
// and on).
func FreshClient() *http.Client {
	n := nextIP.Add(1)
	return Client(fmt.Sprintf("127.0.%d.%d", 1+n/250, 2+n%250))
}

// Reply is one REST answer.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any // the body, when it is JSON
}

// Do sends a request to the API with key ("" for none), body as JSON when
// not nil, and headers (name, value pairs); the answer is checked against
// the document.
func (a *API) Do(t testing.TB, c *http.Client, method, path, key string, body []byte, hdr ...string) Reply {
	t.Helper()
	return a.DoAt(t, c, a.Base, method, path, key, body, hdr...)
}

// DoAt is Do against the edge at base (an edge of a test's own, such as
// the default snapshot's): the response is checked against the API's
// document all the same.
func (a *API) DoAt(t testing.TB, c *http.Client, base, method, path, key string, body []byte, hdr ...string) Reply {
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
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && resp.Header.Get("Content-Encoding") == "" && len(b) > 0 {
		if err := json.Unmarshal(b, &r.JSON); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, b)
		}
	}
	// Every JSON response is checked against the published OpenAPI document.
	if resp.Header.Get("Content-Encoding") == "" && !strings.HasPrefix(path, "/health") {
		a.Validate(t, req, resp.StatusCode, resp.Header, b)
	}
	return r
}

// Validate checks a response of a route of the document twice: its body
// against the response schema under JSON Schema 2020-12, the dialect of
// OpenAPI 3.1 (openapitest: a value may be null only where a list of types
// says "null"), and the whole response with kin-openapi's openapi3filter
// (status, content type, headers). A request of no route of the document
// (removed routes, 404s) is not checked.
func (a *API) Validate(t testing.TB, req *http.Request, status int, hdr http.Header, body []byte) {
	t.Helper()
	req = a.OnBase(req)
	route, params, err := a.Router.FindRoute(req)
	if err != nil {
		return
	}
	if a.Schemas.HasResponse(req.Method, route.Path, status) {
		if err := a.Schemas.ValidateResponse(req.Method, route.Path, status, body); err != nil {
			t.Errorf("%s %s: response %d does not validate under OpenAPI 3.1 (JSON Schema 2020-12): %v\n%s", req.Method, req.URL, status, err, Truncate(body))
		}
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, ExcludeRequestBody: true}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: hdr,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: response %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL, status, err, Truncate(body))
	}
}

// OnBase returns req addressed to the API's Base: the document's server is
// Base and its router matches the host too, so a request to an edge of a
// test's own would find no route and go unchecked.
func (a *API) OnBase(req *http.Request) *http.Request {
	u, err := url.Parse(a.Base)
	if err != nil {
		panic(err)
	}
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, u.Host
	return r
}

// Data is the data object of a reply; it fails t when there is none.
func Data(t testing.TB, r Reply) map[string]any {
	t.Helper()
	d, ok := r.JSON["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", Truncate(r.Body))
	}
	return d
}

// Truncate shortens b to 600 bytes for a failure message.
func Truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// Get calls url with key and returns the status (the body is read and
// dropped).
func Get(c *http.Client, url, key string) (int, error) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// UsageOf is today's usage of key at base as GET /keys/usage reports it
// (the call counts itself).
func UsageOf(t testing.TB, base, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/keys/usage", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := KeyedClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Today struct {
				Used int `json:"used"`
			} `json:"today"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("usage: %d %v", resp.StatusCode, err)
	}
	return body.Data.Today.Used
}

// Body GETs url (no key) and returns its body.
func Body(t testing.TB, url string) []byte {
	t.Helper()
	resp, err := KeyedClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Health reads /health of the edge at base.
func Health(t testing.TB, base string) map[string]any {
	t.Helper()
	var h map[string]any
	if err := json.Unmarshal(Body(t, base+"/health"), &h); err != nil {
		t.Fatalf("health: %v", err)
	}
	return h
}

// WaitAsOf waits (up to 30 s) until the edge at base serves as_of.
func WaitAsOf(t testing.TB, base, asOf string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if Health(t, base)["as_of"] == asOf {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("as_of %s never served", asOf)
}

// WaitStatus polls base's path with key until it answers want (up to 10 s:
// servers reload their keys within a second).
func WaitStatus(t testing.TB, base, path, key string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, err := Get(KeyedClient, base+path, key)
		if err != nil {
			t.Fatal(err)
		}
		if status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d, want %d", path, status, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
