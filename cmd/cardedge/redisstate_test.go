package main_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/web/webtest"
)

// End-to-end tests of the shared state store: replicas with --redis alone
// (no state file) against a real redis-server (skipped when it is missing).

// mainRun runs a cardedge command in-process.
func mainRun(args ...string) (string, error) {
	var out, errb bytes.Buffer
	err := main.Main(context.Background(), args, &out, &errb)
	return out.String() + errb.String(), err
}

// statusOn GETs path on base with key.
func statusOn(t *testing.T, base, path, key string) int {
	t.Helper()
	status, err := e2etest.Get(keyedClient, base+path, key)
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// waitStatusOn polls until GET path with key answers want on base, and
// returns how long it took.
func waitStatusOn(t *testing.T, base, path, key string, want int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got := statusOn(t, base, path, key)
		if got == want {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("GET %s%s: %d, want %d within %s", base, path, got, want, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestServe_RedisState(t *testing.T) {
	rs := redistest.Start(t, true) // AOF, fsynced every second
	a, b := startEdge(t, main.ServeConfig{Snapshots: env.root, Redis: rs.URL(), CacheMB: 16}), startEdge(t, main.ServeConfig{Snapshots: env.root, Redis: rs.URL(), CacheMB: 16})
	const path = "/api/v3/sets?limit=1"

	// A key created with the CLI against Redis works on every replica within 2 s.
	out, err := mainRun("keys", "create", "--redis", rs.URL(), "--tier", "pro", "--name", "fleet")
	if err != nil {
		t.Fatalf("keys create --redis: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	id := strings.Fields(lines[0])[2]
	for _, e := range []*edgeProc{a, b} {
		if d := waitStatusOn(t, e.base, path, secret, 200, 2*time.Second); d > 2*time.Second {
			t.Fatalf("new key took %s", d)
		}
	}
	if out, err := mainRun("keys", "list", "--redis", rs.URL()); err != nil || !strings.Contains(out, id) {
		t.Fatalf("keys list --redis: %v\n%s", err, out)
	}

	t.Run("Dashboard", func(t *testing.T) {
		// Sign up on one replica, create a key, use it on the other.
		d := webtest.New(t, a.base, webtest.Loopback())
		d.SignUp(webtest.UniqueEmail(t))
		key, _ := d.CreateKey("across replicas")
		waitStatusOn(t, b.base, path, key, 200, 2*time.Second)
		// The session works on the other replica too.
		d.Base, d.Origin = b.base, b.base
		if p := d.Get("/dashboard/keys"); p.Status != 200 || !strings.Contains(p.Body, "across replicas") {
			t.Fatalf("the session on the other replica: %d", p.Status)
		}
	})

	t.Run("Revoke", func(t *testing.T) {
		out, err := mainRun("keys", "create", "--redis", rs.URL(), "--tier", "free")
		if err != nil {
			t.Fatal(err, out)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		gone := lines[len(lines)-1]
		gid := strings.Fields(lines[0])[2]
		waitStatusOn(t, a.base, path, gone, 200, 2*time.Second)
		waitStatusOn(t, b.base, path, gone, 200, 2*time.Second)
		if out, err := mainRun("keys", "revoke", "--redis", rs.URL(), gid); err != nil {
			t.Fatal(err, out)
		}
		var worst time.Duration
		for _, e := range []*edgeProc{a, b} {
			worst = max(worst, waitStatusOn(t, e.base, path, gone, 401, 2*time.Second))
		}
		t.Logf("a revoked key refused on every replica within %s", worst)
	})

	t.Run("RedisDown", func(t *testing.T) {
		for range 3 {
			statusOn(t, a.base, path, secret)
		}
		time.Sleep(1500 * time.Millisecond) // synced into Redis, which fsyncs each second
		used := e2etest.UsageOf(t, b.base, secret)
		rs.Stop()
		// Reads keep working with the last key table, on every replica.
		for _, e := range []*edgeProc{a, b} {
			if s := statusOn(t, e.base, path, secret); s != 200 {
				t.Fatalf("read with Redis down: %d", s)
			}
		}
		// Writes answer a clear 503 (or a failing command), with nothing half-written.
		if out, err := mainRun("keys", "create", "--redis", rs.URL(), "--tier", "free"); err == nil || !strings.Contains(out+err.Error(), "unavailable") {
			t.Fatalf("keys create with Redis down: %v %s", err, out)
		}
		d := webtest.New(t, a.base, webtest.Loopback())
		email := webtest.UniqueEmail(t)
		p := d.Post("/dashboard/signup", url.Values{"csrf": {d.CSRF("/dashboard/signup")}, "email": {email}, "password": {webtest.Password}})
		if p.Status != http.StatusServiceUnavailable || !strings.Contains(p.Body, "nothing was saved") {
			t.Fatalf("sign-up with Redis down: %d %.300s", p.Status, p.Body)
		}
		rs.Start()
		// Keys and usage intact after the restart; the sign-up left nothing:
		// the email is still free.
		waitStatusOn(t, b.base, path, secret, 200, 5*time.Second)
		if got := e2etest.UsageOf(t, a.base, secret); got < used {
			t.Fatalf("usage %d after the Redis restart, %d before", got, used)
		}
		d.SignUp(email)
	})

	t.Run("Migrate", func(t *testing.T) {
		// A node's state file moved into an empty Redis, exactly.
		file := filepath.Join(t.TempDir(), "state.bolt")
		fs, err := statebolt.Open(file, statebolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		keys := access.Keys{State: fs}
		old, _, err := keys.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "old node"})
		if err != nil {
			t.Fatal(err)
		}
		to := redistest.Start(t, false)
		out, err := mainRun("state", "migrate", "--from", file, "--to", to.URL())
		if err != nil || !strings.Contains(out, "moved ") {
			t.Fatalf("state migrate: %v\n%s", err, out)
		}
		dst, err := stateredis.Open(to.URL(), stateredis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		if diff := entriesDiff(t, fs, dst); diff != "" {
			t.Fatalf("Redis after the migration differs from the file: %s", diff)
		}
		e := startEdge(t, main.ServeConfig{Snapshots: env.root, Redis: to.URL(), CacheMB: 16})
		if s := statusOn(t, e.base, path, old); s != 200 {
			t.Fatalf("a migrated key: %d", s)
		}
		if _, err := mainRun("state", "migrate", "--from", file, "--to", to.URL()); err == nil {
			t.Fatal("a second migration into the same Redis: no error")
		}
	})
}

// entriesDiff compares every record and counter of two stores ("" when
// equal).
func entriesDiff(t *testing.T, a, b state.Exporter) string {
	t.Helper()
	list := func(s state.Exporter) []string {
		var out []string
		err := s.Export(context.Background(), func(e state.Entry) error {
			out = append(out, string(e.Bucket)+" "+e.Key+" "+string(e.Value)+" "+time.Duration(e.N).String()+" "+e.Expires.Truncate(time.Millisecond).String())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	x, y := list(a), list(b)
	if strings.Join(x, "\n") != strings.Join(y, "\n") {
		return "file:\n" + strings.Join(x, "\n") + "\nredis:\n" + strings.Join(y, "\n")
	}
	return ""
}
