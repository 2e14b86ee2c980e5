package webhook

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Defaults of Options.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultDisableAfter  = 5 * 24 * time.Hour
	DefaultResponseBytes = 512
	DefaultWorkers       = 4
	// SecretOverlap is how long a rolled secret keeps signing beside the
	// new one.
	SecretOverlap = 24 * time.Hour
	// QueueTTL is how long a message waits at most (retries span about 3
	// days).
	QueueTTL = 7 * 24 * time.Hour
	// LogTTL is how long the delivery log keeps an attempt; NoticeTTL a
	// notice.
	LogTTL    = 30 * 24 * time.Hour
	NoticeTTL = 90 * 24 * time.Hour
	// MaxDescription is the longest description of an endpoint.
	MaxDescription = 200
)

// DefaultBackoff is the wait after each failed attempt: 14 retries over
// about 3 days (71 h 43 min), exponential at first, then every 12 hours.
// The message is given up when the last retry fails.
var DefaultBackoff = []time.Duration{
	5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour,
	12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 8 * time.Hour,
}

// Limits are an account's limits (its tier's: access.Limits'
// WebhookEndpoints).
type Limits struct {
	// Endpoints is the most endpoints an account may have; 0: none.
	Endpoints int
}

// Options configure a Service. Every zero value has a documented default.
type Options struct {
	// State keeps endpoints, queues, cursors, logs and notices (required).
	State state.Store
	// Now is the clock of attempts, backoff, secret overlap and disabling;
	// nil means time.Now.
	Now func() time.Time
	// Guard decides which addresses endpoints may reach, at creation and
	// at every dial (its zero value refuses private addresses).
	Guard Guard
	// Backoff is the wait after each failed attempt; nil means
	// DefaultBackoff. The message is given up after len(Backoff) retries.
	Backoff []time.Duration
	// DisableAfter disables an endpoint whose deliveries have failed for
	// that long without a success; zero means DefaultDisableAfter.
	DisableAfter time.Duration
	// Timeout bounds an attempt (connect, send, response); zero means
	// DefaultTimeout.
	Timeout time.Duration
	// ResponseBytes is how much of a response the log keeps; zero means
	// DefaultResponseBytes.
	ResponseBytes int
	// Workers is how many endpoints are delivered to at once (each one
	// message at a time); zero means DefaultWorkers.
	Workers int
	// Holder names this process in delivery leases; "" draws one.
	Holder string
	// UserAgent is sent with each delivery; "" means "cardedge-webhooks".
	UserAgent string
	// Transport, when set, replaces the guarded transport (tests of the
	// guard itself never set it).
	Transport http.RoundTripper
}

// Service keeps webhook endpoints and delivers their messages. It is safe
// for concurrent use.
type Service struct {
	o      Options
	client *http.Client

	mu       sync.Mutex
	inflight map[string]bool // endpoints this process is delivering to
}

