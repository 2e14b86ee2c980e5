package main_test

import (
	"fmt"
	"os"
	"testing"

	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/openapi/openapitest"
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
	os.Exit(e2etest.Main(func(e *e2etest.Env) (int, error) { return run(m, e) }))
}

func run(m *testing.M, e *e2etest.Env) (int, error) {
	env.root, env.state, env.keys, env.keyIDs = e.Root, e.State, e.Keys, e.KeyIDs
	srv, err := startServe(main.ServeConfig{Snapshots: env.root, State: env.state, CacheMB: 64})
	if err != nil {
		return 0, err
	}
	env.base = srv.base
	if env.api, err = e2etest.LoadAPI(env.base, openapitest.Load); err != nil {
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

// copyRoot copies snapshot id of env.root into a new root (published), so a
// test can publish into it without touching the shared one.
func copyRoot(tb testing.TB, id string) string {
	tb.Helper()
	return e2etest.CopyRoot(tb, env.root, id)
}
