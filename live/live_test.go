package live_test

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// built is one root with two tiny snapshots, s0001 and s0002 (CURRENT names
// s0002 after the build), shared by the tests: each copies it.
var built = snapshotstest.SharedRoot{Build: func(root string) error {
	for i, id := range []string{"s0001", "s0002"} {
		if _, err := snapshotstest.Build(root, int64(7+i), snapshotstest.AsOf, id); err != nil {
			return err
		}
	}
	return nil
}}

func TestMain(m *testing.M) {
	code := m.Run()
	built.Close()
	os.Exit(code)
}

// mustRoot returns a copy of the shared root with CURRENT naming current.
func mustRoot(tb testing.TB, current string) string {
	tb.Helper()
	root := tb.TempDir()
	if err := os.CopyFS(root, os.DirFS(built.Get(tb))); err != nil {
		tb.Fatal(err)
	}
	if err := snapshots.Publish(root, current); err != nil {
		tb.Fatal(err)
	}
	return root
}

// counted is a Derivation that counts its builds and says which snapshot it
// was built for.
func counted(builds *int) live.Derivation {
	return live.Derivation{Name: "test", Build: func(v *live.View, _ *snapshots.Meter) (any, error) {
		*builds++
		return "derived from " + v.ID(), nil
	}}
}

func mustOpen(tb testing.TB, root string, o live.Options) *live.Live {
	tb.Helper()
	o.Logger = slog.New(slog.DiscardHandler)
	l, err := live.Open(root, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(l.Close)
	return l
}

func TestOpen_ErrNoCurrent(t *testing.T) {
	if _, err := live.Open(t.TempDir(), live.Options{Logger: slog.New(slog.DiscardHandler)}); !errors.Is(err, snapshots.ErrNoCurrent) {
		t.Fatalf("Open of an empty root: %v, want ErrNoCurrent", err)
	}
}

func TestLive_Check(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		root := mustRoot(t, "s0001")
		var builds int
		l := mustOpen(t, root, live.Options{Derive: []live.Derivation{counted(&builds)}})
		var swaps [][2]string
		l.OnSwap(func(prev, next *live.View) { swaps = append(swaps, [2]string{prev.ID(), next.ID()}) })
		old := l.Acquire()
		if got, want := old.ID(), "s0001"; got != want {
			t.Fatalf("serving %s, want %s", got, want)
		}
		if got, want := old.Derived("test"), "derived from s0001"; got != want {
			t.Errorf("Derived: %v, want %v", got, want)
		}
		if err := snapshots.Publish(root, "s0002"); err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); err != nil {
			t.Fatal(err)
		}
		cur := l.Acquire()
		defer cur.Release()
		if got, want := cur.ID(), "s0002"; got != want {
			t.Errorf("after the swap serving %s, want %s", got, want)
		}
		if cur.Gen != old.Gen+1 || l.Gen() != cur.Gen {
			t.Errorf("generations: old %d, new %d, Live %d", old.Gen, cur.Gen, l.Gen())
		}
		if got, want := cur.Derived("test"), "derived from s0002"; got != want {
			t.Errorf("Derived after the swap: %v, want %v", got, want)
		}
		// The old snapshot stays readable while pinned.
		if _, err := old.Reader.Card("pokemon", "en:base1-4"); err != nil {
			t.Errorf("pinned old snapshot: %v", err)
		}
		old.Release()
		if builds != 2 || l.Swaps() != 1 || len(swaps) != 1 || swaps[0] != [2]string{"s0001", "s0002"} {
			t.Errorf("builds %d, swaps %d, OnSwap calls %v", builds, l.Swaps(), swaps)
		}
		// CURRENT unchanged: nothing to do.
		if err := l.Check(); err != nil || l.Swaps() != 1 {
			t.Errorf("Check with CURRENT unchanged: %v, swaps %d", err, l.Swaps())
		}
	})
	t.Run("ErrVerify", func(t *testing.T) {
		root := mustRoot(t, "s0001")
		l := mustOpen(t, root, live.Options{})
		// s0002's catalog is damaged after it was published.
		f := filepath.Join(root, "s0002", "catalog.bolt")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := snapshots.Publish(root, "s0002"); err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); !errors.Is(err, snapshots.ErrVerify) {
			t.Fatalf("Check of a damaged snapshot: %v, want ErrVerify", err)
		}
		v := l.Acquire()
		defer v.Release()
		if got, want := v.ID(), "s0001"; got != want {
			t.Errorf("serving %s after a refusal, want %s", got, want)
		}
		if got, want := l.RejectedID(), "s0002"; got != want {
			t.Errorf("RejectedID %q, want %q", got, want)
		}
		if got := l.Rejections()["verify"]; got != 1 {
			t.Errorf("rejections %v, want verify 1", l.Rejections())
		}
		// Refused once, not on every poll.
		if err := l.Check(); err != nil || l.Rejections()["verify"] != 1 {
			t.Errorf("second Check: %v, rejections %v", err, l.Rejections())
		}
	})
	t.Run("ErrDerivation", func(t *testing.T) {
		root := mustRoot(t, "s0001")
		fail := false
		l := mustOpen(t, root, live.Options{Derive: []live.Derivation{{Name: "flaky", Build: func(*live.View, *snapshots.Meter) (any, error) {
			if fail {
				return nil, errors.New("injected")
			}
			return 1, nil
		}}}})
		fail = true
		if err := snapshots.Publish(root, "s0002"); err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); !errors.Is(err, snapshots.ErrVerify) {
			t.Fatalf("Check with a failing derivation: %v, want ErrVerify", err)
		}
		if got := l.Rejections()["verify"]; got != 1 {
			t.Errorf("rejections %v", l.Rejections())
		}
	})
}

