package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/webhook"
)

var (
	ctx = context.Background()
	lim = webhook.Limits{Endpoints: 3}
)

// stores runs fn against a bbolt store and a Redis store (skipped without
// redis-server). The clock starts now (receivers check timestamps against
// the wall clock) and moves only when a test moves it.
func stores(t *testing.T, fn func(t *testing.T, st state.Store, clock *statetest.Clock)) {
	t.Run("bolt", func(t *testing.T) {
		clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
		fn(t, statetest.MustOpenPath(t, t.TempDir()+"/state.bolt", statebolt.Options{Now: clock.Now}), clock)
	})
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t, false)
		clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
		st, err := stateredis.Open(srv.URL(), stateredis.Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		fn(t, st, clock)
	})
}

// MustService returns a service over st delivering to private addresses
// (the test receivers listen on 127.0.0.1), retrying after 1, 2, 3 ...
// seconds.
func MustService(tb testing.TB, st state.Store, clock *statetest.Clock, o webhook.Options) *webhook.Service {
	tb.Helper()
	o.State, o.Now = st, clock.Now
	if o.Backoff == nil {
		o.Backoff = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second}
	}
	if o.Guard == (webhook.Guard{}) {
		o.Guard.AllowPrivate = true
	}
	o.Timeout = 5 * time.Second
	s, err := webhook.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Receiver is a test endpoint that verifies every delivery with the
// official Standard Webhooks library and answers with the statuses given,
// then 200.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	secrets  []string
	statuses []int
	// IgnoreTime verifies signatures whatever the timestamp (tests that
	// move the clock by days).
	IgnoreTime bool
	// Got lists the verified deliveries' webhook ids, in arrival order;
	// Bad the deliveries that did not verify.
	Got  []string
	Bad  []string
	Body []map[string]any
}

func MustReceiver(tb testing.TB, statuses ...int) *Receiver {
	tb.Helper()
	r := &Receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		id := req.Header.Get("webhook-id")
		ok := len(r.secrets) == 0
		for _, sec := range r.secrets {
			wh, err := standardwebhooks.NewWebhook(sec)
			if err != nil {
				tb.Errorf("the official library refuses secret %q: %v", sec, err)
				continue
			}
			verify := wh.Verify
			if r.IgnoreTime {
				verify = wh.VerifyIgnoringTimestamp
			}
			if err := verify(body, req.Header); err == nil {
				ok = true
			}
		}
		if ok {
			r.Got = append(r.Got, id)
			var m map[string]any
			json.Unmarshal(body, &m)
			r.Body = append(r.Body, m)
		} else {
			r.Bad = append(r.Bad, id)
		}
		status := 200
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d to %s", status, id)
	}))
	tb.Cleanup(r.Close)
	return r
}

// Verify makes the receiver accept only deliveries signed with one of
// secrets (the official library checks them).
func (r *Receiver) Verify(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = secrets
}

func (r *Receiver) got() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.Got), slices.Clone(r.Bad)
}

func MustCreate(tb testing.TB, s *webhook.Service, account, url string) (webhook.Endpoint, string) {
	tb.Helper()
	e, secret, err := s.Create(ctx, account, webhook.EndpointInput{URL: url}, lim)
	if err != nil {
		tb.Fatal(err)
	}
	return e, secret
}

// MustEnqueue queues messages for account's endpoints, one transaction each.
func MustEnqueue(tb testing.TB, st state.Store, s *webhook.Service, account string, ids ...string) {
	tb.Helper()
	for _, id := range ids {
		m := webhook.Message{ID: id, Type: "alert.triggered", Time: time.Now(), Data: json.RawMessage(`{"n":"` + id + `"}`)}
		if err := st.Update(ctx, func(tx state.Tx) error { return s.Enqueue(tx, account, m) }); err != nil {
			tb.Fatal(err)
		}
	}
}

