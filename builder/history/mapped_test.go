package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/snapshots"
)

// sampleMapped is a mapped day of the fixture catalog: observations of
// several cards (out of catalog order), a sale, product ids that are not
// plain numbers.
func sampleMapped(tb testing.TB, cat *source.Catalog, e history.Entry, key history.MappedKey) *history.Mapped {
	tb.Helper()
	charizard, blastoise := sourcetest.Card(tb, cat, "en:base1-4"), sourcetest.Card(tb, cat, "en:base1-2")
	return &history.Mapped{Entry: e, Key: key, Observations: []source.Observation{
		{Source: e.Source, Card: charizard, Finish: 2, Grade: snapshots.RawNearMint, Day: e.Date, Field: "trend", Amount: 32050, Currency: "EUR",
			Product: "273699", Match: source.MatchID, Confidence: snapshots.ConfExact},
		{Source: e.Source, Card: blastoise, Finish: 0, Grade: snapshots.RawNearMint, Day: e.Date, Field: "trend-holo", Amount: 0, Currency: "EUR",
			Product: "0042", Match: source.MatchNumberName, Confidence: snapshots.ConfAgreeHigh},
		{Source: e.Source, Card: charizard, Finish: 0, Grade: snapshots.Grade(3), Day: e.Date - 3, Field: source.FieldSale, Amount: 420000, Currency: "USD",
			Product: "", Match: source.MatchTitle, Confidence: snapshots.ConfAgreeMedium, Marketplace: snapshots.MarketEbay,
			TradeType: snapshots.TradeAuction, URL: "https://www.ebay.com/itm/1001", Title: "Charizard 4/102 Base Set Holo PSA 9"},
		{Source: e.Source, Card: charizard, Finish: 1, Grade: snapshots.RawNearMint, Day: e.Date, Field: "trend", Amount: -1, Currency: "EUR",
			Product: "pc-7", Match: source.MatchID, Confidence: snapshots.ConfExact},
	}}
}

func mustKey(tb testing.TB, cat *source.Catalog) history.MappedKey {
	tb.Helper()
	k, err := history.KeyOf(cat)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func TestMapped_Encoding(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	e := history.Entry{Source: "cardmarket", Date: day("2026-11-20"), SHA256: strings.Repeat("cd", 32)}
	m := sampleMapped(t, cat, e, mustKey(t, cat))
	b, err := history.EncodeMapped(m, cat)
	if err != nil {
		t.Fatal(err)
	}
	got, err := history.DecodeMapped(b, cat)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	// Every truncation is an error, never a panic or a shorter day.
	for i := range len(b) {
		if _, err := history.DecodeMapped(b[:i], cat); err == nil {
			t.Fatalf("truncated at %d of %d: no error", i, len(b))
		}
	}
	// A card of another catalog is refused.
	other := *m
	other.Observations = append([]source.Observation{{Source: "cardmarket", Card: &snapshots.Card{ID: "en:x-1"}}}, m.Observations...)
	if _, err := history.EncodeMapped(&other, cat); err == nil || !strings.Contains(err.Error(), "en:x-1") {
		t.Errorf("card of another catalog: %v", err)
	}
}

// TestStore_Mapped: a mapped day filed beside its raw day is found for
// that raw day and key only; filing the day's mapping for another key
// removes the old one; a flipped byte is ErrCorrupt.
func TestStore_Mapped(t *testing.T) {
	ctx := context.Background()
	s, dir := mustStore(t)
	cat := sourcetest.MustCatalog(t)
	key := mustKey(t, cat)
	e, _, _, err := s.Put(ctx, sampleDay("2026-11-20", 32050), false)
	if err != nil {
		t.Fatal(err)
	}
	m := sampleMapped(t, cat, e, key)
	me, n, err := s.PutMapped(ctx, m, cat, nil)
	if err != nil || n == 0 {
		t.Fatalf("put mapped: %v (%d bytes)", err, n)
	}
	if !strings.HasPrefix(me.Name, "mapped/cardmarket/2026-11-20."+e.SHA256[:16]+".") || !me.Of(e, key) {
		t.Errorf("entry %+v", me)
	}
	// The raw days' listing does not see it.
	if days, err := s.Days(ctx, "cardmarket"); err != nil || len(days) != 1 {
		t.Errorf("raw days %v, %v", days, err)
	}
	onFile, err := s.MappedDays(ctx, "cardmarket")
	if err != nil || len(onFile[e.Date]) != 1 || onFile[e.Date][0] != me {
		t.Fatalf("mapped days %v, %v", onFile, err)
	}
	got, err := s.GetMapped(ctx, me, e, key, cat)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}

	// Another raw day or key: not this mapping.
	other := key
	other.MapVersion++
	if me.Of(e, other) {
		t.Error("mapping of another map version taken")
	}
	if _, err := s.GetMapped(ctx, me, e, other, cat); err == nil {
		t.Error("GetMapped with another key: no error")
	}
	e2, _, _, err := s.Put(ctx, sampleDay("2026-11-20", 1), true)
	if err != nil {
		t.Fatal(err)
	}
	if me.Of(e2, key) {
		t.Error("mapping of the replaced raw day taken for the new one")
	}
	// Filing the day's new mapping removes the stale one.
	me2, _, err := s.PutMapped(ctx, sampleMapped(t, cat, e2, other), cat, onFile[e.Date])
	if err != nil {
		t.Fatal(err)
	}
	onFile, err = s.MappedDays(ctx, "cardmarket")
	if err != nil || len(onFile[e.Date]) != 1 || onFile[e.Date][0] != me2 {
		t.Fatalf("after the new mapping: %v, %v", onFile, err)
	}
	// Filing the same mapping again keeps it.
	if _, _, err := s.PutMapped(ctx, sampleMapped(t, cat, e2, other), cat, onFile[e.Date]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetMapped(ctx, me2, e2, other, cat); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, me2.Name)
	os.Chmod(path, 0o644)
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	os.WriteFile(path, b, 0o644)
	if _, err := s.GetMapped(ctx, me2, e2, other, cat); !errors.Is(err, history.ErrCorrupt) {
		t.Errorf("flipped byte: %v, want ErrCorrupt", err)
	}
}

// FuzzDecodeMapped: no panic on any mapped day's content.
func FuzzDecodeMapped(f *testing.F) {
	cat := sourcetest.MustCatalog(f)
	e := history.Entry{Source: "cardmarket", Date: day("2026-11-20"), SHA256: strings.Repeat("cd", 32)}
	b, err := history.EncodeMapped(sampleMapped(f, cat, e, mustKey(f, cat)), cat)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := history.DecodeMapped(b, cat)
		if err == nil && m == nil {
			t.Fatal("nil day without error")
		}
	})
}
