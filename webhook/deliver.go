package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Outcomes of an attempt.
const (
	Delivered = "delivered" // a 2xx answer
	Retrying  = "retrying"  // failed; another attempt at NextAttempt
	GaveUp    = "gave_up"   // failed for the last time: the message is dropped
)

// Attempt is one delivery attempt, as the delivery log shows it.
type Attempt struct {
	Time      time.Time `json:"time"`
	MessageID string    `json:"message_id"`
	Type      string    `json:"type"`
	Attempt   int       `json:"attempt"` // 1 for the first
	Status    int       `json:"status"`  // the HTTP status; 0 when there was no answer
	LatencyMS float64   `json:"latency_ms"`
	// Response is the first bytes of the answer's body (Options.
	// ResponseBytes; invalid UTF-8 replaced).
	Response    string     `json:"response"`
	Error       string     `json:"error,omitempty"` // why there was no answer
	Outcome     string     `json:"outcome"`
	NextAttempt *time.Time `json:"next_attempt,omitempty"`
}

// Notice is a message for the dashboard about an endpoint.
type Notice struct {
	Time       time.Time `json:"time"`
	EndpointID string    `json:"endpoint_id"`
	URL        string    `json:"url"`
	What       string    `json:"what"` // "endpoint_disabled"
	Message    string    `json:"message"`
}

// ErrLeaseLost means another process took an endpoint's delivery over while
// this one was attempting (it stalled past its lease).
var ErrLeaseLost = errors.New("webhook: delivery lease lost")

// maxBurst is how many messages one endpoint gets in a row before the pass
// moves on.
const maxBurst = 100

func (s *Service) leaseTTL() time.Duration { return 3*s.o.Timeout + 30*time.Second }