func MustDeliver(tb testing.TB, s *webhook.Service) int {
	tb.Helper()
	n, err := s.Deliver(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func TestSign_OfficialLibrary(t *testing.T) {
	old, cur := webhook.NewSecret(), webhook.NewSecret()
	ko, _ := webhook.DecodeSecret(old)
	kc, _ := webhook.DecodeSecret(cur)
	body := []byte(`{"type":"x","timestamp":"2026-11-20T12:00:00Z","data":{}}`)
	now := time.Now()
	h := http.Header{}
	h.Set("webhook-id", "msg_1")
	h.Set("webhook-timestamp", fmt.Sprint(now.Unix()))
	h.Set("webhook-signature", webhook.Sign([][]byte{kc, ko}, "msg_1", now, body))
	for _, sec := range []string{cur, old} {
		wh, _ := standardwebhooks.NewWebhook(sec)
		if err := wh.Verify(body, h); err != nil {
			t.Errorf("the official library refuses a signature with %s: %v", sec, err)
		}
		want, _ := wh.Sign("msg_1", now, body)
		if !strings.Contains(h.Get("webhook-signature"), want) {
			t.Errorf("signature %s lacks the official one %s", h.Get("webhook-signature"), want)
		}
	}
	wh, _ := standardwebhooks.NewWebhook(webhook.NewSecret())
	if err := wh.Verify(body, h); err == nil {
		t.Error("another secret verifies")
	}
	if _, err := webhook.DecodeSecret("whsec_short"); err == nil {
		t.Error("a short secret decodes")
	}
}

// TestService_Deliver_Retry: a receiver that answers 500 three times, then
// 200, gets the message a fourth time; the log shows four attempts.
func TestService_Deliver_Retry(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		s := MustService(t, st, clock, webhook.Options{})
		rcv := MustReceiver(t, 500, 500, 500)
		e, secret := MustCreate(t, s, "a_1", rcv.URL)
		rcv.Verify(secret)
		MustEnqueue(t, st, s, "a_1", "msg_1")
		var delays []time.Duration
		for i := 0; i < 4; i++ {
			if n := MustDeliver(t, s); n != 1 {
				t.Fatalf("pass %d made %d attempts", i, n)
			}
			if n := MustDeliver(t, s); n != 0 {
				t.Fatalf("pass %d: %d attempts before the backoff ended", i, n)
			}
			v, _ := s.Get(ctx, "a_1", e.ID)
			if v.NextAttempt != nil {
				delays = append(delays, v.NextAttempt.Sub(clock.Now()))
				clock.Advance(v.NextAttempt.Sub(clock.Now()))
			}
		}
		got, bad := rcv.got()
		if want := []string{"msg_1", "msg_1", "msg_1", "msg_1"}; !slices.Equal(got, want) || len(bad) > 0 {
			t.Fatalf("receiver got %v (not verified: %v), want %v", got, bad, want)
		}
		if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(delays, want) {
			t.Errorf("backoff %v, want %v", delays, want)
		}
		log, _, err := s.Log(ctx, "a_1", e.ID, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, a := range log {
			lines = append(lines, fmt.Sprintf("%d %d %s %q", a.Attempt, a.Status, a.Outcome, a.Response))
		}
		want := []string{`4 200 delivered "answer 200 to msg_1"`, `3 500 retrying "answer 500 to msg_1"`, `2 500 retrying "answer 500 to msg_1"`, `1 500 retrying "answer 500 to msg_1"`}
		if !slices.Equal(lines, want) {
			t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
		if v, _ := s.Get(ctx, "a_1", e.ID); v.Pending != 0 || v.FailingSince != nil {
			t.Fatalf("after the delivery: %+v", v)
		}
	})
}

// TestService_Deliver_Order: one endpoint gets its messages in the order
// queued, one at a time, even from two processes delivering at once; each
// exactly once.
func TestService_Deliver_Order(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		var inFlight, most int
		var mu sync.Mutex
		var order []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			order = append(order, r.Header.Get("webhook-id"))
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			inFlight--
			mu.Unlock()
		}))
		defer srv.Close()
		a := MustService(t, st, clock, webhook.Options{Holder: "a"})
		b := MustService(t, st, clock, webhook.Options{Holder: "b"})
		MustCreate(t, a, "a_1", srv.URL)
		var ids []string
		for i := range 20 {
			ids = append(ids, fmt.Sprintf("msg_%02d", i))
		}
		MustEnqueue(t, st, a, "a_1", ids...)
		var wg sync.WaitGroup
		for _, s := range []*webhook.Service{a, b, a, b} {
			wg.Add(1)
			go func() { defer wg.Done(); s.Deliver(ctx) }()
		}
		wg.Wait()
		MustDeliver(t, a)
		if !slices.Equal(order, ids) || most != 1 {
			t.Fatalf("order %v (at most %d at once), want %v one at a time", order, most, ids)
		}
	})
}