// New returns a Service.
func New(o Options) (*Service, error) {
	if o.State == nil {
		return nil, errors.New("webhook: no state store")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	if o.DisableAfter <= 0 {
		o.DisableAfter = DefaultDisableAfter
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ResponseBytes <= 0 {
		o.ResponseBytes = DefaultResponseBytes
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Holder == "" {
		o.Holder = newID("h_")
	}
	if o.UserAgent == "" {
		o.UserAgent = "cardedge-webhooks"
	}
	if o.Guard.Timeout <= 0 {
		o.Guard.Timeout = o.Timeout
	}
	tr := o.Transport
	if tr == nil {
		tr = &http.Transport{
			Proxy:               nil, // a proxy would dial for us, past the guard
			DialContext:         o.Guard.DialContext,
			TLSHandshakeTimeout: o.Timeout,
			MaxIdleConnsPerHost: 1,
			IdleConnTimeout:     90 * time.Second,
			ForceAttemptHTTP2:   true,
		}
	}
	client := &http.Client{Transport: tr, Timeout: o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Service{o: o, client: client, inflight: map[string]bool{}}, nil
}

// The tables of webhooks in the state store (see state/buckets.go).
var (
	endpoints = state.NewTable[endpoint](state.WebhookEndpoints) // "<account>/<endpoint id>"
	queue     = state.NewTable[message](state.WebhookQueue)      // "<endpoint id>/<seq>"
	cursors   = state.NewTable[cursor](state.WebhookCursors)     // "<endpoint id>"
	logs      = state.NewTable[Attempt](state.WebhookLog)        // "<endpoint id>/<time>/<random>"
	notices   = state.NewTable[Notice](state.WebhookNotices)     // "<account>/<time>/<endpoint id>"
	leases    = state.NewTable[lease](state.Leases)              // "webhook/<endpoint id>"
)

const stateTimeout = 5 * time.Second

// endpoint is a stored endpoint.
type endpoint struct {
	ID          string    `json:"id"`
	Account     string    `json:"account"`
	URL         string    `json:"url"`
	Description string    `json:"description,omitempty"`
	Types       []string  `json:"types,omitempty"` // event types delivered; none: every one
	Secrets     []secret  `json:"secrets"`         // the current one first
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Disabled    *Disabled `json:"disabled,omitempty"`
	// Seq is the sequence number of the last message queued.
	Seq uint64 `json:"seq"`
}

type secret struct {
	Key     string    `json:"key"`              // "whsec_..."
	Expires time.Time `json:"expires,omitzero"` // a rolled secret's end of overlap
}

// Disabled says why and since when an endpoint gets no deliveries.
type Disabled struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// cursor is an endpoint's delivery state.
type cursor struct {
	Done         uint64    `json:"done"`             // the last sequence number delivered or given up
	Next         time.Time `json:"next,omitzero"`    // the head message's next attempt
	Attempt      int       `json:"attempt"`          // attempts made of the head message
	FailingSince time.Time `json:"failing,omitzero"` // the first failure since the last success
	LastStatus   int       `json:"last_status"`      // of the last attempt (0: no response)
	LastAttempt  time.Time `json:"last_attempt,omitzero"`
}

type lease struct {
	Holder string `json:"holder"`
}

// Endpoint is an endpoint as its owner sees it (never its secrets).
type Endpoint struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	Types       []string  `json:"types"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Disabled    *Disabled `json:"disabled"`
	// SecretOverlapUntil is when a rolled secret stops signing (nil: none
	// overlaps).
	SecretOverlapUntil *time.Time `json:"secret_overlap_until"`
	// Pending counts messages waiting; FailingSince is set while
	// deliveries fail; NextAttempt is the head message's next attempt.
	Pending      int        `json:"pending"`
	FailingSince *time.Time `json:"failing_since"`
	NextAttempt  *time.Time `json:"next_attempt"`
	LastStatus   int        `json:"last_status"`
}

// EndpointInput is an endpoint as its owner sends it.
type EndpointInput struct {
	URL         string   `json:"url"`
	Description string   `json:"description"`
	Types       []string `json:"types"`
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

func newID(prefix string) string {
	b := make([]byte, 10)
	rand.Read(b)
	return prefix + strings.ToLower(b32.EncodeToString(b))
}

func checkAccount(account string) error {
	if account == "" || len(account) > 64 || strings.ContainsAny(account, "/\x00") {
		return apperr.Errorf(apperr.EINTERNAL, "webhook: no account")
	}
	return nil
}

var typeRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`)

// check validates in, looking the URL's host up (Guard.CheckURL).
func (s *Service) check(ctx context.Context, in EndpointInput) (EndpointInput, error) {
	var errs apperr.FieldErrors
	bad := func(field, typ, msg string, input any) {
		errs = append(errs, apperr.FieldError{Loc: []any{"body", field}, Msg: msg, Type: typ, Input: input})
	}
	if _, err := s.o.Guard.CheckURL(ctx, in.URL); err != nil {
		bad("url", "value_error", "url: "+strings.TrimPrefix(err.Error(), "webhook: "), in.URL)
	}
	in.Description = strings.TrimSpace(in.Description)
	if len(in.Description) > MaxDescription || strings.ContainsRune(in.Description, 0) {
		bad("description", "string_too_long", fmt.Sprintf("description: at most %d bytes of text", MaxDescription), nil)
	}
	if len(in.Types) > 20 {
		bad("types", "too_long", "types: at most 20 event types", nil)
	}
	for _, t := range in.Types {
		if len(t) > 64 || !typeRE.MatchString(t) {
			bad("types", "value_error", "types: event types such as alert.triggered", t)
		}
	}
	slices.Sort(in.Types)
	in.Types = slices.Compact(in.Types)
	if errs != nil {
		return in, errs
	}
	return in, nil
}

func (s *Service) clock() time.Time { return s.o.Now().UTC() }

// Create adds an endpoint to account, within lim, and returns it with its
// signing secret. EINVALID (FieldErrors: a URL refused by the guard, ...;
// a full list), EFORBIDDEN (the tier has no webhooks).
func (s *Service) Create(ctx context.Context, account string, in EndpointInput, lim Limits) (Endpoint, string, error) {
	if err := checkAccount(account); err != nil {
		return Endpoint{}, "", err
	}
	if lim.Endpoints <= 0 {
		return Endpoint{}, "", apperr.Errorf(apperr.EFORBIDDEN, "webhooks are not available to this tier")
	}
	in, err := s.check(ctx, in)
	if err != nil {
		return Endpoint{}, "", err
	}
	now := s.clock()
	e := endpoint{ID: newID("ep_"), Account: account, URL: in.URL, Description: in.Description, Types: in.Types,
		Secrets: []secret{{Key: NewSecret()}}, Created: now, Updated: now}
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err = s.o.State.Update(ctx, func(tx state.Tx) error {
		n := 0
		if err := endpoints.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(string, endpoint) error { n++; return nil }); err != nil {
			return err
		}
		if n >= lim.Endpoints {
			return apperr.Errorf(apperr.EINVALID, "the account has %d webhook endpoints, the most its tier allows", n)
		}
		if err := endpoints.Insert(tx, account+"/"+e.ID, e, 0); err != nil {
			return err
		}
		return cursors.Put(tx, e.ID, cursor{}, 0)
	})
	if err != nil {
		return Endpoint{}, "", wrap("create an endpoint", err)
	}
	return s.view(e, cursor{}), e.Secrets[0].Key, nil
}

// view is e as its owner sees it, with its cursor c.
func (s *Service) view(e endpoint, c cursor) Endpoint {
	v := Endpoint{ID: e.ID, URL: e.URL, Description: e.Description, Types: e.Types, Created: e.Created, Updated: e.Updated,
		Disabled: e.Disabled, Pending: int(e.Seq - min(c.Done, e.Seq)), LastStatus: c.LastStatus}
	if v.Types == nil {
		v.Types = []string{}
	}
	now := s.clock()
	for _, sec := range e.Secrets[1:] {
		if sec.Expires.After(now) {
			t := sec.Expires
			v.SecretOverlapUntil = &t
		}
	}
	if !c.FailingSince.IsZero() {
		t := c.FailingSince
		v.FailingSince = &t
	}
	if v.Pending > 0 && !c.Next.IsZero() && e.Disabled == nil {
		t := c.Next
		v.NextAttempt = &t
	}
	return v
}

// get reads endpoint id of account in tx. ENOTFOUND.
func get(tx state.Tx, account, id string) (endpoint, error) {
	e, err := endpoints.Get(tx, account+"/"+id)
	if errors.Is(err, state.ErrNotFound) {
		return e, apperr.Errorf(apperr.ENOTFOUND, "no webhook endpoint %s", id)
	}
	return e, err
}

func getCursor(tx state.Tx, id string) (cursor, error) {
	c, err := cursors.Get(tx, id)
	if errors.Is(err, state.ErrNotFound) {
		return cursor{}, nil
	}
	return c, err
}

// List returns account's endpoints, oldest first.
func (s *Service) List(ctx context.Context, account string) ([]Endpoint, error) {
	if err := checkAccount(account); err != nil {
		return nil, err
	}
	var out []Endpoint
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		out = []Endpoint{}
		var es []endpoint
		if err := endpoints.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, e endpoint) error {
			es = append(es, e)
			return nil
		}); err != nil {
			return err
		}
		for _, e := range es {
			c, err := getCursor(tx, e.ID)
			if err != nil {
				return err
			}
			out = append(out, s.view(e, c))
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Endpoint) int { return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID)) })
	return out, wrap("list endpoints", err)
}

