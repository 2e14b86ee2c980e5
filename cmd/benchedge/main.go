package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Main(ctx, os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "benchedge:", err)
		}
		os.Exit(1)
	}
}

// Main serves until ctx ends.
func Main(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchedge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	snaps := fs.String("snapshots", "", "snapshots root with CURRENT (required)")
	statePath := fs.String("state", "", "state file (required)")
	addr := fs.String("addr", "127.0.0.1:8081", "listen address (loopback)")
	redisURL := fs.String("redis", "", "redis://host:port/db: the state store and the quota counters in Redis, as cardedge serve --redis (in place of --state)")
	cacheMB := fs.Int("cache-mb", 256, "response cache in MiB")
	step := fs.Duration("clock-step", time.Second, "how far the access clock moves on each reading (0: the wall clock)")
	makeKeys := fs.Int("make-keys", 0, "create this many metered Elite keys in the store, write their secrets to --keys-out (one a line) and exit")
	keysOut := fs.String("keys-out", "", "where --make-keys writes the secrets")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *snaps == "" || (*statePath == "") == (*redisURL == "") {
		return errors.New("--snapshots and one of --state and --redis are required")
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	base := time.Now()
	var ticks atomic.Int64
	var st state.Store
	var counter access.Counter
	var err error
	if *redisURL != "" {
		var rs *stateredis.Store
		if rs, err = stateredis.Open(*redisURL, stateredis.Options{}); err == nil {
			st, counter = rs, rs.Counter(stateredis.CounterOptions{})
		}
	} else {
		st, err = statebolt.Open(*statePath, statebolt.Options{})
	}
	if err != nil {
		return err
	}
	defer st.Close()
	if *makeKeys > 0 {
		return createKeys(ctx, st, *makeKeys, *keysOut)
	}
	now := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * *step) }
	if *step == 0 {
		now = time.Now
	}
	acc, err := access.Open(access.Options{State: st, Counter: counter, Logger: log, Now: now})
	if err != nil {
		return err
	}
	defer acc.Close()
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	l, err := live.Open(*snaps, live.Options{Logger: log, Derive: []live.Derivation{edge.Derivation(), pokemontcg.Derivation(pokemontcg.Options{})}})
	if err != nil {
		return err
	}
	defer l.Close()
	srv, err := edge.New(edge.Options{Snapshots: l, Access: acc, Collections: collection.New(collection.Options{State: st}),
		CacheBytes: int64(*cacheMB) << 20, CursorSecret: secret, Logger: log, Version: "benchedge"})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Shutdown(context.Background())
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// createKeys stores n metered Elite keys in st, 256 a transaction, and
// writes their secrets to path, one a line.
func createKeys(ctx context.Context, st state.Store, n int, path string) error {
	if path == "" {
		return errors.New("--make-keys needs --keys-out")
	}
	var out strings.Builder
	for done := 0; done < n; {
		secs := make([]access.Secret, min(256, n-done))
		for i := range secs {
			var err error
			if secs[i], err = access.NewSecret(access.Elite); err != nil {
				return err
			}
		}
		err := st.Update(ctx, func(tx state.Tx) error {
			for _, sec := range secs {
				if _, err := access.InsertKey(tx, sec, access.Key{Tier: access.Elite, Name: "benchedge", Created: time.Now().UTC()}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("creating keys: %w", err)
		}
		for _, sec := range secs {
			out.WriteString(sec.Text + "\n")
		}
		done += len(secs)
	}
	return os.WriteFile(path, []byte(out.String()), 0o600)
}
