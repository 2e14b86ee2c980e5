package bolt_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

func TestStore_Conformance(t *testing.T) {
	statetest.TestStore(t, func(t *testing.T, now func() time.Time) state.Store {
		st, err := statebolt.Open(filepath.Join(t.TempDir(), "state.bolt"), statebolt.Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
