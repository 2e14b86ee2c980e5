package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

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

// cohortTable holds the cohorts in the state store, under "<key id>/<handle>"
// (state.Cohorts), each expiring at its ExpiresAt.
var cohortTable = state.NewTable[cohortRecord](state.Cohorts)

// cohortStore keeps cohorts in the state store (so they survive a restart and
// are shared by the processes using it) with a read-through memory cache.
type cohortStore struct {
	store  state.Store
	ttl    time.Duration
	maxKey int
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cohortRecord
}

const cohortCacheMax = 4096

// cohortTimeout bounds one read or write of the state store.
const cohortTimeout = 5 * time.Second

func newCohortStore(st state.Store, ttl time.Duration, maxKey int, now func() time.Time) *cohortStore {
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
	ctx, cancel := context.WithTimeout(context.Background(), cohortTimeout)
	defer cancel()
	err := s.store.Update(ctx, func(tx state.Tx) error {
		// Keep at most maxKey of this key's cohorts (expired ones are
		// invisible): drop the oldest.
		type owned struct {
			handle  string
			created time.Time
		}
		var mine []owned
		err := cohortTable.Scan(tx, state.ScanOptions{Prefix: key + "/"}, func(_ string, r cohortRecord) error {
			if r.Handle != c.Handle {
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
				if err := cohortTable.Delete(tx, key+"/"+o.handle); err != nil {
					return err
				}
			}
		}
		return cohortTable.Put(tx, key+"/"+c.Handle, rec, s.ttl)
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
	notFound := apperr.Errorf(apperr.ENOTFOUND, "unknown or expired cohort_handle %q: pin the cohort again with pin_cohort", handle)
	now := s.now()
	s.mu.Lock()
	rec, ok := s.cache[handle]
	s.mu.Unlock()
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), cohortTimeout)
		defer cancel()
		err := s.store.View(ctx, func(tx state.Tx) (err error) {
			rec, err = cohortTable.Get(tx, key+"/"+handle)
			return err
		})
		switch {
		case errors.Is(err, state.ErrNotFound):
		case err != nil:
			return Cohort{}, err
		default:
			ok = true
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
