package collection_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

var (
	src    *live.View
	stores = map[string]state.Store{} // by test name
)

func TestMain(m *testing.M) { os.Exit(snapshotstest.RunView(m, &src, live.NewView)) }

// newService is a Service over a checked state file, its clock and the
// store's one clock.
func newService(t *testing.T) (*collection.Service, *statetest.Clock) {
	clock := statetest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	st := statetest.MustOpenPath(t, filepath.Join(t.TempDir(), "state.bolt"), statebolt.Options{Now: clock.Now})
	stores[t.Name()] = st
	return collection.New(collection.Options{State: st, Now: clock.Now}), clock
}

var (
	k1 = collection.KeyOwner("k_one", "")
	k2 = collection.KeyOwner("k_two", "")
)

func confirmOf(t *testing.T, body string) collection.ConfirmRequest {
	t.Helper()
	req, err := collection.ParseConfirm([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

const upload = "card_id,name,set,number,grade,qty,price paid\n" +
	"en:base1-4,,,,PSA 10,2,$1000\n" +
	",Charizard,Base,4/102,NM,1,\n" +
	",Pikachu,,,,1,\n" +
	",,,,slab 11,1,\n"

func TestService_PreviewConfirm(t *testing.T) {
	ctx := context.Background()
	s, clock := newService(t)
	p, err := s.Preview(ctx, src, collection.PreviewRequest{Owner: k1, Game: "pokemon", Body: []byte(upload), ContentType: "text/csv"})
	if err != nil {
		t.Fatal(err)
	}
	sum := p.Summary
	if sum.Rows != 4 || sum.Matched != 2 || sum.Ambiguous != 1 || sum.Invalid != 1 || sum.Quantity != 3 || sum.PaidUSD != 2000 {
		t.Fatalf("summary %+v", sum)
	}
	if p.Rows[0].Grade != "slab:10" || p.Rows[1].Grade != "raw:near_mint" || len(p.Rows[2].Candidates) < 2 {
		t.Errorf("rows %+v", p.Rows[:3])
	}
	if want := clock.Now().Add(collection.PreviewTTL).Format(time.RFC3339); p.ExpiresAt != want {
		t.Errorf("expires %s, want %s (the injected clock)", p.ExpiresAt, want)
	}
	if _, err := s.Preview(ctx, src, collection.PreviewRequest{Owner: k1, Game: "pokemon", Body: []byte(upload), ContentType: "text/csv", Strict: true}); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Errorf("strict with an invalid row: %v", err)
	}

	pick := string(p.Rows[2].Candidates[0].CardID)
	body := `{"preview_id": "` + p.PreviewID + `", "choices": {"3": "` + pick + `"}}`
	if _, err := s.Confirm(ctx, src, k2, confirmOf(t, body)); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("another key's preview: %v", err)
	}
	c, err := s.Confirm(ctx, src, k1, confirmOf(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "confirmed" || c.StoredRows != 3 || c.StoredQuantity != 4 || c.Collection.Holdings != 3 || c.Collection.Imports != 1 {
		t.Errorf("confirmation %+v %+v", c, c.Collection)
	}
	again, err := s.Confirm(ctx, src, k1, confirmOf(t, body))
	if err != nil || again.Status != "already_confirmed" || again.StoredRows != c.StoredRows || again.Collection.Holdings != 3 {
		t.Errorf("second confirm: %+v %v", again, err)
	}

	// A preview expires after PreviewTTL on the injected clock.
	p2, err := s.Preview(ctx, src, collection.PreviewRequest{Owner: k1, Game: "pokemon", Body: []byte(upload), ContentType: "text/csv"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(collection.PreviewTTL + time.Second)
	if _, err := s.Confirm(ctx, src, k1, collection.ConfirmRequest{PreviewID: p2.PreviewID}); apperr.ErrorCode(err) != apperr.ENOTFOUND || !strings.Contains(apperr.ErrorMessage(err), "upload the file again") {
		t.Errorf("expired preview: %v", err)
	}
}

func TestCost(t *testing.T) {
	rows := "name\n" + strings.Repeat("Charizard\n", 250)
	if n, err := collection.Cost([]byte(rows), "text/csv"); err != nil || n != 3 {
		t.Errorf("250 rows: %d %v, want 3", n, err)
	}
	if _, err := collection.Cost(make([]byte, collection.MaxBytes+1), "text/csv"); apperr.ErrorCode(err) != apperr.ETOOLARGE {
		t.Errorf("over MaxBytes: %v", err)
	}
}
