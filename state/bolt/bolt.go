package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/state"
	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout is how long an operation waits for the state file's
// lock when Options.LockTimeout is zero.
const DefaultLockTimeout = 5 * time.Second

// Options configure a Store. Every zero value has a documented default.
type Options struct {
	// LockTimeout is how long an operation waits for the file's lock
	// (another process writing it); zero means DefaultLockTimeout. A
	// context deadline that comes sooner wins. Waiting longer is ErrLocked.
	LockTimeout time.Duration
	// Now is the clock of record expiry; nil means time.Now.
	Now func() time.Time
}

// Store is the state file: a state.Store in one bbolt file, shared by the
// edge server, its replicas on the same node and the CLI (cardedge keys ...),
// which run as separate processes. bbolt locks a file exclusively while it is
// open for writing, so nobody keeps it open: every View, Update and Check
// opens the file, runs one transaction and closes it, waiting up to the lock
// timeout for the lock. Operations of one Store are also serialized in
// process (writers only), so that they queue instead of polling the lock.
type Store struct {
	path    string
	timeout time.Duration
	now     func() time.Time
	writer  chan struct{} // holds a token while this Store writes
}

var _ state.Store = (*Store)(nil)

// Open returns the store of the state file at path, creating the file when
// it does not exist. An existing file is only read (its format marker): a
// file of an older format is upgraded in place by the first transaction, or
// by Check, which verifies all of the file first. Open fails with ErrLocked,
// ErrCorrupt or ErrFormat (wrapped with the path) rather than touch a file it
// cannot read. Open does not keep the file open.
func Open(path string, o Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("state/bolt: the state file path is empty")
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Store{path: path, timeout: o.LockTimeout, now: o.Now, writer: make(chan struct{}, 1)}
	ctx := context.Background()
	var err error
	if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
		err = s.update(ctx, true, nil)
	} else if err = s.view(ctx, func(*tx) error { return nil }); errors.Is(err, errUpgrade) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the state file's path.
func (s *Store) Path() string { return s.path }

// Close does nothing: the file is open only during each operation.
func (s *Store) Close() error { return nil }

// View runs fn in a read-only transaction (a shared lock on the file).
func (s *Store) View(ctx context.Context, fn func(state.Tx) error) error {
	err := s.view(ctx, func(t *tx) error { return t.run(fn) })
	if errors.Is(err, errUpgrade) { // written by an older version: upgrade, then read
		if err = s.Update(ctx, func(state.Tx) error { return nil }); err == nil {
			err = s.view(ctx, func(t *tx) error { return t.run(fn) })
		}
	}
	return err
}

func (s *Store) view(ctx context.Context, fn func(*tx) error) error {
	return s.read(ctx, func(btx *bbolt.Tx) error {
		switch f := formatOf(btx); f {
		case formatCurrent, "":
		case "1":
			return errUpgrade
		default:
			return fmt.Errorf("%s: %w: format %q, want %q", s.path, ErrFormat, f, formatCurrent)
		}
		return fn(newTx(btx, s.now()))
	})
}

// read runs fn in a read-only transaction on the file, whatever its format.
func (s *Store) read(ctx context.Context, fn func(*bbolt.Tx) error) error {
	db, err := s.open(ctx, true, false)
	if err != nil {
		return err
	}
	defer db.Close()
	return s.guard(func() error { return db.View(fn) })
}

// errUpgrade: the file must be upgraded before it is read.
var errUpgrade = errors.New("state/bolt: the file needs an upgrade")

// Update runs fn in a read-write transaction (the file's exclusive lock),
// then sweeps expired records, and commits. fn runs once.
func (s *Store) Update(ctx context.Context, fn func(state.Tx) error) error {
	if fn == nil {
		return errors.New("state/bolt: Update with a nil function")
	}
	return s.update(ctx, false, fn)
}

// sweepMax bounds the expired records one Update deletes.
const sweepMax = 1000

func (s *Store) update(ctx context.Context, create bool, fn func(state.Tx) error) (err error) {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()
	db, err := s.open(ctx, false, create)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close state file %s: %w", s.path, cerr)
		}
	}()
	return s.guard(func() error {
		return db.Update(func(btx *bbolt.Tx) error {
			now := s.now()
			if err := upgrade(btx, now); err != nil {
				return fmt.Errorf("%s: %w", s.path, err)
			}
			t := newTx(btx, now)
			if fn != nil {
				if err := t.run(fn); err != nil {
					return err
				}
			}
			return t.sweep(sweepMax)
		})
	})
}

// Check verifies the whole file: bbolt's page consistency check, the format,
// every record's encoding (records are JSON, counters 8 bytes), and the
// expiry index. It returns ErrCorrupt or ErrFormat wrapped with the path and
// naming the bucket and key. Pages are checked before anything is written: a
// file of an older format is upgraded (a write) only once they passed.
func (s *Store) Check(ctx context.Context) error {
	err := s.read(ctx, func(btx *bbolt.Tx) error {
		// Read every key and value first, here: a damaged page faults or
		// panics in this goroutine (guard recovers it) rather than in the
		// goroutine tx.Check starts, where nothing can.
		if err := readAll(btx); err != nil {
			return fmt.Errorf("%s: %w: %v", s.path, ErrCorrupt, err)
		}
		var first error
		for err := range btx.Check() { // drain: Check's goroutine sends every error
			if first == nil {
				first = err
			}
		}
		if first != nil {
			return fmt.Errorf("%s: %w: %v", s.path, ErrCorrupt, first)
		}
		return nil
	})
	if err != nil {
		return err
	}
	check := func(t *tx) error {
		if err := checkRecords(t); err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
		return nil
	}
	err = s.view(ctx, check)
	if errors.Is(err, errUpgrade) {
		if err = s.Update(ctx, func(state.Tx) error { return nil }); err == nil {
			err = s.view(ctx, check)
		}
	}
	return err
}