// TestService_Disable: an endpoint failing for 5 days is disabled with a
// notice; messages are given up after the last retry; enabling resumes.
func TestService_Disable(t *testing.T) {
	clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	day := 24 * time.Hour
	s := MustService(t, st, clock, webhook.Options{Backoff: []time.Duration{day, day}})
	statuses := make([]int, 100)
	for i := range statuses {
		statuses[i] = 503
	}
	rcv := MustReceiver(t, statuses...)
	e, _ := MustCreate(t, s, "a_1", rcv.URL)
	MustEnqueue(t, st, s, "a_1", "msg_1", "msg_2", "msg_3")
	var outcomes []string
	for range 10 {
		MustDeliver(t, s)
		clock.Advance(day)
	}
	log, _, _ := s.Log(ctx, "a_1", e.ID, 100, "")
	for _, a := range slices.Backward(log) {
		outcomes = append(outcomes, a.MessageID+":"+a.Outcome)
	}
	// Each message is tried 3 times (days 0-2, 2-4, 4-5: a message given
	// up makes room for the next at once); on day 5 the endpoint has failed
	// for 5 days and is disabled.
	want := []string{"msg_1:retrying", "msg_1:retrying", "msg_1:gave_up", "msg_2:retrying", "msg_2:retrying", "msg_2:gave_up", "msg_3:retrying", "msg_3:retrying"}
	if !slices.Equal(outcomes, want) {
		t.Fatalf("attempts %v, want %v", outcomes, want)
	}
	v, _ := s.Get(ctx, "a_1", e.ID)
	ns, _ := s.Notices(ctx, "a_1")
	if v.Disabled == nil || len(ns) != 1 || ns[0].What != "endpoint_disabled" || !strings.Contains(ns[0].Message, rcv.URL) {
		t.Fatalf("endpoint %+v, notices %+v", v, ns)
	}
	// Disabled: nothing queued, no attempt; a test event is refused.
	MustEnqueue(t, st, s, "a_1", "msg_4")
	if n := MustDeliver(t, s); n != 0 {
		t.Fatalf("%d attempts to a disabled endpoint", n)
	}
	if _, err := s.SendTest(ctx, "a_1", e.ID); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Fatalf("test event to a disabled endpoint: %v", err)
	}
	if _, err := s.SetEnabled(ctx, "a_1", e.ID, true); err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	rcv.statuses = nil
	rcv.mu.Unlock()
	id, err := s.SendTest(ctx, "a_1", e.ID)
	if err != nil {
		t.Fatal(err)
	}
	MustDeliver(t, s)
	if got, _ := rcv.got(); !slices.Equal(got[len(got)-2:], []string{"msg_3", id}) {
		t.Fatalf("after enabling, the receiver got %v, want msg_3 (still queued) and the test event %s last", got, id)
	}
}

