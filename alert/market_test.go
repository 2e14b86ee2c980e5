package alert_test

import (
	"os"
	"testing"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// TestReaderMarket: over a real snapshot, the own price is the printing's
// estimate (pricing.Own), and the activity counts its verified sales and
// listings.
func TestReaderMarket(t *testing.T) {
	m := alert.NewReaderMarket(tiny.Reader, tiny.AsOf)
	if m.SnapshotID() != "s0001" || m.AsOf() != tiny.AsOf {
		t.Fatalf("snapshot %s %v", m.SnapshotID(), m.AsOf())
	}
	cards, err := tiny.Reader.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	priced, active := 0, 0
	for _, c := range cards[:min(len(cards), 200)] {
		f := snapshots.BasePrinting(c)
		p, err := m.Price(pricing.SourceOwn, c, f, snapshots.RawNearMint, tiny.AsOf)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pricing.Own(tiny.Reader, c, f, snapshots.RawNearMint, tiny.AsOf)
		if err != nil {
			t.Fatal(err)
		}
		if p.Cents != want.Cents {
			t.Fatalf("%s: price %d, want %d", c.ID, p.Cents, want.Cents)
		}
		if p.Cents > 0 {
			priced++
			then, err := m.Price(pricing.SourceOwn, c, f, snapshots.RawNearMint, tiny.AsOf-7)
			if err != nil || then.Day > tiny.AsOf-7 {
				t.Fatalf("%s a week ago: %+v %v", c.ID, then, err)
			}
		}
		a, err := m.Activity(c, f, snapshots.RawNearMint)
		if err != nil {
			t.Fatal(err)
		}
		if a.Sales > 0 || a.Listings > 0 {
			active++
		}
		if a.Listings > 0 && a.LowAskCents <= 0 {
			t.Fatalf("%s: %d listings without an ask", c.ID, a.Listings)
		}
	}
	if priced == 0 || active == 0 {
		t.Fatalf("priced %d, active %d of 200 cards: the test sees nothing", priced, active)
	}
	if _, err := m.Price("amazon", cards[0], 0, snapshots.RawNearMint, tiny.AsOf); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Fatalf("unknown source: %v", err)
	}
	// A real-price source of a synthetic snapshot: no price, and a note
	// saying why (its files were not part of the build).
	if p, err := m.Price("tcgplayer", cards[0], 0, snapshots.RawNearMint, tiny.AsOf); err != nil || p.Cents != 0 || p.Note == "" {
		t.Fatalf("tcgplayer on a synthetic snapshot: %+v, %v", p, err)
	}
}

// tiny is a real tiny snapshot, built once for the package's tests.
var tiny *snapshotstest.Tiny

func TestMain(m *testing.M) {
	os.Exit(snapshotstest.RunTiny(m, func(t *snapshotstest.Tiny) { tiny = t }))
}
