package access_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/google/go-cmp/cmp"
)

func TestService_Charge_Quota(t *testing.T) {
	path := StatePath(t)
	secret, _ := MustKey(t, path, access.Free, false, false)
	clock := NewClock(t, "2026-11-05T22:00:00Z")
	s := MustOpen(t, path, clock)
	c := MustAuth(t, s, secret)

	for i := 1; i <= 100; i++ {
		clock.Advance(time.Second) // keep the rate bucket out of the way
		d, err := s.Charge(c, 1)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got, want := d.Remaining, 100-i; got != want {
			t.Fatalf("request %d: Remaining = %d, want %d", i, got, want)
		}
	}
	clock.Set("2026-11-05T23:00:00Z")
	d, err := s.Charge(c, 1)
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.EQUOTA {
		t.Fatalf("101st: err = %v, want EQUOTA", err)
	}
	want := access.Decision{
		Reason: access.ReasonQuota, RetryAfter: 3600, Tier: access.Free,
		Limit: 100, Remaining: 0, Reset: 3600, RateRemaining: 10, RateReset: 0,
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("101st decision (-want +got):\n%s", diff)
	}

	// A refused request spends nothing, and the quota resets at 00:00 UTC.
	clock.Set("2026-11-06T00:00:00Z")
	d, err = s.Charge(c, 1)
	if err != nil || d.Remaining != 99 || d.Reset != 86400 {
		t.Fatalf("next day: %+v, %v", d, err)
	}
}

