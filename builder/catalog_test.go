package builder_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
)

func TestShortenSetIDs(t *testing.T) {
	long := "ja:x-top-ranker-prize-for-preliminary-round-in-asia-1st-season-of-championship-2023"
	long2 := "ja:x-top-ranker-prize-for-preliminary-round-in-asia-2nd-season-of-championship-2023"
	sets := []*snapshots.Set{{Game: "onepiece", ID: long}, {Game: "onepiece", ID: long2}, {Game: "onepiece", ID: "ja:OP-01"}}
	cards := []*snapshots.Card{{Game: "onepiece", ID: "ja:A", SetID: long}, {Game: "onepiece", ID: "ja:B", SetID: "ja:OP-01"}}
	builder.ShortenSetIDs(sets, cards)
	if len(sets[0].ID) != builder.MaxSetIDLen || !strings.HasPrefix(sets[0].ID, long[:55]+"~") {
		t.Fatalf("shortened to %q", sets[0].ID)
	}
	if sets[0].ID == sets[1].ID {
		t.Fatalf("two long ids with one prefix collide: %q", sets[0].ID)
	}
	if cards[0].SetID != sets[0].ID || cards[1].SetID != "ja:OP-01" || sets[2].ID != "ja:OP-01" {
		t.Fatalf("cards not renamed with their set: %+v %+v", cards[0], cards[1])
	}
	again := []*snapshots.Set{{Game: "onepiece", ID: long}}
	builder.ShortenSetIDs(again, nil)
	if again[0].ID != sets[0].ID {
		t.Fatalf("not deterministic: %q vs %q", again[0].ID, sets[0].ID)
	}
}
