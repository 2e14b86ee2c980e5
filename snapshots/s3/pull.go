package s3

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// PullOptions configure a Puller. Every zero value has a documented default.
type PullOptions struct {
	// Poll is how often CURRENT is polled (a conditional GET); 0 means
	// 10 s. Polls are spread by ±10 % so that replicas do not poll in step.
	Poll time.Duration
	// MaxBackoff bounds the wait after failed polls (it doubles from Poll
	// with each failure in a row); 0 means 4 x Poll.
	MaxBackoff time.Duration
	// Keep is how many snapshots the cache directory keeps (the live one
	// always); 0 means 3.
	Keep int
	// Pin holds the cache on one snapshot id (a rollback): it is fetched
	// when missing and made the local CURRENT; what the bucket publishes is
	// still polled (for status) but not fetched.
	Pin string
	// OnChange is called after the local CURRENT changed (the server then
	// swaps at once instead of at its next poll of the directory).
	OnChange func(id string)
	// Logger; nil means discard.
	Logger *slog.Logger
}

// Puller mirrors a bucket into a local snapshots root (the cache directory)
// exactly as a local build publishes into it, so that the edge's watcher of
// the root swaps snapshots as it does for a local build: it polls CURRENT,
// fetches a new snapshot (Fetch: parallel, resumable, every SHA-256
// checked), replaces the local CURRENT atomically and prunes. The store
// unreachable, or a snapshot that does not verify, leaves the root as it
// was; it backs off and tries again. It implements snapshots.Source.
type Puller struct {
	b    *Bucket
	root string
	opts PullOptions
	log  *slog.Logger

	mu       sync.Mutex
	st       snapshots.SourceStatus
	etag     string // of CURRENT at the last poll that read it
	verified map[string]*snapshots.Manifest
}

var _ snapshots.Source = (*Puller)(nil)

// NewPuller returns a Puller of b into root (created when missing).
func NewPuller(b *Bucket, root string, o PullOptions) (*Puller, error) {
	if o.Poll <= 0 {
		o.Poll = 10 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 4 * o.Poll
	}
	if o.Keep <= 0 {
		o.Keep = 3
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Pin != "" && !snapshots.ValidID(o.Pin) {
		return nil, fmt.Errorf("snapshots/s3: --pin %q is not a snapshot id", o.Pin)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("snapshots/s3: cache directory: %w", err)
	}
	p := &Puller{b: b, root: root, opts: o, log: o.Logger, verified: map[string]*snapshots.Manifest{}}
	p.st = snapshots.SourceStatus{Location: b.loc.String(), Poll: o.Poll, Pinned: o.Pin, Polls: map[string]int64{}}
	if id, err := snapshots.ReadCurrent(root); err == nil {
		p.st.Local = id
	}
	return p, nil
}

// Status implements snapshots.Source.
func (p *Puller) Status() snapshots.SourceStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.st
	s.Polls = maps.Clone(p.st.Polls)
	return s
}

// Verified implements snapshots.Source: the snapshots this Puller fetched
// and verified since it started.
func (p *Puller) Verified(id string) (*snapshots.Manifest, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.verified[id]
	return m, ok
}

// Sync runs one poll: it reads CURRENT (conditionally), fetches the
// snapshot it names (or the pinned one) when the root lacks it, replaces
// the local CURRENT and prunes. It returns the error of the poll, with its
// kind recorded in Status.
func (p *Puller) Sync(ctx context.Context) error { return p.sync(ctx, p.b.opts.Pacer) }