func TestService_Charge_Units(t *testing.T) {
	path := StatePath(t)
	secret, _ := MustKey(t, path, access.Pro, false, false)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	s := MustOpen(t, path, clock)
	c := MustAuth(t, s, secret)

	for i := range 39 { // a batch takes one rate token however many ids it has
		if _, err := s.Charge(c, 50); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	d, err := s.Charge(c, 51) // 1950 spent: 51 more would exceed 2000
	if code(err) != apperr.EQUOTA || d.Reason != access.ReasonQuota || d.Remaining != 50 {
		t.Fatalf("over quota: %+v, %v", d, err)
	}
	if d, err = s.Charge(c, 0); err != nil || d.Remaining != 49 { // counts as 1
		t.Fatalf("zero units: %+v, %v", d, err)
	}
}

func TestService_Charge_Rate(t *testing.T) {
	tests := []struct {
		tier  access.Tier
		burst int
		gap   time.Duration // time to earn one token
	}{
		{access.Free, 10, 200 * time.Millisecond},
		{access.Pro, 40, 50 * time.Millisecond},
		{access.Elite, 100, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.tier.String(), func(t *testing.T) {
			path := StatePath(t)
			secret, _ := MustKey(t, path, tt.tier, false, false)
			clock := NewClock(t, "2026-11-05T12:00:00Z")
			s := MustOpen(t, path, clock)
			c := MustAuth(t, s, secret)
			for i := range tt.burst {
				if _, err := s.Charge(c, 1); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			d, err := s.Charge(c, 1)
			if code(err) != apperr.EQUOTA || d.Reason != access.ReasonRate || d.RetryAfter != 1 {
				t.Fatalf("over burst: %+v, %v", d, err)
			}
			clock.Advance(tt.gap - time.Millisecond)
			if _, err := s.Charge(c, 1); err == nil {
				t.Fatal("allowed before a token was earned")
			}
			clock.Advance(time.Millisecond)
			if d, err := s.Charge(c, 1); err != nil || d.RateRemaining != 0 {
				t.Fatalf("after a token: %+v, %v", d, err)
			}
			clock.Advance(time.Hour)
			if d, err := s.Charge(c, 1); err != nil || d.RateRemaining != tt.burst-1 {
				t.Fatalf("after an hour: %+v, %v", d, err)
			}
		})
	}
}

func TestService_Charge_Playground(t *testing.T) {
	path := StatePath(t)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	s := MustOpen(t, path, clock)
	a, err := s.Authenticate(nil, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Authenticate(nil, "192.0.2.2")

	if d, err := s.Charge(a, 1); err != nil || !d.Allowed || d.Tier != access.Playground {
		t.Fatalf("first: %+v, %v", d, err)
	}
	d, err := s.Charge(a, 1)
	if code(err) != apperr.EQUOTA || d.Reason != access.ReasonRate || d.RetryAfter != 1 {
		t.Fatalf("second in the same second: %+v, %v", d, err)
	}
	if _, err := s.Charge(b, 1); err != nil {
		t.Fatalf("another address: %v", err)
	}
	clock.Advance(999 * time.Millisecond)
	if _, err := s.Charge(a, 1); err == nil {
		t.Fatal("allowed after 999ms")
	}
	clock.Advance(time.Millisecond)
	if _, err := s.Charge(a, 1); err != nil {
		t.Fatalf("after 1s: %v", err)
	}
	// Idle buckets are dropped by Sync and come back full.
	clock.Advance(10 * time.Second)
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Charge(a, 1); err != nil {
		t.Fatalf("after sync: %v", err)
	}
}

func TestService_Charge_Unmetered(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Free, false, true)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	s := MustOpen(t, path, clock)
	c := MustAuth(t, s, secret)
	for i := range 500 {
		d, err := s.Charge(c, 1)
		if err != nil || !d.Allowed || !d.Unmetered {
			t.Fatalf("request %d: %+v, %v", i, d, err)
		}
	}
	u, err := s.Usage(k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u.Today.Used != 500 || !u.Unmetered {
		t.Fatalf("usage: %+v", u)
	}
	// Unmetered keeps the tier's window and batch rules.
	if got := access.ClampSince(snapshots.DayOf(clock.Now()), c.Tier, 0, false).String(); got != "2026-11-03" {
		t.Fatalf("window start %s", got)
	}
	if got := code(access.CheckBatch(c, 2)); got != apperr.EFORBIDDEN {
		t.Fatalf("batch: %q", got)
	}
}

func TestService_Charge_UnknownKey(t *testing.T) {
	s := MustOpen(t, StatePath(t), nil)
	if _, err := s.Charge(access.Caller{KeyID: "k_nothere", Tier: access.Elite}, 1); code(err) != apperr.EUNAUTHORIZED {
		t.Fatalf("err = %v", err)
	}
}

func TestService_Revocation(t *testing.T) {
	path := StatePath(t)
	s := MustOpen(t, path, nil)

	secret, k := MustKey(t, path, access.Pro, false, false)
	if _, err := s.Authenticate(bearer(secret), ""); code(err) != apperr.EUNAUTHORIZED {
		t.Fatalf("before sync: %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(bearer(secret), ""); err != nil {
		t.Fatalf("after sync: %v", err)
	}
	if _, err := Keys(t, path).Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Authenticate(bearer(secret), "")
	if code(err) != apperr.EUNAUTHORIZED || !contains(apperr.ErrorMessage(err), "revoked") {
		t.Fatalf("after revoke: %v", err)
	}
}

func TestService_Revocation_Background(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Free, false, false)
	s, err := access.Open(access.Options{State: Store(t, path, nil), SyncInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Authenticate(bearer(secret), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Keys(t, path).Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if _, err := s.Authenticate(bearer(secret), ""); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("revocation not visible after 2s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestService_Concurrent(t *testing.T) {
	path := StatePath(t)
	unmetered, uk := MustKey(t, path, access.Elite, false, true)
	free, fk := MustKey(t, path, access.Free, false, false)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	s, err := access.Open(access.Options{State: Store(t, path, clock), Now: clock.Now, SyncInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cu, cf := MustAuth(t, s, unmetered), MustAuth(t, s, free)

	const workers, each = 50, 200 // 10,000 charges, flushed by a busy sync loop meanwhile
	var allowedFree atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := s.Charge(cu, 1); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					if _, err := s.Charge(cf, 1); err == nil {
						allowedFree.Add(1)
					}
				}
			}
		}()
	}
	stop := make(chan struct{})
	synced := make(chan int)
	go func() { // flushes interleaved with the charges
		n := 0
		for {
			select {
			case <-stop:
				synced <- n
				return
			default:
				if err := s.Sync(); err != nil {
					t.Error(err)
				}
				n++
			}
		}
	}()
	wg.Wait()
	close(stop)
	t.Logf("%d syncs during the charges", <-synced)
	if got := allowedFree.Load(); got != 10 { // the frozen clock leaves only the burst
		t.Fatalf("free key admitted %d, want 10", got)
	}
	check := func(s *access.Service, id string, want int64) {
		t.Helper()
		u, err := s.Usage(id)
		if err != nil {
			t.Fatal(err)
		}
		if u.Today.Used != want || len(u.Days) != 1 || u.Days[0].Requests != want {
			t.Fatalf("usage of %s: %+v, want %d", id, u, want)
		}
	}
	check(s, uk.ID, workers*each)
	check(s, fk.ID, 10)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := MustOpen(t, path, clock)
	check(s2, uk.ID, workers*each)
	check(s2, fk.ID, 10)
	d, err := s2.Charge(MustAuth(t, s2, free), 1)
	if err != nil || d.Remaining != 89 {
		t.Fatalf("after reopen: %+v, %v", d, err)
	}
}

func TestService_Usage(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Elite, false, false)
	pro, pk := MustKey(t, path, access.Pro, false, false)
	clock := NewClock(t, "2026-11-03T12:00:00Z")
	s := MustOpen(t, path, clock)
	c := MustAuth(t, s, secret)
	for day, n := range []int{3, 0, 5} {
		for range n {
			if _, err := s.Charge(c, 1); err != nil {
				t.Fatal(err)
			}
		}
		if day == 0 {
			if err := s.Sync(); err != nil { // one day flushed, the others pending
				t.Fatal(err)
			}
		}
		if day < 2 {
			clock.Advance(24 * time.Hour)
		}
	}
	u, err := s.Usage(k.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(u)
	want := `{"key_id":"` + k.ID + `","tier":"elite","history_days":null,"unmetered":false,` +
		`"today":{"date":"2026-11-05","used":5,"remaining":9995,"limit":10000,"reset_seconds":43200},` +
		`"retained_days":90,"days":[{"date":"2026-11-05","requests":5},{"date":"2026-11-03","requests":3}]}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Fatalf("usage JSON (-want +got):\n%s", diff)
	}
	up, err := s.Usage(pk.ID)
	if err != nil || up.HistoryDays == nil || *up.HistoryDays != 7 || len(up.Days) != 0 || up.Today.Remaining != 2000 {
		t.Fatalf("pro usage: %+v, %v", up, err)
	}
	_ = pro
	if _, err := s.Usage("k_nothere"); code(err) != apperr.ENOTFOUND {
		t.Fatalf("unknown key: %v", err)
	}
}

func TestService_UsageRetention(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Free, false, true)
	clock := NewClock(t, "2026-01-01T12:00:00Z")
	st := Store(t, path, clock)
	s, err := access.Open(access.Options{State: st, Now: clock.Now, SyncInterval: -1, RetainDays: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := MustAuth(t, s, secret)
	for range 5 {
		if _, err := s.Charge(c, 1); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		clock.Advance(24 * time.Hour)
	}
	u, err := s.Usage(k.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range u.Days {
		got = append(got, d.Date)
	}
	if diff := cmp.Diff([]string{"2026-01-05", "2026-01-04"}, got); diff != "" { // today (01-06) has none yet
		t.Fatalf("retained days (-want +got):\n%s", diff)
	}
	var stored []string
	if err := st.View(ctx, func(tx state.Tx) error {
		return tx.ScanCounts(state.Usage, state.ScanOptions{}, func(k string, _ int64) error { stored = append(stored, k); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{k.ID + "/2026-01-04", k.ID + "/2026-01-05"}, stored); diff != "" { // older days expired
		t.Fatalf("stored days (-want +got):\n%s", diff)
	}
}

func TestOpen_Err(t *testing.T) {
	t.Run("ErrBadRecord", func(t *testing.T) {
		path := StatePath(t)
		MustKey(t, path, access.Free, false, false)
		st, err := statebolt.Open(path, statebolt.Options{}) // not checked at the end: left corrupted
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Update(ctx, func(tx state.Tx) error {
			return tx.Put(state.Keys, "k_broken", []byte(`{"id":"k_broken","tier":"nope"}`), 0)
		}); err != nil {
			t.Fatal(err)
		}
		_, err = access.Open(access.Options{State: st})
		if !errors.Is(err, state.ErrCorrupt) || !contains(err.Error(), "k_broken") {
			t.Fatalf("err = %v, want ErrCorrupt naming the key", err)
		}
	})
	t.Run("ErrLocked", func(t *testing.T) {
		path := StatePath(t)
		st := Store(t, path, nil)
		unlock := lock(t, path) // a process keeping the file open
		defer unlock()
		_, err := access.Open(access.Options{State: st, LockTimeout: 20 * time.Millisecond})
		if !errors.Is(err, state.ErrUnavailable) || !contains(err.Error(), "locked") {
			t.Fatalf("err = %v, want ErrUnavailable (locked)", err)
		}
	})
}

// lock takes the state file's exclusive lock, as a bbolt writer does, until
// the function it returns is called.
func lock(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

func TestService_SyncLocked(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Free, false, false)
	s := MustOpen(t, path, nil)
	c := MustAuth(t, s, secret)
	for range 3 {
		if _, err := s.Charge(c, 1); err != nil {
			t.Fatal(err)
		}
	}
	unlock := lock(t, path)
	if err := s.Sync(); !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("sync while locked: %v", err)
	}
	unlock()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := Store(t, path, nil).View(ctx, func(tx state.Tx) error {
		return tx.ScanCounts(state.Usage, state.ScanOptions{Prefix: k.ID + "/"}, func(_ string, c int64) error { n += c; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("stored %d, want 3 (nothing lost while locked)", n)
	}
}

func TestKeys(t *testing.T) {
	path := StatePath(t)
	keys := Keys(t, path)
	if got, err := keys.List(ctx); err != nil || len(got) != 0 {
		t.Fatalf("new file: %v, %v", got, err)
	}
	secret, k, err := keys.Create(ctx, access.KeySpec{Tier: access.Pro, Name: "  load test  ", SQL: true, Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != 48 || secret[:5] != "ce_p_" {
		t.Fatalf("secret %q", secret)
	}
	if len(k.ID) != 10 || k.ID[:2] != "k_" || k.Name != "load test" || !k.SQL || !k.Unmetered || !k.Active() {
		t.Fatalf("key %+v", k)
	}
	raw, _ := os.ReadFile(path)
	if contains(string(raw), secret) || contains(string(raw), secret[5:]) {
		t.Fatal("the state file holds the secret")
	}
	for _, bad := range []access.KeySpec{
		{Tier: access.Playground, Name: "x"},
		{Tier: access.Tier(9), Name: "x"},
		{Tier: access.Free, Name: "bad\nname"},
		{Tier: access.Free, Name: strings.Repeat("é", 101)},
	} {
		if _, _, err := keys.Create(ctx, bad); code(err) != apperr.EINVALID {
			t.Fatalf("%+v: %v, want EINVALID", bad, err)
		}
	}
	if _, err := keys.Revoke(ctx, "k_nothere"); code(err) != apperr.ENOTFOUND {
		t.Fatalf("revoke unknown: %v", err)
	}
	r1, err := keys.Revoke(ctx, k.ID)
	if err != nil || r1.Active() {
		t.Fatalf("revoke: %+v, %v", r1, err)
	}
	r2, err := keys.Revoke(ctx, k.ID)
	if err != nil || !r2.Revoked.Equal(r1.Revoked) {
		t.Fatalf("revoke again: %+v, %v", r2, err)
	}
	got, err := keys.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]access.Key{r1}, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
}

// A key created without a name is named after its id.
func TestKeys_Create_DefaultName(t *testing.T) {
	keys := Keys(t, StatePath(t))
	for _, name := range []string{"", "   "} {
		_, k, err := keys.Create(ctx, access.KeySpec{Tier: access.Free, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if want := "key-" + k.ID[2:]; k.Name != want {
			t.Fatalf("name %q, want %q", k.Name, want)
		}
	}
}

// A state file removed under a running server is not recreated empty.
func TestService_SyncMissingFile(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Free, false, false)
	s := MustOpen(t, path, nil)
	c := MustAuth(t, s, secret)
	if _, err := s.Charge(c, 1); err != nil {
		t.Fatal(err)
	}
	backup, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("sync: %v, want ErrUnavailable (the file is missing)", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("sync recreated the state file")
	}
	if _, err := s.Authenticate(bearer(secret), ""); err != nil {
		t.Fatalf("key table lost: %v", err)
	}
	if err := os.WriteFile(path, backup, 0o600); err != nil { // restored
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if u, err := s.Usage(k.ID); err != nil || u.Today.Used != 1 {
		t.Fatalf("usage: %+v, %v", u, err)
	}
}

func TestService_Charge_InvalidTier(t *testing.T) {
	path := StatePath(t)
	secret, _ := MustKey(t, path, access.Pro, false, false)
	s := MustOpen(t, path, nil)
	c := MustAuth(t, s, secret)
	c.Tier = access.Tier(200) // a Caller built by hand: refused, not a panic
	if _, err := s.Charge(c, 1); code(err) != apperr.EQUOTA {
		t.Fatalf("err = %v", err)
	}
}
