package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/sweep"
	"github.com/cardedge/cardedge/webhook"
)

// AlertsConfig is how serve runs the work a new snapshot starts (issue
// #33): every alert rule evaluated and every collection's value recorded,
// in the background, and the webhooks delivered.
type AlertsConfig struct {
	// Share is the share of one CPU the background work on a new snapshot
	// may take (0.1 by default; 1: full speed).
	Share float64
	// Lease is the term of a background job's lease: a replica that dies
	// mid-way leaves the rest to another after this long (1 minute by
	// default).
	Lease time.Duration
	// DeliverEvery is how often the webhook queues are looked at (1 s by
	// default).
	DeliverEvery time.Duration
	// AllowPrivate lets webhooks reach private, loopback and link-local
	// addresses (not the cloud metadata services): for tests and closed
	// networks only.
	AllowPrivate bool
}

func (c *AlertsConfig) register(fs *flag.FlagSet) {
	fs.Float64Var(&c.Share, "alerts-share", 0.1, "share of one CPU that evaluating alerts and recording collection values at a new snapshot may take (1: full speed)")
	fs.DurationVar(&c.Lease, "alerts-lease", sweep.DefaultLeaseTTL, "the lease of that background work: a replica that dies mid-way leaves the rest to another after this long")
	fs.DurationVar(&c.DeliverEvery, "webhooks-poll", time.Second, "how often the webhook queues are looked at")
	fs.BoolVar(&c.AllowPrivate, "webhooks-allow-private", false, "let webhooks reach loopback, private and link-local addresses (not cloud metadata services): for tests and closed networks only")
}

// openAlerts builds the services of alerts and webhooks over the state
// store, and starts the background work: webhooks.Run, and at start-up and
// after every swap the evaluation of every rule and the recording of every
// collection's value against the live snapshot. The returned closer stops
// it and waits.
func (s *server) openAlerts(cfg AlertsConfig, log *slog.Logger) error {
	var err error
	holder := leaseHolder()
	if s.webhooks, err = webhook.New(webhook.Options{State: s.store, Holder: holder, Guard: webhook.Guard{AllowPrivate: cfg.AllowPrivate}}); err != nil {
		return err
	}
	if cfg.AllowPrivate {
		log.Warn("webhooks may reach loopback, private and link-local addresses (--webhooks-allow-private): for tests and closed networks only")
	}
	wh := s.webhooks
	if s.alerts, err = alert.New(alert.Options{State: s.store, Sources: pricing.PriceSources,
		OnEvent: func(tx state.Tx, e alert.Event) error { return wh.Enqueue(tx, e.Account, eventMessage(e)) }}); err != nil {
		return err
	}
	run, err := sweep.New(sweep.Options{State: s.store, Holder: holder, LeaseTTL: cfg.Lease, Pacer: snapshots.NewPacer(cfg.Share)})
	if err != nil {
		return err
	}
	b := &background{alerts: s.alerts, collections: s.collections, run: run, log: log, kick: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	b.offer(s.live.Acquire())
	s.live.OnSwap(func(_, next *live.View) {
		next.Retain() // OnSwap runs under the swap lock: the work runs after it, on its own pin
		b.offer(next)
	})
	interval := cfg.DeliverEvery
	if interval <= 0 {
		interval = time.Second
	}
	b.wg.Add(2)
	go func() { defer b.wg.Done(); wh.Run(ctx, interval) }()
	go func() { defer b.wg.Done(); b.loop(ctx) }()
	s.closers = append(s.closers, func() {
		cancel()
		b.wg.Wait()
		b.mu.Lock()
		if b.pending != nil {
			b.pending.Release()
			b.pending = nil
		}
		b.mu.Unlock()
	})
	return nil
}

// leaseHolder names this process in the leases of its background work
// (state.Leases): "<host>:<pid>:<random>", so that an operator (and the
// fleet test) can tell which replica holds one.
func leaseHolder() string {
	host, _ := os.Hostname()
	var b [5]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%x", host, os.Getpid(), b)
}

// eventMessage is the webhook message of an alert's event: its id is the
// event's (the webhook-id, the same at every attempt).
func eventMessage(e alert.Event) webhook.Message {
	return webhook.Message{ID: e.ID, Type: e.Type, Time: e.Time, Data: e.Payload()}
}

// background runs the work of each new snapshot, one snapshot at a time:
// a snapshot swapped in while the previous one is worked on waits, and
// only the newest waiting one is worked on (each job is idempotent per
// snapshot, and a fleet's other replicas may do it anyway).
type background struct {
	alerts      *alert.Service
	collections *collection.Service
	run         *sweep.Runner
	log         *slog.Logger
	kick        chan struct{}
	wg          sync.WaitGroup

	mu      sync.Mutex
	pending *live.View // pinned; nil when none waits
}

// offer hands v (pinned: offer takes the caller's reference) to the loop.
func (b *background) offer(v *live.View) {
	b.mu.Lock()
	if b.pending != nil {
		b.pending.Release()
	}
	b.pending = v
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

func (b *background) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		}
		b.mu.Lock()
		v := b.pending
		b.pending = nil
		b.mu.Unlock()
		if v != nil {
			b.work(ctx, v)
			v.Release()
		}
	}
}

// work evaluates every alert rule and records every collection's value
// against v, the two jobs side by side (one pacer keeps them together to
// their share).
func (b *background) work(ctx context.Context, v *live.View) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		rep, err := b.alerts.Evaluate(ctx, alert.NewReaderMarket(v.Reader, v.AsOf), b.run)
		b.logDone("alerts evaluated", v, rep.Progress, err, "rules", rep.Rules, "fired", rep.Fired, "unknown", rep.Unknown, "took_ms", rep.Duration.Milliseconds())
	}()
	go func() {
		defer wg.Done()
		start := time.Now()
		p, err := b.collections.Record(ctx, v, b.run, collection.RecordOptions{})
		b.logDone("collection values recorded", v, p, err, "took_ms", time.Since(start).Milliseconds())
	}()
	wg.Wait()
}

func (b *background) logDone(what string, v *live.View, p sweep.Progress, err error, args ...any) {
	args = append([]any{"snapshot", v.ID(), "records", p.Records, "done", p.Done, "holders", len(p.Holders)}, args...)
	switch {
	case err == nil:
		b.log.Info(what, args...)
	case errors.Is(err, context.Canceled), errors.Is(err, sweep.ErrLeaseLost):
		b.log.Info(what+": stopped; another replica or the next start carries on", append(args, "why", err.Error())...)
	default:
		b.log.Error(what+": failed", append(args, "err", err.Error())...)
	}
}
