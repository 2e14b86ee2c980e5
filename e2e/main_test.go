package e2e_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/mcp/mcptest"
	"github.com/cardedge/cardedge/openapi/openapitest"
	"github.com/cardedge/cardedge/web/webtest"
)

// The shared environment of the end-to-end tests: TestMain builds the
// cardedge binary and a tiny snapshot (the real builder), creates keys in a
// state file and runs `cardedge serve` over them once; the feature suites
// talk to it. A suite that must change what the server serves, or run it
// with other flags, starts a process of its own (serveRoot,
// startEdgeProcess).

// env is the one cardedge every test talks to.
var env struct {
	root, state, base string
	bin               string
	keys              map[string]string // name -> secret
	keyIDs            map[string]string
	api               *e2etest.API
}

func TestMain(m *testing.M) {
	os.Exit(e2etest.Main(func(e *e2etest.Env) (int, error) { return run(m, e) }))
}

func run(m *testing.M, e *e2etest.Env) (int, error) {
	defer e2etest.RemoveBinary()
	env.root, env.state, env.keys, env.keyIDs = e.Root, e.State, e.Keys, e.KeyIDs
	var err error
	if env.bin, err = e2etest.BuildBinary(); err != nil {
		return 0, err
	}
	p, err := e2etest.Start(env.bin, "serve", "--snapshots", env.root, "--state", env.state, "--cache-mb", "64", "--log-level", "error")
	if err != nil {
		return 0, err
	}
	env.base = p.Base
	if env.api, err = e2etest.LoadAPI(env.base, openapitest.Load); err != nil {
		p.Stop()
		return 0, err
	}
	code := m.Run()
	p.Stop()
	if err := e.Check(); err != nil { // what every test left in the state file
		return 0, err
	}
	return code, nil
}

// Helpers of the suites.

var (
	stateAt     = e2etest.StateAt
	createKey   = e2etest.CreateKey
	keyedClient = e2etest.KeyedClient
	freshClient = e2etest.FreshClient
	data        = e2etest.Data
	truncate    = e2etest.Truncate
	items       = mcptest.Items
	mustJSON    = mcptest.JSON
)

const mcpPath = mcptest.Path

func do(t testing.TB, c *http.Client, method, path, key string, body []byte, hdr ...string) e2etest.Reply {
	t.Helper()
	return env.api.Do(t, c, method, path, key, body, hdr...)
}

func doAt(t testing.TB, c *http.Client, base, method, path, key string, body []byte, hdr ...string) e2etest.Reply {
	t.Helper()
	return env.api.DoAt(t, c, base, method, path, key, body, hdr...)
}