// readAll reads every byte of every key and value of every bucket.
func readAll(btx *bbolt.Tx) error {
	var sum byte
	var visit func(b *bbolt.Bucket) error
	visit = func(b *bbolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			for _, c := range k {
				sum ^= c
			}
			for _, c := range v {
				sum ^= c
			}
			if v == nil {
				if nb := b.Bucket(k); nb != nil {
					return visit(nb)
				}
			}
			return nil
		})
	}
	return btx.ForEach(func(_ []byte, b *bbolt.Bucket) error { return visit(b) })
}

// open opens the file for one operation. Only Open creates a missing file;
// afterwards a missing file is ErrMissing.
func (s *Store) open(ctx context.Context, readOnly, create bool) (*bbolt.DB, error) {
	if !create {
		if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", s.path, ErrMissing)
		}
	}
	if err := checkSize(s.path); err != nil {
		return nil, err
	}
	timeout := s.timeout
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); d < timeout {
			timeout = d
		}
	}
	if timeout <= 0 { // bbolt would wait forever
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		timeout = time.Millisecond
	}
	openFile := func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if !create {
			flag &^= os.O_CREATE
		}
		return os.OpenFile(name, flag, perm)
	}
	var db *bbolt.DB
	err := s.guard(func() (err error) {
		db, err = bbolt.Open(s.path, 0o600, &bbolt.Options{Timeout: timeout, ReadOnly: readOnly, OpenFile: openFile})
		return err
	})
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, ErrCorrupt):
		return nil, err
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%s: %w (waited %s)", s.path, ErrLocked, timeout.Round(time.Millisecond))
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", s.path, ErrMissing)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return nil, fmt.Errorf("%s: %w: %v", s.path, ErrCorrupt, err)
	}
	return nil, fmt.Errorf("open state file %s: %w", s.path, err)
}

// guard turns a bbolt panic (it panics on some corrupted pages) into
// ErrCorrupt, and so does a memory fault reading the mapped file (a corrupted
// page pointing outside it), which would otherwise kill the process. A panic
// of the caller's own function goes on as a panic.
func (s *Store) guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if p, ok := r.(callerPanic); ok {
				panic(p.v)
			}
			err = fmt.Errorf("%s: %w: %v", s.path, ErrCorrupt, r)
		}
	}()
	return fn()
}

// callerPanic carries a panic of the function given to View or Update
// through guard.
type callerPanic struct{ v any }

// checkSize refuses, before bbolt opens it, a state file that bbolt would
// either reset or fault on:
//
//   - an existing empty file nobody holds the lock of: bbolt would initialize
//     it, silently starting with no keys and no usage (a file wiped by a bad
//     copy or a full disk); remove it to start afresh;
//   - a file shorter than its newest valid meta page says (truncated): bbolt
//     maps it and reading the pages past its end is a SIGBUS that kills the
//     process, not an error.
//
// Both are ErrCorrupt. A missing file is fine (Open creates it), and a file
// whose meta pages are both invalid is left to bbolt (ErrInvalid).
func checkSize(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // missing, or bbolt reports it
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	size := fi.Size()
	if size == 0 {
		// Someone creating the file holds its lock while bbolt writes the
		// first pages: only an empty file nobody is writing is refused.
		if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) != nil {
			return nil
		}
		defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		if fi, err = f.Stat(); err == nil && fi.Size() == 0 {
			return fmt.Errorf("%s: %w: the file is empty (0 bytes); remove it to start with no keys and no usage", path, ErrCorrupt)
		}
		return nil
	}
	// Meta pages: a 16-byte page header, then magic, version, page size,
	// flags (uint32 each), root (16 bytes), freelist, pgid (the page count),
	// txid and checksum (uint64 each), in native byte order.
	const metaOff, magic = 16, 0xED0CDAED
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	var bestTx, pages uint64
	var pageSize uint64
	found := false
	for _, at := range []int{0, -1} {
		if at < 0 {
			if pageSize == 0 {
				pageSize = uint64(os.Getpagesize())
			}
			at = int(pageSize)
		}
		m := at + metaOff
		if m+64 > len(buf) {
			continue
		}
		ne := binary.NativeEndian
		if ne.Uint32(buf[m:]) != magic {
			continue
		}
		h := fnv.New64a()
		h.Write(buf[m : m+56])
		if h.Sum64() != ne.Uint64(buf[m+56:]) {
			continue
		}
		ps := uint64(ne.Uint32(buf[m+8:]))
		if at == 0 {
			pageSize = ps
		}
		if tx := ne.Uint64(buf[m+48:]); !found || tx > bestTx {
			found, bestTx, pages = true, tx, ne.Uint64(buf[m+40:])
			pageSize = ps
		}
	}
	if found && pages*pageSize > uint64(size) {
		return fmt.Errorf("%s: %w: truncated: %d bytes, its pages need %d", path, ErrCorrupt, size, pages*pageSize)
	}
	if !found && size < 2*int64(os.Getpagesize()) {
		return fmt.Errorf("%s: %w: %d bytes, too short for a bbolt file", path, ErrCorrupt, size)
	}
	return nil
}
