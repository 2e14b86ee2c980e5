package e2etest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

// CreateKeys creates the keys a shared server's tests use, by name: free,
// free2, pro, elite, sql (Elite on the SQL allowlist), unmetered (Pro) and
// revoke (Pro, for the test that revokes it). It returns their secrets and
// ids by name.
func CreateKeys(st state.Store) (secrets, ids map[string]string, err error) {
	secrets, ids = map[string]string{}, map[string]string{}
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
			return nil, nil, err
		}
		secrets[k.name], ids[k.name] = secret, key.ID
	}
	return secrets, ids, nil
}

// StateAt opens the state file at path for a test; tb's Cleanup checks it
// (bbolt's consistency check and a decode of every record).
func StateAt(tb testing.TB, path string) *statebolt.Store {
	tb.Helper()
	return statetest.MustOpenPath(tb, path, statebolt.Options{})
}

// CreateKey creates a key in the state file at path (see StateAt); a
// server on that file loads it within a second.
func CreateKey(tb testing.TB, path string, tier access.Tier, name string, sql, unmetered bool) (string, access.Key, error) {
	tb.Helper()
	return access.Keys{State: StateAt(tb, path)}.Create(context.Background(), access.KeySpec{Tier: tier, Name: name, SQL: sql, Unmetered: unmetered})
}

// Env is what a whole-program TestMain serves: a snapshots root holding the
// tiny snapshot s0001 (built by the real builder, seed 7, as of
// snapshotstest.AsOf) and a state file with the keys of CreateKeys, in a new
// temporary directory.
type Env struct {
	Dir, Root, State string
	Store            *statebolt.Store // the state file, open
	Keys, KeyIDs     map[string]string
}

// NewEnv builds an Env; Close removes it.
func NewEnv() (_ *Env, err error) {
	e := &Env{}
	if e.Dir, err = os.MkdirTemp("", "cardedge-e2e-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	e.Root, e.State = filepath.Join(e.Dir, "snapshots"), filepath.Join(e.Dir, "state.bolt")
	if _, err := snapshotstest.Build(e.Root, 7, snapshotstest.AsOf, "s0001"); err != nil {
		return nil, err
	}
	if e.Store, err = statebolt.Open(e.State, statebolt.Options{}); err != nil {
		return nil, err
	}
	if e.Keys, e.KeyIDs, err = CreateKeys(e.Store); err != nil {
		return nil, err
	}
	return e, nil
}

// Check runs the state file's Check: what every test left in it must be
// consistent and decode.
func (e *Env) Check() error { return e.Store.Check(context.Background()) }

// Close closes the state file and removes the directory.
func (e *Env) Close() {
	if e.Store != nil {
		e.Store.Close()
	}
	os.RemoveAll(e.Dir)
}

// Main is the body of a whole-program TestMain: it builds an Env, calls
// run (which starts the server over it, runs the tests and stops the
// server, returning the tests' exit code) and removes the Env. An error of
// NewEnv or run is printed and the exit code is 1.
func Main(run func(e *Env) (int, error)) int {
	e, err := NewEnv()
	if err == nil {
		var code int
		code, err = run(e)
		e.Close()
		if err == nil {
			return code
		}
	}
	fmt.Fprintln(os.Stderr, "setup:", err)
	return 1
}
