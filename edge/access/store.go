package access

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/snapshots"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Sentinel errors of the state file, wrapped with its path.
var (
	// ErrStateLocked means another process held the state file's lock for
	// longer than the timeout (a CLI command or another edge process in the
	// middle of a write, or a process that keeps the file open).
	ErrStateLocked = errors.New("state file is locked by another process")
	// ErrStateCorrupt means the state file is not a valid bbolt file or one of
	// the access buckets does not decode. The service refuses to start rather
	// than reset keys or usage; restore the file from a backup or move it away.
	ErrStateCorrupt = errors.New("state file is corrupted")
	// ErrStateFormat means the file was written by an incompatible version of
	// this package.
	ErrStateFormat = errors.New("unsupported state file format")
	// ErrStateMissing means the state file does not exist (read-only access).
	ErrStateMissing = errors.New("state file does not exist")
)

// Bucket names this package owns in the state file. Other packages add their
// own top-level buckets through Store.Update; they must not touch these.
var (
	bucketKeys  = []byte("keys")  // key id -> JSON keyRecord
	bucketUsage = []byte("usage") // key id (sub-bucket) -> day (uint32 BE) -> count (uint64 BE)
	bucketMeta  = []byte("meta")  // metaFormat, metaKeysRev
	metaFormat  = []byte("access.format")
	metaKeysRev = []byte("access.keys_rev")
)

// stateFormat is the version of the access buckets' layout.
const stateFormat = "1"

// DefaultLockTimeout is how long Store operations wait for the state file's
// lock when Store.Timeout is zero.
const DefaultLockTimeout = 5 * time.Second

// Store is the state file (state.bolt), a bbolt file shared by the edge
// server, its replicas on the same node and the CLI (cardedge keys ...). bbolt
// locks a file exclusively while it is open for writing, so nobody keeps it
// open: every operation opens it, runs one transaction and closes it, waiting
// up to Timeout for the lock. The server does that once per sync tick.
//
// Store is a plain value: access.Store{Path: path}.CreateKey(...).
type Store struct {
	Path string
	// Timeout is how long to wait for the lock; zero means DefaultLockTimeout.
	Timeout time.Duration
}

func (s Store) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultLockTimeout
}

// open opens the file; a missing file is created unless readOnly.
func (s Store) open(readOnly bool) (*bolt.DB, error) {
	if s.Path == "" {
		return nil, errors.New("access: state file path is empty")
	}
	if readOnly {
		if _, err := os.Stat(s.Path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", s.Path, ErrStateMissing)
		}
	}
	if err := checkStateSize(s.Path); err != nil {
		return nil, err
	}
	var db *bolt.DB
	err := s.guard(func() (err error) {
		db, err = bolt.Open(s.Path, 0o600, &bolt.Options{Timeout: s.timeout(), ReadOnly: readOnly})
		return err
	})
	if errors.Is(err, ErrStateCorrupt) {
		return nil, err
	}
	if err != nil {
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, fmt.Errorf("%s: %w (waited %s)", s.Path, ErrStateLocked, s.timeout())
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
			errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
			return nil, fmt.Errorf("%s: %w: %v", s.Path, ErrStateCorrupt, err)
		}
		return nil, fmt.Errorf("open state file %s: %w", s.Path, err)
	}
	return db, nil
}

// checkStateSize refuses, before bbolt opens it, a state file that bbolt
// would either reset or fault on:
//
//   - an existing empty file nobody holds the lock of: bbolt would initialize
//     it, silently starting with no keys and no usage (a file wiped by a bad
//     copy or a full disk); remove it to start afresh;
//   - a file shorter than its newest valid meta page says (truncated): bbolt
//     maps it and reading the pages past its end is a SIGBUS that kills the
//     process, not an error.
//
// Both are ErrStateCorrupt. A missing file is fine (created), and a file
// whose meta pages are both invalid is left to bbolt (ErrInvalid).
func checkStateSize(path string) error {
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
			return fmt.Errorf("%s: %w: the file is empty (0 bytes); remove it to start with no keys and no usage", path, ErrStateCorrupt)
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
		return fmt.Errorf("%s: %w: truncated: %d bytes, its pages need %d", path, ErrStateCorrupt, size, pages*pageSize)
	}
	if !found && size < 2*int64(os.Getpagesize()) {
		return fmt.Errorf("%s: %w: %d bytes, too short for a bbolt file", path, ErrStateCorrupt, size)
	}
	return nil
}

// View runs fn in a read-only transaction on the file, which must exist.
// Values fn sees are valid only inside fn.
func (s Store) View(fn func(tx *bolt.Tx) error) error {
	db, err := s.open(true)
	if err != nil {
		return err
	}
	defer db.Close()
	return s.guard(func() error { return db.View(fn) })
}

// Update runs fn in a read-write transaction, creating the file and the access
// buckets if needed. fn may create and use its own top-level buckets.
func (s Store) Update(fn func(tx *bolt.Tx) error) error {
	db, err := s.open(false)
	if err != nil {
		return err
	}
	err = s.guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			if err := initBuckets(tx); err != nil {
				return err
			}
			return fn(tx)
		})
	})
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close state file %s: %w", s.Path, cerr)
	}
	return err
}

