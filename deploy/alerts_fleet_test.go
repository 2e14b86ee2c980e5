package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/state"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/sweep"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The fleet's alerts (issue #33): 3,000 rules of one account, a webhook
// endpoint on a receiver built on the official Standard Webhooks library,
// a new snapshot published; the replica holding the evaluation's lease is
// killed (SIGKILL) mid-way, another finishes it after the lease's term,
// and the receiver gets every event exactly once.

const alertRules = 3000

// fleetReceiver verifies each delivery with the official library and
// counts each webhook-id.
type fleetReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	wh  *standardwebhooks.Webhook
	// times counts deliveries per webhook-id; refused those that did not
	// verify.
	times   map[string]int
	refused int
}

func newFleetReceiver(t *testing.T) *fleetReceiver {
	rc := &fleetReceiver{times: map[string]int{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.wh == nil || rc.wh.Verify(body, r.Header) != nil {
			rc.refused++
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		rc.times[r.Header.Get("webhook-id")]++
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// pidOf returns the process id in a lease holder ("host:pid:random").
func pidOf(holder string) int {
	parts := strings.Split(holder, ":")
	if len(parts) < 3 {
		return 0
	}
	n, _ := strconv.Atoi(parts[len(parts)-2])
	return n
}

func (f *fleet) alertsExactlyOnce(t *testing.T) {
	ctx := context.Background()
	st, err := stateredis.Open(f.redis.URL(), stateredis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secret, key, err := access.Keys{State: st}.Create(ctx, access.KeySpec{Tier: access.Elite, Name: "alerts", Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	f.everyReplica(t, secret, 200, 5*time.Second)
	rc := newFleetReceiver(t)
	var created struct {
		Data struct {
			Secret string `json:"secret"`
		} `json:"data"`
	}
	if code, body := f.post(t, "/api/v3/me/webhooks", secret, `{"url":"`+rc.srv.URL+`/hook"}`); code != 200 || json.Unmarshal([]byte(body), &created) != nil {
		t.Fatalf("create the endpoint: %d %s", code, body)
	} else if rc.wh, err = standardwebhooks.NewWebhook(created.Data.Secret); err != nil {
		t.Fatal(err)
	}

	// The rules: at or above $0.01 on the snapshot's cards, written
	// straight into the store (the REST route's per-account limit and its
	// count of the account's rules would take minutes for 3,000).
	dir := filepath.Join(f.work, "build", "s0001")
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	cards, err := r.Cards("pokemon")
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for first := 0; first < alertRules; first += 100 {
		err := st.Update(ctx, func(tx state.Tx) error {
			for n := first; n < first+100 && n < alertRules; n++ {
				rule := alert.Rule{ID: fmt.Sprintf("r_fleet%09d", n), Account: key.ID, Game: "pokemon", CardID: cards[n%len(cards)].ID,
					Grade: snapshots.RawNearMint.String(), Source: "own", Created: now, Updated: now,
					Condition: alert.Condition{Kind: alert.AtOrAbove, TargetCents: 1}}
				b, _ := json.Marshal(rule)
				if err := tx.Put(state.AlertRules, key.ID+"/"+rule.ID, b, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// Publish; kill the evaluation's lease holder once it has committed a
	// chunk, at a moment it delivers to no endpoint (a replica killed
	// between an endpoint's 2xx and its record would send that one again:
	// delivery is at least once, and this test checks the evaluation's
	// exactly once).
	const id = "s0006"
	job := alert.JobID(id)
	start := time.Now()
	f.publishClone(t, id)
	var victim *replica
	for victim == nil {
		if time.Since(start) > 90*time.Second {
			t.Fatalf("no replica was caught evaluating %s mid-way", id)
		}
		var holder string
		var delivering []string
		var p sweep.Progress
		err := st.View(ctx, func(tx state.Tx) error {
			b, err := tx.Get(state.Sweeps, job)
			if err != nil {
				return nil
			}
			json.Unmarshal(b, &p)
			if l, err := tx.Get(state.Leases, "sweep/"+job); err == nil {
				var v struct{ Holder string }
				json.Unmarshal(l, &v)
				holder = v.Holder
			}
			return tx.Scan(state.Leases, state.ScanOptions{Prefix: "webhook/"}, func(_ string, v []byte) error {
				delivering = append(delivering, string(v))
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if p.Done {
			t.Fatalf("%s was evaluated before a replica could be killed mid-way (%d chunks): slow it with --alerts-share", id, p.Chunks)
		}
		busy := false
		for _, d := range delivering {
			busy = busy || (holder != "" && strings.Contains(d, fmt.Sprintf(":%d:", pidOf(holder))))
		}
		if p.Chunks >= 1 && holder != "" && !busy {
			for _, rp := range f.replicas {
				if rp.cmd.ProcessState == nil && rp.cmd.Process.Pid == pidOf(holder) {
					victim = rp
				}
			}
			if victim != nil {
				victim.cmd.Process.Signal(syscall.SIGKILL)
				victim.cmd.Wait()
				f.figure("alerts_killed_after_chunks", p.Chunks)
				f.figure("alerts_killed", victim.name)
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	var p sweep.Progress
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if p, err = sweep.Status(ctx, st, job); err == nil && p.Done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not evaluated 2 minutes after the kill: %+v", id, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.figure("alerts_evaluation_s_with_kill", p.Finished.Sub(p.Started).Seconds())
	f.figure("alerts_evaluation_holders", len(p.Holders))
	if len(p.Holders) < 2 {
		t.Errorf("the evaluation's chunks were committed by %v: want the killed replica and another", p.Holders)
	}

	// Every event recorded reaches the receiver once.
	var events []string
	err = st.View(ctx, func(tx state.Tx) error {
		events = events[:0]
		return tx.Scan(state.AlertEvents, state.ScanOptions{Prefix: key.ID + "/"}, func(k string, _ []byte) error {
			events = append(events, k[strings.LastIndex(k, "/")+1:])
			return nil
		})
	})
	if err != nil || len(events) == 0 {
		t.Fatalf("%d events recorded: %v", len(events), err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		rc.mu.Lock()
		n := len(rc.times)
		rc.mu.Unlock()
		if n >= len(events) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // a few more delivery passes: nothing else comes
	rc.mu.Lock()
	f.figure("alerts_events", len(events))
	f.figure("alerts_delivered", len(rc.times))
	dups, missing := 0, 0
	for _, e := range events {
		switch rc.times[e] {
		case 0:
			missing++
		case 1:
		default:
			dups++
		}
	}
	f.figure("alerts_duplicates", dups)
	if missing > 0 || dups > 0 || rc.refused > 0 || len(rc.times) != len(events) {
		t.Errorf("%d events: %d delivered, %d missing, %d more than once, %d not verified, %d unknown ids",
			len(events), len(rc.times), missing, dups, rc.refused, len(rc.times)-(len(events)-missing))
	}
	rc.mu.Unlock()
	f.startReplica(f.t, victim) // back, for what follows (stopped when the whole test ends)
}

// post POSTs body to path through HAProxy with key.
func (f *fleet) post(t *testing.T, path, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+f.lb+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
