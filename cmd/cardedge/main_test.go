package main_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/e2e/e2etest"
)

// The wiring tests of the command (as wtf's cmd/wtfd main_test.go): TestMain
// runs the real program (Main's Serve) in-process once over a tiny snapshot
// built by the real builder, and the smoke tests of each front door
// (smoke_test.go), the hostile inputs and the HTTP fuzz talk to it; the
// commands (keys, accounts, secrets) run Main; a test that must change the
// edge's state in ways others would see (swap, faults, hostile framing)
// starts an edge of its own (helpers_test.go). The feature suites of the
// whole program, and those that need the binary, Chromium, npm, Redis or S3,
// are package e2e's.

// env is the one edge the tests talk to: the real program (Main's Serve)
// on a loopback port over a tiny snapshot built by the real builder.
var env struct {
	root, state, base string
	keys              map[string]string // tier name -> secret
	keyIDs            map[string]string
	// api checks every response of do against the OpenAPI document the
	// server serves.
	api *e2etest.API
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
	e, err := e2etest.NewEnv()
	if err != nil {
		return 0, err
	}
	defer e.Close()
	env.root, env.state, env.keys, env.keyIDs = e.Root, e.State, e.Keys, e.KeyIDs
	srv, err := startServe(main.ServeConfig{Snapshots: env.root, State: env.state, CacheMB: 64})
	if err != nil {
		return 0, err
	}
	env.base = srv.base
	if env.api, err = e2etest.LoadAPI(env.base); err != nil {
		return 0, err
	}
	code := m.Run()
	if err := srv.shutdown(); err != nil {
		return 0, fmt.Errorf("serve returned: %v", err)
	}
	if err := e.Check(); err != nil { // what every test left in the state file
		return 0, err
	}
	return code, nil
}

// Helpers of the tests (e2etest's, shared with package e2e).

var (
	stateAt     = e2etest.StateAt
	createKey   = e2etest.CreateKey
	keyedClient = e2etest.KeyedClient
	freshClient = e2etest.FreshClient
	data        = e2etest.Data
	truncate    = e2etest.Truncate
)

// do sends a request to the shared edge; the answer is checked against the
// OpenAPI document.
func do(t testing.TB, c *http.Client, method, path, key string, body []byte, hdr ...string) e2etest.Reply {
	t.Helper()
	return env.api.Do(t, c, method, path, key, body, hdr...)
}

// copyRoot copies snapshot id of env.root into a new root (published), so a
// test can publish into it without touching the shared one.
func copyRoot(tb testing.TB, id string) string {
	tb.Helper()
	return e2etest.CopyRoot(tb, env.root, id)
}