// Deliver makes one pass: every enabled endpoint with a message due gets its
// messages in order, one at a time, until one fails or none is due, with
// Options.Workers endpoints at once. Endpoints another process is
// delivering to are skipped. It returns the number of attempts made.
func (s *Service) Deliver(ctx context.Context) (int, error) {
	due, err := s.due(ctx)
	if err != nil {
		return 0, err
	}
	var (
		mu    sync.Mutex
		n     int
		first error
		wg    sync.WaitGroup
		sem   = make(chan struct{}, s.o.Workers)
	)
	for _, e := range due {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			k, err := s.deliverEndpoint(ctx, e.Account, e.ID)
			mu.Lock()
			n += k
			if err != nil && first == nil {
				first = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return n, first
}

// due returns the enabled endpoints with a message due now.
func (s *Service) due(ctx context.Context) ([]endpoint, error) {
	now := s.clock()
	var out []endpoint
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		out = out[:0]
		cs := map[string]cursor{}
		if err := cursors.Scan(tx, state.ScanOptions{}, func(k string, c cursor) error { cs[k] = c; return nil }); err != nil {
			return err
		}
		return endpoints.Scan(tx, state.ScanOptions{}, func(_ string, e endpoint) error {
			c := cs[e.ID]
			if e.Disabled == nil && e.Seq > c.Done && !c.Next.After(now) {
				out = append(out, e)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("webhook: find due endpoints: %w", err)
	}
	return out, nil
}

// Run delivers every interval until ctx ends.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.Deliver(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// take takes (or renews) the delivery lease of endpoint id: false when
// another process holds it.
func (s *Service) take(ctx context.Context, id string) (bool, error) {
	got := false
	err := s.o.State.Update(ctx, func(tx state.Tx) error {
		got = false
		l, err := leases.Get(tx, "webhook/"+id)
		if err == nil && l.Holder != s.o.Holder {
			return nil
		}
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		got = true
		return leases.Put(tx, "webhook/"+id, lease{Holder: s.o.Holder}, s.leaseTTL())
	})
	return got, err
}

func (s *Service) release(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	s.o.State.Update(ctx, func(tx state.Tx) error {
		l, err := leases.Get(tx, "webhook/"+id)
		if err != nil || l.Holder != s.o.Holder {
			return nil
		}
		return leases.Delete(tx, "webhook/"+id)
	})
}

// deliverEndpoint delivers endpoint id's due messages in order, holding its
// lease (concurrency 1 per endpoint across processes).
func (s *Service) deliverEndpoint(ctx context.Context, account, id string) (int, error) {
	s.mu.Lock()
	busy := s.inflight[id]
	s.inflight[id] = true
	s.mu.Unlock()
	if busy {
		return 0, nil // this process is delivering to it already
	}
	defer func() {
		s.mu.Lock()
		delete(s.inflight, id)
		s.mu.Unlock()
	}()
	got, err := s.take(ctx, id)
	if err != nil || !got {
		return 0, err
	}
	defer s.release(id)
	n := 0
	for range maxBurst {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		var (
			e    endpoint
			c    cursor
			head *message
		)
		err := s.o.State.View(ctx, func(tx state.Tx) error {
			var err error
			head = nil
			if e, err = get(tx, account, id); err != nil {
				return err
			}
			if c, err = getCursor(tx, id); err != nil {
				return err
			}
			return queue.Scan(tx, state.ScanOptions{Prefix: id + "/", Limit: 1}, func(_ string, m message) error {
				head = &m
				return nil
			})
		})
		if apperr.ErrorCode(err) == apperr.ENOTFOUND {
			return n, nil // deleted meanwhile
		}
		if err != nil {
			return n, fmt.Errorf("webhook: read endpoint %s: %w", id, err)
		}
		now := s.clock()
		if e.Disabled != nil || e.Seq <= c.Done || c.Next.After(now) {
			return n, nil
		}
		if head == nil { // the rest expired (QueueTTL)
			return n, s.commit(ctx, account, id, func(tx state.Tx, e *endpoint, c *cursor) error {
				c.Done, c.Attempt, c.Next = e.Seq, 0, time.Time{}
				return nil
			})
		}
		a := s.attempt(ctx, e, head, c.Attempt+1)
		n++
		err = s.commit(ctx, account, id, func(tx state.Tx, e *endpoint, c *cursor) error {
			return s.record(tx, e, c, head, &a)
		})
		if err != nil || a.Outcome == Retrying {
			return n, err
		}
	}
	return n, nil
}

// commit runs fn on endpoint id and its cursor in one transaction that
// first checks this process still holds the endpoint's lease (and renews
// it).
func (s *Service) commit(ctx context.Context, account, id string, fn func(tx state.Tx, e *endpoint, c *cursor) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateTimeout)
	defer cancel()
	err := s.o.State.Update(ctx, func(tx state.Tx) error {
		l, err := leases.Get(tx, "webhook/"+id)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		if err != nil || l.Holder != s.o.Holder {
			return ErrLeaseLost
		}
		e, err := get(tx, account, id)
		if err != nil {
			return err
		}
		c, err := getCursor(tx, id)
		if err != nil {
			return err
		}
		before := e
		if err := fn(tx, &e, &c); err != nil {
			return err
		}
		if e.Disabled != before.Disabled {
			if err := endpoints.Put(tx, account+"/"+id, e, 0); err != nil {
				return err
			}
		}
		if err := cursors.Put(tx, id, c, 0); err != nil {
			return err
		}
		return leases.Put(tx, "webhook/"+id, lease{Holder: s.o.Holder}, s.leaseTTL())
	})
	if err != nil && !errors.Is(err, ErrLeaseLost) && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return fmt.Errorf("webhook: record a delivery to %s: %w", id, err)
	}
	if apperr.ErrorCode(err) == apperr.ENOTFOUND {
		return nil
	}
	return err
}

// record writes attempt a of message m to e and its cursor c: the log, the
// message's fate, the next attempt, and the endpoint's disabling after
// failing for DisableAfter.
func (s *Service) record(tx state.Tx, e *endpoint, c *cursor, m *message, a *Attempt) error {
	now := a.Time
	c.LastStatus, c.LastAttempt = a.Status, now
	if a.Outcome == Delivered {
		c.Done, c.Attempt, c.Next, c.FailingSince = m.Seq, 0, time.Time{}, time.Time{}
		if err := queue.Delete(tx, queueKey(e.ID, m.Seq)); err != nil {
			return err
		}
	} else {
		c.Attempt = a.Attempt
		if c.FailingSince.IsZero() {
			c.FailingSince = now
		}
		if c.Attempt > len(s.o.Backoff) {
			a.Outcome = GaveUp
			c.Done, c.Attempt, c.Next = m.Seq, 0, time.Time{}
			if err := queue.Delete(tx, queueKey(e.ID, m.Seq)); err != nil {
				return err
			}
		} else {
			c.Next = now.Add(s.o.Backoff[c.Attempt-1])
			next := c.Next
			a.NextAttempt = &next
		}
		if now.Sub(c.FailingSince) >= s.o.DisableAfter && e.Disabled == nil {
			e.Disabled = &Disabled{At: now, Reason: fmt.Sprintf("deliveries failed for %s (since %s)", roundDays(now.Sub(c.FailingSince)), c.FailingSince.Format(time.RFC3339))}
			n := Notice{Time: now, EndpointID: e.ID, URL: e.URL, What: "endpoint_disabled",
				Message: "The webhook endpoint " + e.URL + " was disabled: " + e.Disabled.Reason + ". Fix it, then enable it again: queued messages resume."}
			if err := notices.Put(tx, fmt.Sprintf("%s/%016x/%s", e.Account, now.UnixNano(), e.ID), n, NoticeTTL); err != nil {
				return err
			}
		}
	}
	return logs.Put(tx, fmt.Sprintf("%s/%016x/%016x/%04x", e.ID, now.UnixNano(), m.Seq, a.Attempt), *a, LogTTL)
}

func roundDays(d time.Duration) string {
	days := d.Hours() / 24
	return strconv.FormatFloat(days, 'f', 1, 64) + " days"
}

// attempt sends message m to e (attempt number n) and says how it went
// (Outcome Delivered or Retrying; record decides a give-up).
func (s *Service) attempt(ctx context.Context, e endpoint, m *message, n int) Attempt {
	now := s.clock()
	a := Attempt{Time: now, MessageID: m.ID, Type: m.Type, Attempt: n, Outcome: Retrying}
	var keys [][]byte
	for i, sec := range e.Secrets {
		if i > 0 && !sec.Expires.After(now) {
			continue
		}
		if k, err := DecodeSecret(sec.Key); err == nil {
			keys = append(keys, k)
		}
	}
	body := m.Body()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.o.UserAgent)
	req.Header.Set(HeaderID, m.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(keys, m.ID, now, body))
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		a.LatencyMS = ms(time.Since(start))
		a.Error = describe(err)
		return a
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, int64(s.o.ResponseBytes)))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	a.LatencyMS = ms(time.Since(start))
	a.Status = resp.StatusCode
	a.Response = strings.ToValidUTF8(string(head), string(utf8.RuneError))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		a.Outcome = Delivered
	}
	return a
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// describe says why a request got no answer, without the URL (which the log
// shows beside it).
func describe(err error) string {
	if errors.Is(err, ErrRefused) {
		var b strings.Builder
		b.WriteString("refused: ")
		msg := err.Error()
		if i := strings.Index(msg, ErrRefused.Error()); i >= 0 {
			msg = msg[i:]
		}
		b.WriteString(msg)
		return b.String()
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") {
		return "timeout: no answer in time"
	}
	return err.Error()
}