// guard turns a bbolt panic (it panics on some corrupted pages) into
// ErrStateCorrupt, and so does a memory fault reading the mapped file (a
// corrupted page pointing outside it), which would otherwise kill the
// process.
func (s Store) guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %w: %v", s.Path, ErrStateCorrupt, r)
		}
	}()
	return fn()
}

// Check verifies the whole file: bbolt's page consistency check, the format
// version and every key record. It returns ErrStateCorrupt or ErrStateFormat
// wrapped with the path.
func (s Store) Check() error {
	db, err := s.open(false)
	if err != nil {
		return err
	}
	defer db.Close()
	return s.guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			// Read every key and value first, here: a damaged page faults or
			// panics in this goroutine (guard recovers it) rather than in
			// the goroutine tx.Check starts, where nothing can.
			if err := readAll(tx); err != nil {
				return fmt.Errorf("%s: %w: %v", s.Path, ErrStateCorrupt, err)
			}
			var first error
			for err := range tx.Check() { // drain: Check's goroutine sends every error
				if first == nil {
					first = err
				}
			}
			if first != nil {
				return fmt.Errorf("%s: %w: %v", s.Path, ErrStateCorrupt, first)
			}
			if err := initBuckets(tx); err != nil {
				return fmt.Errorf("%s: %w", s.Path, err)
			}
			if _, err := readKeys(tx); err != nil {
				return fmt.Errorf("%s: %w", s.Path, err)
			}
			return readAllUsage(tx)
		})
	})
}

// readAll reads every byte of every key and value of every bucket.
func readAll(tx *bolt.Tx) error {
	var sum byte
	var visit func(b *bolt.Bucket) error
	visit = func(b *bolt.Bucket) error {
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
	return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return visit(b) })
}

// initBuckets creates the access buckets and checks the format version.
func initBuckets(tx *bolt.Tx) error {
	if !tx.Writable() {
		return checkFormat(tx)
	}
	for _, name := range [][]byte{bucketKeys, bucketUsage, bucketMeta} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("%w: bucket %s: %v", ErrStateCorrupt, name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	if meta.Get(metaFormat) == nil {
		return meta.Put(metaFormat, []byte(stateFormat))
	}
	return checkFormat(tx)
}

func checkFormat(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return nil // never written by this package: empty
	}
	if v := meta.Get(metaFormat); v != nil && string(v) != stateFormat {
		return fmt.Errorf("%w: access format %q, want %q", ErrStateFormat, v, stateFormat)
	}
	return nil
}

// keyRecord is the stored form of a key.
type keyRecord struct {
	Key
	Hash string `json:"sha256"` // hex SHA-256 of the secret
}

func (r keyRecord) hash() ([32]byte, error) {
	var h [32]byte
	b, err := hex.DecodeString(r.Hash)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("key %s: bad hash", r.ID)
	}
	copy(h[:], b)
	return h, nil
}

// readKeys decodes every key record.
func readKeys(tx *bolt.Tx) ([]keyRecord, error) {
	b := tx.Bucket(bucketKeys)
	if b == nil {
		return nil, nil
	}
	var out []keyRecord
	err := b.ForEach(func(k, v []byte) error {
		var r keyRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("%w: key %q: %v", ErrStateCorrupt, k, err)
		}
		if r.ID != string(k) || !r.Tier.Valid() || r.Tier == Playground {
			return fmt.Errorf("%w: key %q: bad record", ErrStateCorrupt, k)
		}
		if _, err := r.hash(); err != nil {
			return fmt.Errorf("%w: %v", ErrStateCorrupt, err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// keysRev returns the key table's revision, bumped on every change.
func keysRev(tx *bolt.Tx) uint64 {
	if b := tx.Bucket(bucketMeta); b != nil {
		if v := b.Get(metaKeysRev); len(v) == 8 {
			return binary.BigEndian.Uint64(v)
		}
	}
	return 0
}

func bumpKeysRev(tx *bolt.Tx) error {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], keysRev(tx)+1)
	return tx.Bucket(bucketMeta).Put(metaKeysRev, v[:])
}

func putKey(tx *bolt.Tx, r keyRecord) error {
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketKeys).Put([]byte(r.ID), v); err != nil {
		return err
	}
	return bumpKeysRev(tx)
}

func dayKey(d snapshots.Day) [4]byte {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], uint32(d))
	return k
}

