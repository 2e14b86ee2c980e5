package collection_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/state"
)

func price(v float64) *float64 { return &v }

func TestService_AddRemove(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	acct := collection.AccountOwner("a_one")
	h, err := s.Add(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "EN:BASE1-4", Grade: "slab:10", Quantity: 2, PaidUSD: price(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if h.CardID != "en:base1-4" || h.Quantity != 2 || h.Printing != "holo/unlimited" || !h.BasePrinting || h.FMVUSD == nil || *h.PaidUSD != 2000 {
		t.Errorf("added %+v", h)
	}
	// The same card in another printing is another holding; the base
	// printing named is the base printing.
	if _, err := s.Add(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "en:base1-4", Printing: "1st edition", Quantity: 1}); err != nil {
		t.Fatal(err)
	}
	h, err = s.Add(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "en:base1-4", Printing: "holo/unlimited", Grade: "slab:10", Quantity: 1})
	if err != nil || h.Quantity != 3 || h.PaidQuantity != 2 {
		t.Fatalf("base printing by name: %+v %v", h, err)
	}
	v, err := s.View(ctx, src, acct, collection.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Owner != "account" || v.Total != 2 || v.Summary.Quantity != 4 || v.Summary.Cards != 1 {
		t.Errorf("view %+v", v.Summary)
	}
	for _, tt := range []struct {
		name string
		ch   collection.Change
		code string
	}{
		{"unknown card", collection.Change{Game: "pokemon", CardID: "en:nope-1", Quantity: 1}, apperr.ENOTFOUND},
		{"no such printing", collection.Change{Game: "pokemon", CardID: "en:base1-4", Printing: "reverse", Quantity: 1}, apperr.EINVALID},
		{"bad grade", collection.Change{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:11", Quantity: 1}, apperr.EINVALID},
		{"no copies", collection.Change{Game: "pokemon", CardID: "en:base1-4", Quantity: 0}, apperr.EINVALID},
		{"negative price", collection.Change{Game: "pokemon", CardID: "en:base1-4", Quantity: 1, PaidUSD: price(-1)}, apperr.EINVALID},
	} {
		if _, err := s.Add(ctx, src, acct, tt.ch); apperr.ErrorCode(err) != tt.code {
			t.Errorf("add %s: %v, want %s", tt.name, err, tt.code)
		}
	}

	// Remove keeps the average price of what is left.
	h, err = s.Remove(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:10", Quantity: 2})
	if err != nil || h.Quantity != 1 || h.PaidQuantity != 1 || *h.PaidUSD != 1000 {
		t.Fatalf("remove 2 of 3: %+v %v", h, err)
	}
	if _, err := s.Remove(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:10", Quantity: 5}); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Errorf("remove more than held: %v", err)
	}
	if h, err = s.Remove(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:10"}); err != nil || h.Quantity != 0 {
		t.Errorf("remove all: %+v %v", h, err)
	}
	if _, err := s.Remove(ctx, src, acct, collection.Change{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:10"}); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("remove what is gone: %v", err)
	}
	if v, _ = s.View(ctx, src, acct, collection.ViewOptions{}); v.Total != 1 || v.Holdings[0].Printing != "holo/shadowless/1st-edition" {
		t.Errorf("after removes: %+v", v.Holdings)
	}
}

// TestService_Owners: an account's keys, its pages (and chat) see one
// collection; a key without an account keeps its own; a collection an
// account's key kept before is folded in.
func TestService_Owners(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	st := stateOf(t, s)
	keyA1, keyA2, page := collection.KeyOwner("k_a1", "a_x"), collection.KeyOwner("k_a2", "a_x"), collection.AccountOwner("a_x")
	lone := collection.KeyOwner("k_lone", "")
	add := func(o collection.Owner, id string) {
		t.Helper()
		if _, err := s.Add(ctx, src, o, collection.Change{Game: "pokemon", CardID: id, Quantity: 1}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(o collection.Owner) int {
		t.Helper()
		v, err := s.View(ctx, src, o, collection.ViewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return v.Summary.Quantity
	}
	// A collection k_a2 kept under its own id before accounts owned them.
	legacy := `{"key_id": "k_a2", "holdings": [{"game": "pokemon", "card_id": "en:base1-2", "grade": "raw:near_mint", "quantity": 3, "paid_cents": 0, "paid_quantity": 0}], "imports": [], "updated": "2026-11-01T00:00:00Z"}`
	if err := st.Update(ctx, func(tx state.Tx) error { return tx.Put(state.Collections, "k_a2", []byte(legacy), 0) }); err != nil {
		t.Fatal(err)
	}
	add(keyA1, "en:base1-4")
	add(page, "en:base1-4")
	add(lone, "en:base1-4")
	if got := count(keyA2); got != 5 { // 2 added by the account's key and page, 3 kept by k_a2
		t.Errorf("k_a2 sees %d copies, want 5", got)
	}
	if got := count(page); got != 2 { // not folded yet: only keyed calls and Adopt fold
		t.Errorf("the page sees %d copies before the fold, want 2", got)
	}
	n, err := s.Adopt(ctx, func(k string) string { return map[string]string{"k_a2": "a_x"}[k] })
	if err != nil || n != 1 {
		t.Fatalf("adopt: %d %v", n, err)
	}
	if got := []int{count(page), count(keyA1), count(keyA2), count(lone)}; got[0] != 5 || got[1] != 5 || got[2] != 5 || got[3] != 1 {
		t.Errorf("after adopt: page, keys, lone key see %v copies, want 5 5 5 1", got)
	}
	err = st.View(ctx, func(tx state.Tx) error {
		if _, err := tx.Get(state.Collections, "k_a2"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("k_a2's record after adopt: %v", err)
		}
		if _, err := tx.Get(state.Collections, "k_lone"); err != nil {
			t.Errorf("the lone key's record: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A preview made by one key of the account is confirmed by the page.
	p, err := s.Preview(ctx, src, collection.PreviewRequest{Owner: keyA1, Game: "pokemon", Body: []byte("card_id,qty\nen:base1-2,2\n"), ContentType: "text/csv"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Confirm(ctx, src, lone, collection.ConfirmRequest{PreviewID: p.PreviewID}); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("another owner confirmed: %v", err)
	}
	if _, err := s.Confirm(ctx, src, page, collection.ConfirmRequest{PreviewID: p.PreviewID}); err != nil {
		t.Fatal(err)
	}
	if got := count(keyA2); got != 7 {
		t.Errorf("after the page confirmed the key's preview: %d copies, want 7", got)
	}
}

func TestService_View(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	o := collection.AccountOwner("a_view")
	for _, ch := range []collection.Change{
		{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:9", Quantity: 2, PaidUSD: price(100)},
		{Game: "pokemon", CardID: "en:base1-4", Grade: "raw:damaged", Quantity: 1}, // confidence none
		{Game: "pokemon", CardID: "en:base1-4", Printing: "1st-edition", Quantity: 1},
	} {
		if _, err := s.Add(ctx, src, o, ch); err != nil {
			t.Fatal(err)
		}
	}
	v, err := s.View(ctx, src, o, collection.ViewOptions{History: true, HistoryFrom: src.AsOf - 59, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	sum := v.Summary
	if v.Total != 3 || len(v.Holdings) != 2 || sum.Holdings != 3 || sum.Unvalued != 1 || sum.Quantity != 4 {
		t.Fatalf("view: total %d, %d rows, %+v", v.Total, len(v.Holdings), sum)
	}
	// Sorted by value: the 1st edition first.
	if v.Holdings[0].Printing != "holo/shadowless/1st-edition" || v.Holdings[0].BasePrinting || v.Holdings[1].Grade != "slab:9" {
		t.Errorf("order: %+v", v.Holdings)
	}
	slab := v.Holdings[1]
	if slab.Confidence == "none" || slab.GainUSD == nil || math.Abs(*slab.GainUSD-(*slab.ValueUSD-200)) > 0.005 {
		t.Errorf("slab:9 row %+v", slab)
	}
	var rows float64
	for _, h := range v.Holdings {
		rows += *h.ValueUSD
	}
	if math.Abs(rows-sum.ValueUSD) > 0.005 {
		t.Errorf("summary value %v, rows %v", sum.ValueUSD, rows)
	}
	all, _ := s.View(ctx, src, o, collection.ViewOptions{Sort: "name"})
	dmg := all.Holdings[len(all.Holdings)-1]
	for _, h := range all.Holdings {
		if h.Grade == "raw:damaged" {
			dmg = h
		}
	}
	if dmg.ValueUSD != nil || dmg.Confidence != "none" || dmg.Note == "" {
		t.Errorf("a holding at confidence none: %+v", dmg)
	}
	// History: a point per day of the range, the last one today's value.
	if len(v.History) != 60 || v.History[0].Date != (src.AsOf-59).String() || *v.HistoryFrom != v.History[0].Date {
		t.Fatalf("history: %d points from %v", len(v.History), v.HistoryFrom)
	}
	if last := v.History[len(v.History)-1]; last.Date != src.AsOf.String() || math.Abs(last.ValueUSD-sum.ValueUSD) > 0.005 {
		t.Errorf("history ends %+v, the summary says %v", last, sum.ValueUSD)
	}
	if sum.Change30dUSD != nil {
		then := v.History[len(v.History)-1-collection.ChangeDays].ValueUSD
		if math.Abs(sum.ValueUSD-then-*sum.Change30dUSD) > 0.005 {
			t.Errorf("30-day change %v, history says %v - %v", *sum.Change30dUSD, sum.ValueUSD, then)
		}
	}
	b, err := json.Marshal(v)
	if err != nil || !strings.Contains(string(b), `"history_from"`) {
		t.Errorf("json: %s %v", b, err)
	}
}

// TestService_Export: the export, imported into an empty collection, gives
// the same holdings.
func TestService_Export(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	o := collection.AccountOwner("a_exp")
	for _, ch := range []collection.Change{
		{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:9", Quantity: 2, PaidUSD: price(100.5)},
		{Game: "pokemon", CardID: "en:base1-4", Grade: "slab:9", Quantity: 1},
		{Game: "pokemon", CardID: "en:base1-4", Printing: "shadowless", Grade: "cgc:9.5", Quantity: 1},
		{Game: "pokemon", CardID: "en:base1-2", Quantity: 3},
	} {
		if _, err := s.Add(ctx, src, o, ch); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Export(ctx, src, o)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(recs) != 5 || strings.Join(recs[0], ",") != strings.Join(collection.ExportColumns, ",") {
		t.Fatalf("export:\n%s%v", b, err)
	}
	other := collection.AccountOwner("a_imp")
	p, err := s.Preview(ctx, src, collection.PreviewRequest{Owner: other, Game: "pokemon", Body: b, ContentType: "text/csv"})
	if err != nil {
		t.Fatalf("preview of the export: %v\n%s", err, b)
	}
	if p.Summary.Matched != 4 {
		t.Fatalf("preview of the export: %+v\n%s", p.Summary, b)
	}
	if _, err := s.Confirm(ctx, src, other, collection.ConfirmRequest{PreviewID: p.PreviewID}); err != nil {
		t.Fatal(err)
	}
	v1, _ := s.View(ctx, src, o, collection.ViewOptions{})
	v2, _ := s.View(ctx, src, other, collection.ViewOptions{})
	strip := func(v *collection.View) string {
		var out []string
		for _, h := range v.Holdings {
			h.Added = nil
			b, _ := json.Marshal(h)
			out = append(out, string(b))
		}
		return strings.Join(out, "\n")
	}
	if strip(v1) != strip(v2) {
		t.Errorf("holdings after a round trip:\n%s\nwant\n%s", strip(v2), strip(v1))
	}
}

// stateOf is the state store a test's service uses.
func stateOf(t *testing.T, _ *collection.Service) state.Store {
	t.Helper()
	return stores[t.Name()]
}

var _ = time.Second

// TestService_ShowPreview: a preview shown again is the preview, confirmed
// once it was; another owner's is not found.
func TestService_ShowPreview(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	o := collection.AccountOwner("a_show")
	p, err := s.Preview(ctx, src, collection.PreviewRequest{Owner: o, Game: "pokemon", Body: []byte(upload), ContentType: "text/csv"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.ShowPreview(ctx, src, o, p.PreviewID)
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := json.Marshal(p)
	b2, _ := json.Marshal(again)
	if string(b1) != string(b2) {
		t.Errorf("shown again:\n%s\nwant\n%s", b2, b1)
	}
	if _, err := s.ShowPreview(ctx, src, collection.AccountOwner("a_other"), p.PreviewID); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("another owner's preview: %v", err)
	}
	if _, err := s.Confirm(ctx, src, o, collection.ConfirmRequest{PreviewID: p.PreviewID}); err != nil {
		t.Fatal(err)
	}
	if again, err = s.ShowPreview(ctx, src, o, p.PreviewID); err != nil || !again.Confirmed {
		t.Errorf("after confirm: %v %v", again.Confirmed, err)
	}
}