// TestService_RollSecret: for 24 hours deliveries carry the old and the new
// signature, then only the new.
func TestService_RollSecret(t *testing.T) {
	clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	s := MustService(t, st, clock, webhook.Options{})
	var sigs []int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sigs = append(sigs, len(strings.Fields(r.Header.Get("webhook-signature"))))
		mu.Unlock()
	}))
	defer srv.Close()
	e, old := MustCreate(t, s, "a_1", srv.URL)
	cur, err := s.RollSecret(ctx, "a_1", e.ID)
	if err != nil || cur == old {
		t.Fatal(err)
	}
	if got, _ := s.Secret(ctx, "a_1", e.ID); got != cur {
		t.Fatalf("secret %s, want the new one", got)
	}
	rcvOld, rcvNew := MustReceiver(t), MustReceiver(t)
	rcvOld.IgnoreTime, rcvNew.IgnoreTime = true, true
	rcvOld.Verify(old)
	rcvNew.Verify(cur)
	for _, r := range []*Receiver{rcvOld, rcvNew} {
		if _, err := s.Update(ctx, "a_1", e.ID, webhook.EndpointInput{URL: r.URL}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SendTest(ctx, "a_1", e.ID); err != nil {
			t.Fatal(err)
		}
		MustDeliver(t, s)
	}
	for _, r := range []*Receiver{rcvOld, rcvNew} {
		if got, bad := r.got(); len(got) != 1 || len(bad) != 0 {
			t.Fatalf("during the overlap: verified %v, refused %v", got, bad)
		}
	}
	clock.Advance(webhook.SecretOverlap)
	for _, r := range []*Receiver{rcvOld, rcvNew} {
		s.Update(ctx, "a_1", e.ID, webhook.EndpointInput{URL: r.URL})
		s.SendTest(ctx, "a_1", e.ID)
		MustDeliver(t, s)
	}
	if got, bad := rcvOld.got(); len(got) != 1 || len(bad) != 1 {
		t.Fatalf("old secret after the overlap: verified %v, refused %v", got, bad)
	}
	if got, bad := rcvNew.got(); len(got) != 2 || len(bad) != 0 {
		t.Fatalf("new secret after the overlap: verified %v, refused %v", got, bad)
	}
}

// resolver answers a host's lookups with addrs in turn (the last one
// again when they run out).
type resolver struct {
	mu    sync.Mutex
	addrs []string
	n     int
}

func (r *resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.addrs[min(r.n, len(r.addrs)-1)]
	r.n++
	return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
}

// TestGuard_Refused: URLs to the server's own network or a metadata service
// are refused at creation and at delivery, DNS rebinding included.
func TestGuard_Refused(t *testing.T) {
	clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	rcv := MustReceiver(t)
	port := rcv.URL[strings.LastIndex(rcv.URL, ":")+1:]
	guarded := MustService(t, st, clock, webhook.Options{Guard: webhook.Guard{Resolver: &resolver{addrs: []string{"127.0.0.1"}}}})
	for _, url := range []string{rcv.URL, "http://169.254.169.254/latest/meta-data/", "http://[::1]:" + port, "http://[::ffff:127.0.0.1]/",
		"http://10.0.0.8/", "http://100.64.1.1/", "http://0.0.0.0:" + port, "http://hooks.example.test:" + port + "/"} {
		_, _, err := guarded.Create(ctx, "a_1", webhook.EndpointInput{URL: url}, lim)
		if apperr.ErrorCode(err) != apperr.EINVALID || !strings.Contains(err.Error(), "refused") {
			t.Errorf("create %s: %v, want EINVALID refused", url, err)
		}
	}
	open := MustService(t, st, clock, webhook.Options{Guard: webhook.Guard{AllowPrivate: true}})
	if _, _, err := open.Create(ctx, "a_1", webhook.EndpointInput{URL: "http://169.254.169.254/"}, lim); err == nil {
		t.Error("a metadata address is accepted with private addresses allowed")
	}
	// Created where private addresses were allowed, delivered by a guarded
	// process: refused at the dial, nothing reaches the receiver.
	e, _ := MustCreate(t, open, "a_1", rcv.URL)
	// Rebinding: a public address at creation, 127.0.0.1 at delivery.
	rebind := MustService(t, st, clock, webhook.Options{Guard: webhook.Guard{Resolver: &resolver{addrs: []string{"93.184.215.14", "127.0.0.1"}}}})
	e2, _ := MustCreate(t, rebind, "a_2", "http://hooks.example.test:"+port+"/")
	MustEnqueue(t, st, open, "a_1", "msg_1")
	MustEnqueue(t, st, open, "a_2", "msg_2")
	MustDeliver(t, guarded)
	MustDeliver(t, rebind)
	if got, bad := rcv.got(); len(got)+len(bad) != 0 {
		t.Fatalf("the receiver got %v %v", got, bad)
	}
	for _, c := range []struct{ account, id string }{{"a_1", e.ID}, {"a_2", e2.ID}} {
		log, _, _ := open.Log(ctx, c.account, c.id, 5, "")
		if len(log) != 1 || log[0].Status != 0 || !strings.HasPrefix(log[0].Error, "refused: ") || !strings.Contains(log[0].Error, "loopback") {
			t.Errorf("log of %s: %+v, want one attempt refused (loopback)", c.id, log)
		}
	}
}