// readUsage returns the stored count of key id on day d.
func readUsage(tx *bolt.Tx, id string, d snapshots.Day) int64 {
	b := tx.Bucket(bucketUsage)
	if b == nil {
		return 0
	}
	if b = b.Bucket([]byte(id)); b == nil {
		return 0
	}
	k := dayKey(d)
	if v := b.Get(k[:]); len(v) == 8 {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

// addUsage adds n to key id's count of day d and returns the new count.
func addUsage(tx *bolt.Tx, id string, d snapshots.Day, n int64) (int64, error) {
	b, err := tx.Bucket(bucketUsage).CreateBucketIfNotExists([]byte(id))
	if err != nil {
		return 0, err
	}
	k := dayKey(d)
	var cur int64
	if v := b.Get(k[:]); len(v) == 8 {
		cur = int64(binary.BigEndian.Uint64(v))
	}
	cur += n
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(cur))
	return cur, b.Put(k[:], v[:])
}

// pruneUsage deletes key id's counts of days before cutoff.
func pruneUsage(tx *bolt.Tx, id string, cutoff snapshots.Day) error {
	b := tx.Bucket(bucketUsage).Bucket([]byte(id))
	if b == nil {
		return nil
	}
	lim := dayKey(cutoff)
	c := b.Cursor()
	for k, _ := c.First(); k != nil && string(k) < string(lim[:]); k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// readAllUsage checks that every usage value decodes.
func readAllUsage(tx *bolt.Tx) error {
	b := tx.Bucket(bucketUsage)
	if b == nil {
		return nil
	}
	return b.ForEachBucket(func(id []byte) error {
		return b.Bucket(id).ForEach(func(k, v []byte) error {
			if len(k) != 4 || len(v) != 8 {
				return fmt.Errorf("%w: usage of %q: bad entry", ErrStateCorrupt, id)
			}
			return nil
		})
	})
}

// DayCount is one day's usage.
type DayCount struct {
	Date     string `json:"date"` // YYYY-MM-DD (UTC)
	Requests int64  `json:"requests"`
	day      snapshots.Day
}

// readDays returns key id's stored counts of days >= from, by day.
func readDays(tx *bolt.Tx, id string, from snapshots.Day) map[snapshots.Day]int64 {
	out := map[snapshots.Day]int64{}
	b := tx.Bucket(bucketUsage)
	if b == nil {
		return out
	}
	if b = b.Bucket([]byte(id)); b == nil {
		return out
	}
	k := dayKey(from)
	c := b.Cursor()
	for k, v := c.Seek(k[:]); k != nil; k, v = c.Next() {
		if len(k) == 4 && len(v) == 8 {
			out[snapshots.Day(binary.BigEndian.Uint32(k))] = int64(binary.BigEndian.Uint64(v))
		}
	}
	return out
}

// CreateKey creates a key of tier t (free, pro or elite) and returns its
// secret, which is shown once and never stored, and its record. name is free
// text (1 to 100 characters, no control characters). It returns EINVALID for a
// bad tier or name.
func (s Store) CreateKey(t Tier, name string, sql, unmetered bool) (secret string, k Key, err error) {
	if t == Playground || !t.Valid() {
		return "", Key{}, snapshots.Errorf(snapshots.EINVALID, "a key's tier must be free, pro or elite")
	}
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n == 0 || n > 100 || !utf8.ValidString(name) ||
		strings.IndexFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return "", Key{}, snapshots.Errorf(snapshots.EINVALID, "a key's name must be 1 to 100 printable characters")
	}
	if secret, err = newSecret(t); err != nil {
		return "", Key{}, err
	}
	h := hashSecret([]byte(secret))
	k = Key{Name: name, Tier: t, SQL: sql, Unmetered: unmetered, Created: time.Now().UTC().Truncate(time.Second)}
	err = s.Update(func(tx *bolt.Tx) error {
		for range 10 {
			id, err := newKeyID()
			if err != nil {
				return err
			}
			if tx.Bucket(bucketKeys).Get([]byte(id)) == nil {
				k.ID = id
				return putKey(tx, keyRecord{Key: k, Hash: hex.EncodeToString(h[:])})
			}
		}
		return errors.New("access: could not draw an unused key id")
	})
	if err != nil {
		return "", Key{}, err
	}
	return secret, k, nil
}

// ListKeys returns every key, revoked ones included, by creation time then id.
// A missing file has no keys.
func (s Store) ListKeys() ([]Key, error) {
	var recs []keyRecord
	err := s.View(func(tx *bolt.Tx) error {
		if err := checkFormat(tx); err != nil {
			return err
		}
		var err error
		recs, err = readKeys(tx)
		return err
	})
	if errors.Is(err, ErrStateMissing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keys := make([]Key, len(recs))
	for i, r := range recs {
		keys[i] = r.Key
	}
	sort.Slice(keys, func(i, j int) bool {
		if !keys[i].Created.Equal(keys[j].Created) {
			return keys[i].Created.Before(keys[j].Created)
		}
		return keys[i].ID < keys[j].ID
	})
	return keys, nil
}

// RevokeKey revokes key id and returns its record. Revoking twice keeps the
// first revocation time. Running servers refuse the key from their next sync
// (within about a second). It returns ENOTFOUND for an unknown id.
func (s Store) RevokeKey(id string) (Key, error) {
	var k Key
	err := s.Update(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketKeys).Get([]byte(id))
		if v == nil {
			return snapshots.Errorf(snapshots.ENOTFOUND, "no key with id %q", id)
		}
		var r keyRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("%w: key %q: %v", ErrStateCorrupt, id, err)
		}
		if !r.Revoked.IsZero() {
			k = r.Key
			return nil
		}
		r.Revoked = time.Now().UTC().Truncate(time.Second)
		k = r.Key
		return putKey(tx, r)
	})
	return k, err
}