// runBin runs a command of the cardedge binary (accounts, keys, ...) and
// returns its standard output.
func runBin(t testing.TB, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(env.bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("cardedge %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// edgeProc is a cardedge of a test's own (the binary) and its state file.
type edgeProc struct {
	*e2etest.Process
	root, state string
}

// serveRoot runs the binary over root with a fresh state file and extra
// serve flags.
func serveRoot(t testing.TB, root string, extra ...string) *edgeProc {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state.bolt")
	args := append([]string{"serve", "--snapshots", root, "--state", state, "--log-level", "error", "--cache-mb", "64"}, extra...)
	return &edgeProc{Process: e2etest.Serve(t, env.bin, args...), root: root, state: state}
}

// startEdgeProcess runs the binary over env.root on state (and redis,
// when not ""), with extra serve flags.
func startEdgeProcess(t testing.TB, state, redis string, extra ...string) *edgeProc {
	t.Helper()
	args := []string{"serve", "--snapshots", env.root, "--state", state, "--log-level", "error", "--cache-mb", "16"}
	if redis != "" {
		args = append(args, "--redis", redis)
	}
	return &edgeProc{Process: e2etest.Serve(t, env.bin, append(args, extra...)...), root: env.root, state: state}
}

// key creates a key in the process's state file and waits until the
// process has loaded it (keys are reloaded within a second).
func (e *edgeProc) key(t testing.TB, tier access.Tier, sql, unmetered bool) string {
	t.Helper()
	secret, _, err := createKey(t, e.state, tier, t.Name(), sql, unmetered)
	if err != nil {
		t.Fatal(err)
	}
	e2etest.WaitStatus(t, e.Base, "/api/v3/sets?limit=1", secret, 200)
	return secret
}

var featureKeysOnce sync.Once

// setupFeatureKeys creates the feature tests' keys once (a pro key per route
// family, so usage deltas are exact) and waits until the server has loaded
// them.
func setupFeatureKeys(t *testing.T) {
	t.Helper()
	featureKeysOnce.Do(func() {
		for _, k := range []struct {
			name string
			tier access.Tier
		}{{"prices", access.Pro}, {"importer", access.Pro}, {"chat", access.Pro}, {"pricesfree", access.Free}} {
			secret, key, err := createKey(t, env.state, k.tier, k.name, false, false)
			if err != nil {
				t.Fatal(err)
			}
			env.keys[k.name], env.keyIDs[k.name] = secret, key.ID
		}
		for _, name := range []string{"prices", "importer", "chat", "pricesfree"} {
			waitStatus(t, "/api/v3/sets?limit=1", env.keys[name], 200)
		}
	})
}

// detailOf returns the first entry of a 422 body.
func detailOf(t *testing.T, r e2etest.Reply) map[string]any {
	t.Helper()
	d, _ := r.JSON["detail"].([]any)
	if r.Status != 422 || len(d) == 0 {
		t.Fatalf("want a 422 HTTPValidationError, got %d: %s", r.Status, truncate(r.Body))
	}
	return d[0].(map[string]any)
}

// apiGet calls a route of the shared server with a key.
func apiGet(t testing.TB, path, key string) int {
	t.Helper()
	status, err := e2etest.Get(keyedClient, env.base+path, key)
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// waitStatus polls path with key until it answers want (keys change within
// a second).
func waitStatus(t testing.TB, path, key string, want int) {
	t.Helper()
	e2etest.WaitStatus(t, env.base, path, key, want)
}

// mustKey creates a key in the shared state file and waits until the
// server knows it (initialize is free, so waiting costs nothing).
func mustKey(t *testing.T, tier access.Tier, unmetered bool) string {
	t.Helper()
	secret, _, err := createKey(t, env.state, tier, "mcp-"+t.Name(), false, unmetered)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.WaitKey(t, env.base, secret)
	return secret
}

// openSession opens an MCP session of key on the shared server.
func openSession(t testing.TB, key string) *mcptest.Session { return mcptest.Open(t, env.base, key) }

// newDash is a browser-like client of the shared server's dashboard, from
// a loopback address of its own.
func newDash(t testing.TB) *webtest.Client { return webtest.New(t, env.base, webtest.Loopback()) }

// chatSession is a signed-in dashboard client of a fresh account of tier
// (free, pro, elite) and its account id (the tier set as an operator does:
// cardedge accounts set-tier).
func chatSession(t *testing.T, tier string) (*webtest.Client, string) {
	t.Helper()
	d := newDash(t)
	email := webtest.UniqueEmail(t)
	d.SignUp(email)
	if tier != "free" {
		if out, err := runBin(t, "accounts", "set-tier", "--state", env.state, email, tier); err != nil {
			t.Fatalf("set-tier: %v %s", err, out)
		}
	}
	out, err := runBin(t, "accounts", "list", "--state", env.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, email) {
			return d, strings.Fields(line)[0]
		}
	}
	t.Fatalf("account %s not listed:\n%s", email, out)
	return nil, ""
}

// TestValidateOpenAPI_OwnEdge: a response of an edge of a test's own
// (doAt) is checked against the document like the shared edge's: its route
// is found though the document's server is the shared edge.
func TestValidateOpenAPI_OwnEdge(t *testing.T) {
	req, err := http.NewRequest("GET", "http://127.0.0.2:1/api/v3/cards/en:base1-4?include=market_summary", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.api.Router.FindRoute(req); err == nil {
		t.Errorf("the router found a route for another host: OnBase is no longer needed")
	}
	route, _, err := env.api.Router.FindRoute(env.api.OnBase(req))
	if err != nil || route.Path != "/api/v3/cards/{card_id}" {
		t.Errorf("route of %s: %v %v", req.URL, route, err)
	}
}
