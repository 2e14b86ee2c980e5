package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
)

// FleetConfig is how serve runs as one replica of a fleet: its snapshots
// pulled from a bucket (--snapshots s3://BUCKET/PREFIX) into a cache
// directory, and drained before it stops.
type FleetConfig struct {
	// CacheDir is the local snapshots root the bucket is mirrored into
	// (required with an s3:// --snapshots).
	CacheDir string
	// Poll is how often the bucket's CURRENT is polled; Keep how many
	// snapshots the cache keeps; Pin holds the replica on one snapshot.
	Poll time.Duration
	Keep int
	Pin  string
	// Drain is how long /ready answers 503 before the listener closes on
	// SIGTERM, so that the load balancer's health checks take the replica
	// out first (0: close at once).
	Drain time.Duration
	// SwapShare is the share of one CPU fetching and verifying a new
	// snapshot may take (0.25 by default; 1: full speed).
	SwapShare float64
	// SwapGOGC is GOGC while a new snapshot opens beside the live one
	// (live.Options.SwapGCPercent: 0 leaves GOGC alone).
	SwapGOGC int
}

func (c *FleetConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.CacheDir, "cache-dir", "", "with --snapshots s3://BUCKET/PREFIX: the local directory the bucket's snapshots are mirrored into")
	fs.DurationVar(&c.Poll, "poll", 10*time.Second, "with an s3:// --snapshots: how often the bucket's CURRENT is polled")
	fs.IntVar(&c.Keep, "keep", 3, "with an s3:// --snapshots: snapshots the cache directory keeps")
	fs.StringVar(&c.Pin, "pin", "", "with an s3:// --snapshots: serve this snapshot id and not what the bucket publishes (rollback)")
	fs.DurationVar(&c.Drain, "drain", 0, "on SIGTERM, answer /ready with 503 this long before closing the listener (a load balancer's health-check window)")
	fs.Float64Var(&c.SwapShare, "swap-share", 0.25, "share of one CPU that fetching and verifying a new snapshot beside the live one may take (1: full speed)")
	fs.IntVar(&c.SwapGOGC, "swap-gogc", 0, "GOGC while a new snapshot opens beside the live one, restored after the swap, when above --gc-percent (0: GOGC left alone; high enough, the opening collects nothing and the first collection, after the swap, marks the new snapshot alone)")
}

// snapshotSource is where serve's snapshots come from.
type snapshotSource struct {
	root   string           // the local snapshots root the edge serves
	source snapshots.Source // nil for a local root
	// run starts the puller once the live snapshot is open: it swaps as
	// soon as the puller replaced CURRENT, until ctx ends.
	run func(ctx context.Context, l *live.Live)
}

// openSnapshotSource returns the local root of cfg.Snapshots: the directory
// itself, or, for s3://BUCKET/PREFIX, the cache directory, filled with a
// first snapshot before it returns (it waits for one to be published).
func openSnapshotSource(ctx context.Context, cfg ServeConfig, log *slog.Logger) (snapshotSource, error) {
	if !snaps3.IsURL(cfg.Snapshots) {
		if cfg.Fleet.CacheDir != "" || cfg.Fleet.Pin != "" {
			return snapshotSource{}, errors.New("--cache-dir and --pin go with --snapshots s3://BUCKET/PREFIX")
		}
		return snapshotSource{root: cfg.Snapshots, run: func(context.Context, *live.Live) {}}, nil
	}
	loc, err := snaps3.ParseURL(cfg.Snapshots)
	if err != nil {
		return snapshotSource{}, err
	}
	if cfg.Fleet.CacheDir == "" {
		return snapshotSource{}, errors.New("--snapshots s3://... needs --cache-dir DIR")
	}
	c, err := snaps3.NewClient(ctx, snaps3.ClientOptions{})
	if err != nil {
		return snapshotSource{}, err
	}
	changed := make(chan struct{}, 1)
	b := snaps3.New(c, loc, snaps3.Options{Pacer: snapshots.NewPacer(cfg.Fleet.SwapShare), Logger: log})
	p, err := snaps3.NewPuller(b, cfg.Fleet.CacheDir, snaps3.PullOptions{
		Poll: cfg.Fleet.Poll, Keep: cfg.Fleet.Keep, Pin: cfg.Fleet.Pin, Logger: log,
		OnChange: func(string) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		return snapshotSource{}, err
	}
	log.Info("snapshot source", "location", loc.String(), "cache_dir", cfg.Fleet.CacheDir, "poll", cfg.Fleet.Poll.String(), "pin", cfg.Fleet.Pin)
	if err := p.First(ctx); err != nil {
		return snapshotSource{}, fmt.Errorf("no snapshot to serve from %s: %w", loc, err)
	}
	return snapshotSource{root: cfg.Fleet.CacheDir, source: p, run: func(ctx context.Context, l *live.Live) {
		go p.Run(ctx)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-changed:
					l.Check()
				}
			}
		}()
	}}, nil
}
