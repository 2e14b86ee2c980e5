package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/mark3labs/mcp-go/server"
)

// sessions are the live MCP sessions, each bound to the key that initialized
// it: another key presenting its id is refused like an unknown id (404).
type sessions struct {
	mu     sync.Mutex
	m      map[string]*session
	perKey map[string]int
	max    int
	now    func() time.Time
}

type session struct {
	id, key string
	used    time.Time
	// cohort is the handle of the session's active cohort ("" for none).
	cohort string
	// results are the newest result handles of the session, oldest first.
	results []resultSet
}

// resultSet is the card ids of one tool result, addressable by its handle
// within the session (pin_cohort result_handle).
type resultSet struct {
	handle string
	tool   string
	game   string
	ids    []string
}

func newSessions(max int, now func() time.Time) *sessions {
	return &sessions{m: map[string]*session{}, perKey: map[string]int{}, max: max, now: now}
}

// create starts a session for key, ending the key's least recently used
// session when it has max already.
func (s *sessions) create(key string) string {
	id := "cs_" + randomHex(16)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perKey[key] >= s.max {
		var lru *session
		for _, x := range s.m {
			if x.key == key && (lru == nil || x.used.Before(lru.used)) {
				lru = x
			}
		}
		if lru != nil {
			s.deleteLocked(lru.id)
		}
	}
	s.m[id] = &session{id: id, key: key, used: s.now()}
	s.perKey[key]++
	return id
}

// valid reports whether id is a live session of key, and marks it used.
func (s *sessions) valid(id, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.m[id]
	if x == nil || x.key != key {
		return false
	}
	x.used = s.now()
	return true
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(id)
}

func (s *sessions) deleteLocked(id string) {
	if x := s.m[id]; x != nil {
		delete(s.m, id)
		if s.perKey[x.key]--; s.perKey[x.key] <= 0 {
			delete(s.perKey, x.key)
		}
	}
}

// activeCohort returns the session's active cohort handle ("" for none).
func (s *sessions) activeCohort(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.m[id]; x != nil {
		return x.cohort
	}
	return ""
}

func (s *sessions) setCohort(id, handle string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.m[id]; x != nil {
		x.cohort = handle
	}
}

// addResult keeps a result's ids under a new handle in the session (the
// newest ResultHandlesPerSession are kept) and returns the handle; "" when
// the call has no session.
func (s *sessions) addResult(id, tool, game string, ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.m[id]
	if x == nil {
		return ""
	}
	h := "res_" + randomHex(8)
	x.results = append(x.results, resultSet{handle: h, tool: tool, game: game, ids: ids})
	if n := len(x.results); n > ResultHandlesPerSession {
		x.results = append(x.results[:0:0], x.results[n-ResultHandlesPerSession:]...)
	}
	return h
}

func (s *sessions) result(id, handle string) (resultSet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.m[id]; x != nil {
		for _, r := range x.results {
			if r.handle == handle {
				return r, true
			}
		}
	}
	return resultSet{}, false
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// sessionResolver gives mcp-go a session manager bound to the request's key.
type sessionResolver struct{ s *sessions }

func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	m := sessionManager{s: r.s}
	if req != nil {
		if c, ok := access.CallerFromContext(req.Context()); ok {
			m.key = c.KeyID
		}
	}
	return m
}

// sessionManager validates session ids against the live sessions of one key
// (key "" is the idle sweeper: it may end any session).
type sessionManager struct {
	s   *sessions
	key string
}

var errSession = errors.New("unknown or ended session")

func (m sessionManager) Generate() string { return m.s.create(m.key) }

func (m sessionManager) Validate(id string) (bool, error) {
	if !m.s.valid(id, m.key) {
		return false, errSession
	}
	return false, nil
}

func (m sessionManager) Terminate(id string) (bool, error) {
	m.s.mu.Lock()
	x := m.s.m[id]
	m.s.mu.Unlock()
	if x != nil && (m.key == "" || x.key == m.key) {
		m.s.end(id)
	}
	return false, nil
}