// TestView_Release: a retired snapshot is closed by its last reader, not
// before (its reader answers until then).
func TestView_Release(t *testing.T) {
	root := mustRoot(t, "s0001")
	l := mustOpen(t, root, live.Options{})
	a, b := l.Acquire(), l.Acquire()
	b.Retain()
	if err := snapshots.Publish(root, "s0002"); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	for i, release := range []func(){a.Release, b.Release} {
		release()
		if _, err := b.Reader.Sales("pokemon", "en:base1-4"); err != nil {
			t.Fatalf("after %d releases of 3, the old snapshot does not answer: %v", i+1, err)
		}
	}
	b.Release()
	if _, err := b.Reader.Sales("pokemon", "en:base1-4"); err == nil {
		t.Errorf("the old snapshot answers after its last release: not closed")
	}
}

// TestLive_BeforeSwap: a paced swap runs the BeforeSwap functions with the
// live and the new snapshot before the new one serves, under
// SwapGCPercent (restored after), and reports its phases; the opening at
// the start runs none of them.
func TestLive_BeforeSwap(t *testing.T) {
	root := mustRoot(t, "s0001")
	var builds int
	l := mustOpen(t, root, live.Options{Pacer: snapshots.NewPacer(0.5), SwapGCPercent: 777, Derive: []live.Derivation{counted(&builds)}})
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	before := gogc()
	var calls []string
	l.BeforeSwap("probe", func(prev, next *live.View, meter *snapshots.Meter) {
		meter.Yield()
		serving := l.Acquire()
		defer serving.Release()
		calls = append(calls, fmt.Sprintf("%s->%s serving %s, derived %v, GOGC %d", prev.ID(), next.ID(), serving.ID(), next.Derived("test"), gogc()))
	})
	if len(calls) != 0 {
		t.Fatalf("BeforeSwap ran at the start: %v", calls)
	}
	if err := snapshots.Publish(root, "s0002"); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	want := []string{"s0001->s0002 serving s0001, derived derived from s0002, GOGC 777"}
	if !slices.Equal(calls, want) {
		t.Errorf("BeforeSwap calls %q, want %q", calls, want)
	}
	if got := gogc(); got != before {
		t.Errorf("GOGC %d after the swap, want %d again", got, before)
	}
	rep := l.LastOpen()
	var names []string
	for _, p := range rep.Phases {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, ","), "verify,reader,index,gold,derive test,before probe"; got != want || rep.ID != "s0002" || !rep.Paced {
		t.Errorf("LastOpen: %s paced %v phases %s, want s0002 paced, %s", rep.ID, rep.Paced, got, want)
	}
}