// Get returns endpoint id of account. ENOTFOUND.
func (s *Service) Get(ctx context.Context, account, id string) (Endpoint, error) {
	if err := checkAccount(account); err != nil {
		return Endpoint{}, err
	}
	var v Endpoint
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		e, err := get(tx, account, id)
		if err != nil {
			return err
		}
		c, err := getCursor(tx, id)
		v = s.view(e, c)
		return err
	})
	return v, wrap("read endpoint "+id, err)
}

// Secret returns the current signing secret of endpoint id (the dashboard
// shows it to the owner on request). ENOTFOUND.
func (s *Service) Secret(ctx context.Context, account, id string) (string, error) {
	if err := checkAccount(account); err != nil {
		return "", err
	}
	var key string
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		e, err := get(tx, account, id)
		key = e.Secrets[0].Key
		return err
	})
	return key, wrap("read endpoint "+id, err)
}

// change runs fn on endpoint id of account in one transaction.
func (s *Service) change(ctx context.Context, account, id, what string, fn func(tx state.Tx, e *endpoint) error) (Endpoint, error) {
	if err := checkAccount(account); err != nil {
		return Endpoint{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	var v Endpoint
	err := s.o.State.Update(ctx, func(tx state.Tx) error {
		e, err := get(tx, account, id)
		if err != nil {
			return err
		}
		if err := fn(tx, &e); err != nil {
			return err
		}
		e.Updated = s.clock()
		if err := endpoints.Put(tx, account+"/"+id, e, 0); err != nil {
			return err
		}
		c, err := getCursor(tx, id)
		v = s.view(e, c)
		return err
	})
	return v, wrap(what+" endpoint "+id, err)
}

// Update replaces the URL, description and types of endpoint id. EINVALID,
// ENOTFOUND.
func (s *Service) Update(ctx context.Context, account, id string, in EndpointInput) (Endpoint, error) {
	in, err := s.check(ctx, in)
	if err != nil {
		return Endpoint{}, err
	}
	return s.change(ctx, account, id, "update", func(_ state.Tx, e *endpoint) error {
		e.URL, e.Description, e.Types = in.URL, in.Description, in.Types
		return nil
	})
}

// RollSecret gives endpoint id a new signing secret and returns it; the old
// one keeps signing beside it for SecretOverlap (deliveries carry both
// signatures), so that receivers can switch without losing a message.
func (s *Service) RollSecret(ctx context.Context, account, id string) (string, error) {
	key := NewSecret()
	now := s.clock()
	_, err := s.change(ctx, account, id, "roll the secret of", func(_ state.Tx, e *endpoint) error {
		old := e.Secrets[0]
		old.Expires = now.Add(SecretOverlap)
		e.Secrets = []secret{{Key: key}, old} // older rolled secrets end now
		return nil
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// SetEnabled enables or disables endpoint id. Enabling a disabled endpoint
// resumes delivery with the messages still queued (a fresh count of
// failures).
func (s *Service) SetEnabled(ctx context.Context, account, id string, enabled bool) (Endpoint, error) {
	now := s.clock()
	return s.change(ctx, account, id, "enable", func(tx state.Tx, e *endpoint) error {
		if !enabled {
			if e.Disabled == nil {
				e.Disabled = &Disabled{At: now, Reason: "disabled by its owner"}
			}
			return nil
		}
		e.Disabled = nil
		c, err := getCursor(tx, e.ID)
		if err != nil {
			return err
		}
		c.FailingSince, c.Next, c.Attempt = time.Time{}, now, 0
		return cursors.Put(tx, e.ID, c, 0)
	})
}

// Delete deletes endpoint id with its queue, cursor and log. ENOTFOUND.
func (s *Service) Delete(ctx context.Context, account, id string) error {
	if err := checkAccount(account); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	return wrap("delete endpoint "+id, s.o.State.Update(ctx, func(tx state.Tx) error {
		if _, err := get(tx, account, id); err != nil {
			return err
		}
		return deleteEndpoint(tx, account, id)
	}))
}

func deleteEndpoint(tx state.Tx, account, id string) error {
	for _, b := range []state.Bucket{state.WebhookQueue, state.WebhookLog} {
		if err := deletePrefix(tx, b, id+"/"); err != nil {
			return err
		}
	}
	if err := cursors.Delete(tx, id); err != nil {
		return err
	}
	if err := leases.Delete(tx, "webhook/"+id); err != nil {
		return err
	}
	return endpoints.Delete(tx, account+"/"+id)
}

func deletePrefix(tx state.Tx, b state.Bucket, prefix string) error {
	var keys []string
	if err := tx.Scan(b, state.ScanOptions{Prefix: prefix}, func(k string, _ []byte) error {
		keys = append(keys, k)
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(b, k); err != nil {
			return err
		}
	}
	return nil
}

// wrap wraps a store error with what was done; errors with a code pass as
// they are.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var se *apperr.Error
	var fe apperr.FieldErrors
	if errors.As(err, &se) || errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("webhook: %s: %w", what, err)
}
