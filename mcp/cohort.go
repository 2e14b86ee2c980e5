package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/snapshots"
	bolt "go.etcd.io/bbolt"
)

// CohortBucket is the state file's bucket of pinned cohorts (handle -> JSON).
const CohortBucket = "mcp_cohorts"

// Cohort is a named working set of card ids pinned for a conversation. It
// belongs to the key that pinned it and lives until ExpiresAt.
type Cohort struct {
	Handle    string       `json:"cohort_handle"`
	Name      string       `json:"name"`
	Game      string       `json:"game"`
	Source    CohortSource `json:"source"`
	IDs       []string     `json:"ids"`
	CreatedAt time.Time    `json:"created_at"`
	ExpiresAt time.Time    `json:"expires_at"`
}

// CohortSource says how a cohort was made.
type CohortSource struct {
	Kind         string `json:"kind"` // ids, set, result, compare_set_finish
	SetID        string `json:"set_id,omitempty"`
	Era          string `json:"era,omitempty"`
	Rarity       string `json:"rarity,omitempty"`
	Finish       string `json:"finish,omitempty"`
	ResultHandle string `json:"result_handle,omitempty"`
}

type cohortRecord struct {
	Cohort
	KeyID string `json:"key_id"`
}

// cohortStore keeps cohorts in the state file (so they survive a restart and
// are shared by replicas on the node) with a read-through memory cache.
type cohortStore struct {
	store  access.Store
	ttl    time.Duration
	maxKey int
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cohortRecord
}

const cohortCacheMax = 4096

func newCohortStore(st access.Store, ttl time.Duration, maxKey int, now func() time.Time) *cohortStore {
	return &cohortStore{store: st, ttl: ttl, maxKey: maxKey, now: now, cache: map[string]cohortRecord{}}
}

// cohortHandle is deterministic: pinning the same cohort again (same key,
// game, name and ids) gives the same handle and renews it.
func cohortHandle(key, game, name string, ids []string) string {
	h := sha256.New()
	h.Write([]byte(key + "\x00" + game + "\x00" + name))
	for _, id := range ids {
		h.Write([]byte{0})
		h.Write([]byte(strings.ToLower(id)))
	}
	return "coh_" + hex.EncodeToString(h.Sum(nil))[:20]
}

// pin stores a cohort for key and returns it.
func (s *cohortStore) pin(key, game, name string, src CohortSource, ids []string) (Cohort, error) {
	now := s.now().UTC().Truncate(time.Second)
	c := Cohort{
		Handle: cohortHandle(key, game, name, ids), Name: name, Game: game, Source: src, IDs: ids,
		CreatedAt: now, ExpiresAt: now.Add(s.ttl),
	}
	rec := cohortRecord{Cohort: c, KeyID: key}
	b, err := json.Marshal(rec)
	if err != nil {
		return Cohort{}, err
	}
	err = s.store.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(CohortBucket))
		if err != nil {
			return err
		}
		// Prune expired cohorts; keep at most maxKey of this key.
		type owned struct {
			handle  string
			created time.Time
		}
		var mine []owned
		var dead [][]byte
		err = bk.ForEach(func(k, v []byte) error {
			var r cohortRecord
			if json.Unmarshal(v, &r) != nil || !now.Before(r.ExpiresAt) {
				dead = append(dead, slices.Clone(k))
				return nil
			}
			if r.KeyID == key && r.Handle != c.Handle {
				mine = append(mine, owned{r.Handle, r.CreatedAt})
			}
			return nil
		})
		if err != nil {
			return err
		}
		if extra := len(mine) - (s.maxKey - 1); extra > 0 {
			slices.SortFunc(mine, func(a, b owned) int { return a.created.Compare(b.created) })
			for _, o := range mine[:extra] {
				dead = append(dead, []byte(o.handle))
			}
		}
		for _, k := range dead {
			if err := bk.Delete(k); err != nil {
				return err
			}
		}
		return bk.Put([]byte(c.Handle), b)
	})
	if err != nil {
		return Cohort{}, err
	}
	s.mu.Lock()
	if len(s.cache) >= cohortCacheMax {
		clear(s.cache)
	}
	s.cache[c.Handle] = rec
	s.mu.Unlock()
	return c, nil
}

// get returns key's cohort handle: ENOTFOUND when it does not exist, belongs
// to another key or expired.
func (s *cohortStore) get(key, handle string) (Cohort, error) {
	notFound := snapshots.Errorf(snapshots.ENOTFOUND, "unknown or expired cohort_handle %q: pin the cohort again with pin_cohort", handle)
	now := s.now()
	s.mu.Lock()
	rec, ok := s.cache[handle]
	s.mu.Unlock()
	if !ok {
		err := s.store.View(func(tx *bolt.Tx) error {
			bk := tx.Bucket([]byte(CohortBucket))
			if bk == nil {
				return nil
			}
			if v := bk.Get([]byte(handle)); v != nil {
				if json.Unmarshal(v, &rec) == nil {
					ok = true
				}
			}
			return nil
		})
		if err != nil {
			return Cohort{}, err
		}
		if ok {
			s.mu.Lock()
			if len(s.cache) >= cohortCacheMax {
				clear(s.cache)
			}
			s.cache[handle] = rec
			s.mu.Unlock()
		}
	}
	if !ok || rec.KeyID != key {
		return Cohort{}, notFound
	}
	if !now.Before(rec.ExpiresAt) {
		s.mu.Lock()
		delete(s.cache, handle)
		s.mu.Unlock()
		return Cohort{}, notFound
	}
	return rec.Cohort, nil
}