func TestGuard_CheckIP(t *testing.T) {
	for _, tc := range []struct {
		ip      string
		refused bool
	}{
		{"93.184.215.14", false}, {"2606:4700::6810:85e5", false}, {"8.8.8.8", false},
		{"127.0.0.1", true}, {"127.1.2.3", true}, {"::1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"172.31.255.255", true},
		{"192.168.1.1", true}, {"169.254.169.254", true}, {"169.254.1.1", true}, {"100.64.0.1", true}, {"100.127.255.255", true},
		{"224.0.0.1", true}, {"ff02::1", true}, {"0.0.0.0", true}, {"::", true}, {"::ffff:8.8.8.8", true}, {"::ffff:127.0.0.1", true},
		{"fe80::1", true}, {"fc00::1", true}, {"fd00:ec2::254", true}, {"255.255.255.255", true}, {"64:ff9b::7f00:1", true},
		{"2002:7f00:1::", true}, {"198.18.0.1", true}, {"192.0.0.192", true},
	} {
		err := webhook.Guard{}.CheckIP(netip.MustParseAddr(tc.ip))
		if (err != nil) != tc.refused || err != nil && !errors.Is(err, webhook.ErrRefused) {
			t.Errorf("CheckIP(%s) = %v, want refused %v", tc.ip, err, tc.refused)
		}
	}
	allow := webhook.Guard{AllowPrivate: true}
	for _, ip := range []string{"127.0.0.1", "10.0.0.1", "::1"} {
		if err := allow.CheckIP(netip.MustParseAddr(ip)); err != nil {
			t.Errorf("allowed %s: %v", ip, err)
		}
	}
	for _, ip := range []string{"169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254", "100.100.100.200"} {
		if err := allow.CheckIP(netip.MustParseAddr(ip)); err == nil {
			t.Errorf("metadata %s allowed", ip)
		}
	}
}

func TestGuard_ParseURL(t *testing.T) {
	g := webhook.Guard{}
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://hooks.example.com/cardedge", true}, {"http://hooks.example.com:8080/x?y=1", true}, {"https://93.184.215.14/", true},
		{"", false}, {"ftp://example.com/", false}, {"https://user:pw@example.com/", false}, {"https://example.com/#x", false},
		{"https:///x", false}, {"https://example.com:0/", false}, {"https://example.com:99999/", false}, {"https://exa mple.com/", false},
		{"https://127.0.0.1/", false}, {"https://[fe80::1%25eth0]/", false}, {"//example.com/", false}, {"https://example.com:/", false},
		{"https://-bad-.com/", false}, {"http://2130706433/", false}, {"http://0x7f000001/", false}, {"http://127.1/", false}, {"http://0x7f.1/", false}, {"https://" + strings.Repeat("a", 2000) + ".com/", false}, {"mailto:x@example.com", false},
	} {
		_, err := g.ParseURL(tc.url)
		if (err == nil) != tc.ok {
			t.Errorf("ParseURL(%.40q) = %v, want ok %v", tc.url, err, tc.ok)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/x", "http://127.0.0.1:8080/", "http://[::1]/", "https://a.b:1/?q#f",
		"http://0x7f.1/", "http://2130706433/", "http://[::ffff:7f00:1]/", "https://例え.jp/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := webhook.Guard{}.ParseURL(raw)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" || u.User != nil {
			t.Fatalf("accepted %q: %+v", raw, u)
		}
		if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
			if (webhook.Guard{}).CheckIP(ip) != nil {
				t.Fatalf("accepted %q with a refused address", raw)
			}
		}
	})
}

