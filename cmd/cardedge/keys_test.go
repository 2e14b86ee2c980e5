package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/state"
)

// runMain runs the cardedge command line and returns its output.
func runMain(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := main.Main(context.Background(), args, &out, io.Discard)
	return out.String(), err
}

// `keys create` without --name names the key after its id (issue 18), and
// list and revoke show it.
func TestKeys_Create_NoName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	out, err := runMain(t, "keys", "create", "--state", path, "--tier", "pro")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`^created key (k_([a-z2-7]{8})) \(tier pro, name "key-([a-z2-7]{8})", sql false, unmetered false\); the secret is shown once:\nce_p_[A-Za-z0-9_-]{43}\n$`).FindStringSubmatch(out)
	if m == nil || m[2] != m[3] {
		t.Fatalf("keys create printed:\n%s", out)
	}
	id, name := m[1], "key-"+m[2]
	if out, err = runMain(t, "keys", "list", "--state", path); err != nil || !strings.Contains(out, id) || !strings.HasSuffix(strings.TrimSpace(out), name) {
		t.Fatalf("keys list: %v\n%s", err, out)
	}
	if out, err = runMain(t, "keys", "revoke", "--state", path, id); err != nil || !strings.Contains(out, "revoked key "+id) {
		t.Fatalf("keys revoke: %v\n%s", err, out)
	}
	stateAt(t, path) // checked at the end
}

// `keys list` over a file that does not exist lists nothing and creates
// nothing.
func TestKeys_List_NoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	out, err := runMain(t, "keys", "list", "--state", path)
	if err != nil || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "ID ") {
		t.Fatalf("keys list: %v\n%s", err, out)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("keys list created the state file")
	}
}

// The sales cursor secret moves from <state>.cursor-key, where earlier
// versions kept it, into the state store: cursors issued before stay valid.
func TestServe_CursorSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	legacy := []byte("an old cursor secret of 32 bytes")
	if err := os.WriteFile(path+".cursor-key", legacy, 0o600); err != nil {
		t.Fatal(err)
	}
	stored := func() []byte {
		t.Helper()
		var b []byte
		err := stateAt(t, path).View(context.Background(), func(tx state.Tx) error {
			v, err := tx.Get(state.Secrets, "cursor")
			if err == nil {
				err = json.Unmarshal(v, &b)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i := range 2 { // the first start adopts the file, the second reads the store
		_, stop, err := tryServe(t, path)
		if err != nil {
			t.Fatal(err)
		}
		stop()
		if got := stored(); !bytes.Equal(got, legacy) {
			t.Fatalf("start %d: the cursor secret is %q, want the file's", i+1, got)
		}
		if err := os.WriteFile(path+".cursor-key", []byte("another secret, never read again"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