// sync is Sync with fetches paced by pacer.
func (p *Puller) sync(ctx context.Context, pacer *snapshots.Pacer) error {
	now := time.Now()
	p.mu.Lock()
	p.st.LastPoll = now
	etag := p.etag
	p.mu.Unlock()

	id, newETag, changed, err := p.b.current(ctx, etag)
	if err != nil && !(p.opts.Pin != "" && errorKind(err) == "unreachable") {
		return p.fail(err)
	}
	p.mu.Lock()
	if err == nil {
		p.st.LastOK = now
		if changed {
			p.etag = newETag
			if id != p.st.Published {
				p.st.Published, p.st.PublishedSeen = id, now
			}
		}
	}
	target := p.st.Published
	if p.opts.Pin != "" {
		target = p.opts.Pin
	}
	local := p.st.Local
	p.mu.Unlock()

	if target == "" || target == local {
		p.succeed("unchanged")
		return nil
	}
	p.mu.Lock()
	p.st.Pulling = target
	p.mu.Unlock()
	res, err := p.b.fetch(ctx, p.root, target, pacer)
	p.mu.Lock()
	p.st.Pulling = ""
	p.st.FetchedBytes += res.Bytes
	p.st.FetchSeconds += res.Elapsed.Seconds()
	p.mu.Unlock()
	if err != nil {
		if errorKind(err) == "refused" {
			p.mu.Lock()
			p.st.Refused = target
			p.mu.Unlock()
		}
		return p.fail(err)
	}
	if res.Bytes > 0 || res.Reused > 0 {
		p.mu.Lock()
		p.verified[target] = res.Manifest
		p.st.Fetched++
		p.mu.Unlock()
		p.log.Info("fetched snapshot", "id", target, "from", p.b.loc.String(), "bytes", res.Bytes, "reused_files", res.Reused, "seconds", res.Elapsed.Seconds())
	}
	if err := snapshots.Publish(p.root, target); err != nil {
		return p.fail(err)
	}
	p.mu.Lock()
	p.st.Local = target
	p.mu.Unlock()
	if removed, err := snapshots.Prune(p.root, p.opts.Keep); err != nil {
		p.log.Warn("pruning the cache directory failed", "dir", p.root, "err", err)
	} else if len(removed) > 0 {
		p.forget(removed)
		p.log.Info("pruned snapshots", "dir", p.root, "removed", removed)
	}
	p.succeed("changed")
	if p.opts.OnChange != nil {
		p.opts.OnChange(target)
	}
	return nil
}

// forget drops pruned snapshots from the verified set.
func (p *Puller) forget(ids []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		delete(p.verified, id)
	}
}

func (p *Puller) succeed(result string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.Polls[result]++
	p.st.Failures, p.st.LastError, p.st.LastErrorKind = 0, "", ""
	if result == "changed" {
		p.st.Refused = ""
	}
}

func (p *Puller) fail(err error) error {
	kind := errorKind(err)
	p.mu.Lock()
	p.st.Polls[kind]++
	p.st.Failures++
	p.st.LastError, p.st.LastErrorKind = err.Error(), kind
	n := p.st.Failures
	p.mu.Unlock()
	if n == 1 || n%10 == 0 { // log the first failure of a run, then every tenth
		p.log.Warn("snapshot source: poll failed; still serving the local snapshot", "source", p.b.loc.String(), "kind", kind, "failures", n, "err", err)
	}
	return err
}

// Run polls until ctx ends: every Poll (±10 %), and after a failed poll
// after a wait that doubles with each failure in a row, up to MaxBackoff.
func (p *Puller) Run(ctx context.Context) {
	for {
		wait := p.opts.Poll
		if err := p.Sync(ctx); err != nil && ctx.Err() == nil {
			p.mu.Lock()
			n := p.st.Failures
			p.mu.Unlock()
			for i := 1; i < n && wait < p.opts.MaxBackoff; i++ {
				wait *= 2
			}
			wait = min(wait, p.opts.MaxBackoff)
		}
		wait = time.Duration(float64(wait) * (0.9 + 0.2*rand.Float64()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// First makes the root hold a snapshot before a server starts on it: when
// its CURRENT names a snapshot, nothing (the server verifies it, and Run
// catches up); otherwise it polls until one is fetched, at full speed
// (nothing is served yet), waiting as Run does between failures, until ctx
// ends.
func (p *Puller) First(ctx context.Context) error {
	if _, err := snapshots.ReadCurrent(p.root); err == nil {
		return nil
	}
	for {
		err := p.sync(ctx, nil)
		if err == nil {
			if _, cerr := snapshots.ReadCurrent(p.root); cerr == nil {
				return nil
			}
			err = fmt.Errorf("%w: %s", ErrNotPublished, p.b.loc)
		}
		p.log.Info("waiting for a first snapshot", "source", p.b.loc.String(), "err", err)
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(min(p.opts.MaxBackoff, p.opts.Poll)):
		}
	}
}

// Root returns the cache directory.
func (p *Puller) Root() string { return p.root }

// Dir returns the directory of snapshot id in the cache.
func (p *Puller) Dir(id string) string { return filepath.Join(p.root, id) }
