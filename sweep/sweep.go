package sweep

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// Errors of a run.
var (
	// ErrLeaseLost means another runner holds the job's lease, or recorded
	// progress past this runner's chunk, when it came to commit: the chunk
	// was not written and the runner stopped.
	ErrLeaseLost = errors.New("sweep: lease lost")
)

// Defaults of Options.
const (
	DefaultChunk    = 256
	DefaultLeaseTTL = time.Minute
	// ProgressTTL is how long a job's progress is kept after its last
	// chunk: a job run again within it does nothing.
	ProgressTTL = 30 * 24 * time.Hour
)

// Options configure a Runner. Every zero value has a documented default.
type Options struct {
	// State holds the leases and the progress (required).
	State state.Store
	// Holder names this runner in its leases; "" draws a random one. Two
	// runners must not share a holder.
	Holder string
	// LeaseTTL is the lease's term, renewed at each chunk's commit; zero
	// means DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Poll is how often a runner that finds the lease held looks again;
	// zero means LeaseTTL / 4.
	Poll time.Duration
	// Chunk is the number of records per transaction; zero means
	// DefaultChunk.
	Chunk int
	// Pacer keeps Visit to a share of one CPU (nil: full speed).
	Pacer *snapshots.Pacer
	// Now is the clock of the progress record's times; nil means time.Now.
	Now func() time.Time
}

// Runner runs jobs. It is safe for concurrent use by jobs with different
// ids.
type Runner struct {
	o Options
}