// Log returns endpoint id's delivery log newest first: at most limit (1 to
// 500) attempts after the page cursor after, and the next page's cursor.
func (s *Service) Log(ctx context.Context, account, id string, limit int, after string) ([]Attempt, string, error) {
	if err := checkAccount(account); err != nil {
		return nil, "", err
	}
	if limit < 1 || limit > 500 {
		return nil, "", apperr.Errorf(apperr.EINVALID, "limit %d: want 1 to 500", limit)
	}
	if after != "" {
		after = id + "/" + after
	}
	var out []Attempt
	var keys []string
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		out, keys = []Attempt{}, nil
		if _, err := get(tx, account, id); err != nil {
			return err
		}
		return logs.Scan(tx, state.ScanOptions{Prefix: id + "/", After: after, Reverse: true, Limit: limit + 1}, func(k string, a Attempt) error {
			out, keys = append(out, a), append(keys, k)
			return nil
		})
	})
	next := ""
	if len(out) > limit {
		out, next = out[:limit], strings.TrimPrefix(keys[limit-1], id+"/")
	}
	return out, next, wrap("read the log of "+id, err)
}

// Notices returns account's notices, newest first (at most 100).
func (s *Service) Notices(ctx context.Context, account string) ([]Notice, error) {
	if err := checkAccount(account); err != nil {
		return nil, err
	}
	var out []Notice
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		out = []Notice{}
		return notices.Scan(tx, state.ScanOptions{Prefix: account + "/", Reverse: true, Limit: 100}, func(_ string, n Notice) error {
			out = append(out, n)
			return nil
		})
	})
	return out, wrap("read notices", err)
}