func TestService_Create(t *testing.T) {
	clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	s := MustService(t, st, clock, webhook.Options{})
	if _, _, err := s.Create(ctx, "a_1", webhook.EndpointInput{URL: "https://127.0.0.1/"}, webhook.Limits{}); apperr.ErrorCode(err) != apperr.EFORBIDDEN {
		t.Fatalf("tier without webhooks: %v", err)
	}
	_, _, err := s.Create(ctx, "a_1", webhook.EndpointInput{URL: "nope", Types: []string{"Bad Type"}, Description: strings.Repeat("x", 300)}, lim)
	var fe apperr.FieldErrors
	if !errors.As(err, &fe) || len(fe) != 3 {
		t.Fatalf("bad input: %v, want 3 field errors", err)
	}
	for range lim.Endpoints {
		MustCreate(t, s, "a_1", "http://127.0.0.1:9/")
	}
	if _, _, err := s.Create(ctx, "a_1", webhook.EndpointInput{URL: "http://127.0.0.1:9/"}, lim); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Fatalf("one too many: %v", err)
	}
	es, _ := s.List(ctx, "a_1")
	if len(es) != lim.Endpoints {
		t.Fatalf("%d endpoints", len(es))
	}
	if err := s.Delete(ctx, "a_1", es[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "a_1", es[0].ID); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("deleted endpoint: %v", err)
	}
	if _, err := s.Get(ctx, "a_2", es[1].ID); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("another account's endpoint: %v", err)
	}
}

// TestDeleteAccount: an account's export holds its endpoints, queue and log;
// its deletion leaves nothing of it in any webhook bucket.
func TestDeleteAccount(t *testing.T) {
	clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second))
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	s := MustService(t, st, clock, webhook.Options{})
	rcv := MustReceiver(t, 500)
	e, _ := MustCreate(t, s, "a_1", rcv.URL)
	other, _ := MustCreate(t, s, "a_2", rcv.URL)
	MustEnqueue(t, st, s, "a_1", "msg_1", "msg_2")
	MustDeliver(t, s)
	x, err := s.Export(ctx, "a_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Endpoints) != 1 || len(x.Endpoints[0].Queued) != 2 || len(x.Endpoints[0].Log) != 1 {
		t.Fatalf("export %+v", x)
	}
	if b, _ := json.Marshal(x); strings.Contains(string(b), "whsec_") {
		t.Fatal("the export holds a secret")
	}
	if err := s.DeleteAll(ctx, "a_1"); err != nil {
		t.Fatal(err)
	}
	st.View(ctx, func(tx state.Tx) error {
		for _, b := range []state.Bucket{state.WebhookEndpoints, state.WebhookQueue, state.WebhookCursors, state.WebhookLog, state.WebhookNotices, state.Leases} {
			tx.Scan(b, state.ScanOptions{}, func(k string, _ []byte) error {
				if strings.Contains(k, e.ID) || strings.HasPrefix(k, "a_1/") {
					t.Errorf("left after the deletion: %s %s", b, k)
				}
				return nil
			})
		}
		return nil
	})
	if _, err := s.Get(ctx, "a_2", other.ID); err != nil {
		t.Fatalf("another account's endpoint: %v", err)
	}
}