// New returns a Runner.
func New(o Options) (*Runner, error) {
	if o.State == nil {
		return nil, errors.New("sweep: no state store")
	}
	if o.Holder == "" {
		b := make([]byte, 10)
		rand.Read(b)
		o.Holder = "h_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Poll <= 0 {
		o.Poll = o.LeaseTTL / 4
	}
	if o.Chunk <= 0 {
		o.Chunk = DefaultChunk
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Runner{o: o}, nil
}

// Holder returns the name of the runner in its leases.
func (r *Runner) Holder() string { return r.o.Holder }

// Record is one record of a chunk: its key and value (copied: valid after
// the transaction).
type Record struct {
	Key   string
	Value []byte
}

// Chunk is the records of one transaction, in key order. After is the key
// the chunk starts after ("" for the first): the records of other buckets
// keyed alike in (After, last record's key] belong to the chunk.
type Chunk struct {
	After   string
	Records []Record
}

// Job is one pass over a bucket.
type Job struct {
	// ID names the job: one pass per id, across the fleet ("alerts/<snapshot
	// id>"). 1 to 200 bytes.
	ID string
	// Bucket is the bucket of records visited, in key order.
	Bucket state.Bucket
	// Visit computes the results of a chunk of records and returns the
	// function that writes them (nil: nothing to write). It runs outside
	// any transaction, paced; the function it returns runs inside the
	// chunk's commit transaction and may run more than once (see
	// state.Store.Update). An error stops the run (nothing of the chunk is
	// written).
	Visit func(ctx context.Context, chunk Chunk) (commit func(tx state.Tx) error, err error)
}

// Progress is a job's recorded progress.
type Progress struct {
	After    string    `json:"after,omitempty"` // the last key done
	Records  int       `json:"records"`         // records visited
	Chunks   int       `json:"chunks"`          // chunks committed
	Done     bool      `json:"done"`
	Holders  []string  `json:"holders"` // runners that committed chunks, in order
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
}

type lease struct {
	Holder string `json:"holder"`
}

var (
	leases   = state.NewTable[lease](state.Leases)
	progress = state.NewTable[Progress](state.Sweeps)
)

func leaseKey(jobID string) string { return "sweep/" + jobID }

// Run runs job to its end, or until ctx ends: it takes the job's lease
// (waiting while another runner holds it), resumes from the recorded
// progress and commits chunk after chunk. It returns the final progress; a
// job already done returns at once. ErrLeaseLost when another runner took
// over meanwhile (this one stalled past its lease); ctx's error when ctx
// ended; store errors wrapped.
func (r *Runner) Run(ctx context.Context, job Job) (Progress, error) {
	if job.ID == "" || len(job.ID) > 200 || job.Visit == nil || job.Bucket.Kind() != state.KindRecords {
		return Progress{}, fmt.Errorf("sweep: bad job %q", job.ID)
	}
	for {
		p, got, err := r.acquire(ctx, job.ID)
		if err != nil {
			return p, err
		}
		if p.Done {
			if got {
				r.release(job.ID)
			}
			return p, nil
		}
		if got {
			p, err = r.work(ctx, job, p)
			if err == nil || errors.Is(err, ErrLeaseLost) {
				return p, err
			}
			if ctx.Err() != nil {
				r.release(job.ID)
				return p, ctx.Err()
			}
			return p, err
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(r.o.Poll):
		}
	}
}

// acquire tries to take the lease of job id and reads its progress; got
// reports whether this runner holds the lease now.
func (r *Runner) acquire(ctx context.Context, id string) (p Progress, got bool, err error) {
	err = r.o.State.Update(ctx, func(tx state.Tx) error {
		got = false
		var err error
		p, err = progress.Get(tx, id)
		if errors.Is(err, state.ErrNotFound) {
			p, err = Progress{Started: r.o.Now().UTC()}, nil
		}
		if err != nil || p.Done {
			return err
		}
		l, err := leases.Get(tx, leaseKey(id))
		switch {
		case errors.Is(err, state.ErrNotFound):
		case err != nil:
			return err
		case l.Holder != r.o.Holder:
			return nil
		}
		got = true
		return leases.Put(tx, leaseKey(id), lease{Holder: r.o.Holder}, r.o.LeaseTTL)
	})
	if err != nil {
		return p, false, fmt.Errorf("sweep: lease of %s: %w", id, err)
	}
	return p, got, nil
}

// release gives up the lease of job id when this runner holds it.
func (r *Runner) release(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.o.State.Update(ctx, func(tx state.Tx) error {
		l, err := leases.Get(tx, leaseKey(id))
		if err != nil || l.Holder != r.o.Holder {
			return nil
		}
		return leases.Delete(tx, leaseKey(id))
	})
}

// work commits the chunks of job from p on, holding the lease.
func (r *Runner) work(ctx context.Context, job Job, p Progress) (Progress, error) {
	for {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		var chunk []Record
		err := r.o.State.View(ctx, func(tx state.Tx) error {
			chunk = chunk[:0]
			return tx.Scan(job.Bucket, state.ScanOptions{After: p.After, Limit: r.o.Chunk}, func(k string, v []byte) error {
				chunk = append(chunk, Record{Key: k, Value: append([]byte(nil), v...)})
				return nil
			})
		})
		if err != nil {
			return p, fmt.Errorf("sweep %s: read %s: %w", job.ID, job.Bucket, err)
		}
		var commit func(state.Tx) error
		if len(chunk) > 0 {
			err = r.o.Pacer.Step(func() error {
				var err error
				commit, err = job.Visit(ctx, Chunk{After: p.After, Records: chunk})
				return err
			})
			if err != nil {
				return p, fmt.Errorf("sweep %s: %w", job.ID, err)
			}
		}
		if err := ctx.Err(); err != nil {
			return p, err
		}
		next := p
		next.Records += len(chunk)
		if len(chunk) > 0 {
			next.After = chunk[len(chunk)-1].Key
			next.Chunks++
			if n := len(next.Holders); n == 0 || next.Holders[n-1] != r.o.Holder {
				next.Holders = append(append([]string(nil), next.Holders...), r.o.Holder)
			}
		}
		if len(chunk) < r.o.Chunk {
			next.Done, next.Finished = true, r.o.Now().UTC()
		}
		err = r.o.State.Update(ctx, func(tx state.Tx) error {
			l, err := leases.Get(tx, leaseKey(job.ID))
			if err != nil && !errors.Is(err, state.ErrNotFound) {
				return err
			}
			if err != nil || l.Holder != r.o.Holder {
				return fmt.Errorf("%w: %s is held by another runner", ErrLeaseLost, job.ID)
			}
			cur, err := progress.Get(tx, job.ID)
			switch {
			case errors.Is(err, state.ErrNotFound):
				if p.After != "" {
					return fmt.Errorf("%w: %s: the progress is gone", ErrLeaseLost, job.ID)
				}
			case err != nil:
				return err
			case cur.After != p.After || cur.Done:
				return fmt.Errorf("%w: %s progressed past %q", ErrLeaseLost, job.ID, p.After)
			}
			if commit != nil {
				if err := commit(tx); err != nil {
					return err
				}
			}
			if err := progress.Put(tx, job.ID, next, ProgressTTL); err != nil {
				return err
			}
			if next.Done {
				return leases.Delete(tx, leaseKey(job.ID))
			}
			return leases.Put(tx, leaseKey(job.ID), lease{Holder: r.o.Holder}, r.o.LeaseTTL)
		})
		if err != nil {
			if errors.Is(err, ErrLeaseLost) {
				return p, err
			}
			return p, fmt.Errorf("sweep %s: commit: %w", job.ID, err)
		}
		p = next
		if p.Done {
			return p, nil
		}
	}
}

// Status returns the recorded progress of job id; ErrNotFound (wrapped)
// when it never started or was forgotten.
func Status(ctx context.Context, st state.Store, id string) (Progress, error) {
	var p Progress
	err := st.View(ctx, func(tx state.Tx) error {
		var err error
		p, err = progress.Get(tx, id)
		return err
	})
	return p, err
}
