package resolve_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

func TestResolve(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		ref, game string
		explicit  bool
		status    string
		by        string
		cardID    string
	}{
		{"en:base1-4", "pokemon", false, resolve.Resolved, resolve.ByCardID, "en:base1-4"},
		{"  EN:BASE1-4 ", "pokemon", false, resolve.Resolved, resolve.ByCardID, "en:base1-4"},
		{"42382", "pokemon", false, resolve.Resolved, resolve.ByPartnerID, "en:base1-4"},
		{"base1-4", "pokemon", false, resolve.Resolved, resolve.BySourceID, "en:base1-4"},
		{"charizard", "pokemon", false, resolve.Resolved, resolve.ByText, "en:base1-4"},
		{"pikachu", "pokemon", false, resolve.Ambiguous, "", ""},
		{"en:OP01-001", "pokemon", false, resolve.Resolved, resolve.ByCardID, "en:OP01-001"},
		{"en:OP01-001", "pokemon", true, resolve.NotFound, "", ""},
		{"zzqx wvvv", "pokemon", false, resolve.NotFound, "", ""},
		{"", "pokemon", false, resolve.NotFound, "", ""},
		{strings.Repeat("a", 300), "pokemon", false, resolve.NotFound, "", ""},
		{"99999999999", "pokemon", false, resolve.NotFound, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.ref, func(t *testing.T) {
			r, err := resolve.Resolve(ctx, src, tc.game, tc.explicit, tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.status || r.ResolvedBy != tc.by {
				t.Fatalf("got %s by %q (%s), want %s by %q", r.Status, r.ResolvedBy, r.Message, tc.status, tc.by)
			}
			switch r.Status {
			case resolve.Resolved:
				if r.Card == nil || r.Card.ID != tc.cardID {
					t.Errorf("card %v, want %s", r.Card, tc.cardID)
				}
			case resolve.Ambiguous:
				if n := len(r.Candidates); n < 2 || n > resolve.MaxCandidates {
					t.Errorf("%d candidates", n)
				}
				for _, c := range r.Candidates {
					if c.CardID == "" || c.Name == "" || c.SetName == "" {
						t.Errorf("thin candidate %+v", c)
					}
				}
			case resolve.NotFound:
				if r.Message == "" {
					t.Errorf("no message")
				}
			}
		})
	}
}

func TestResolveAll(t *testing.T) {
	rs, err := resolve.ResolveAll(context.Background(), src, "pokemon", false, []string{"en:base1-4", "EN:base1-4", "42382", "pikachu", "nope-zz"})
	if err != nil {
		t.Fatal(err)
	}
	if rs[1].Ref != "EN:base1-4" || rs[1].Card != rs[0].Card {
		t.Errorf("duplicate reference not shared: %+v", rs[1])
	}
	if got := len(resolve.UniqueCards(rs)); got != 1 {
		t.Errorf("unique cards %d, want 1", got)
	}
	if _, err := resolve.ResolveAll(context.Background(), src, "pokemon", false, make([]string, resolve.MaxRefs+1)); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Errorf("over the cap: %v", err)
	}
}

func TestSearch(t *testing.T) {
	res, err := resolve.Search(context.Background(), src, resolve.SearchRequest{Q: "charizard", SetID: "en:sv3pt5", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Game != "pokemon" || len(res.Items) == 0 || res.Total < len(res.Items) {
		t.Fatalf("search: %+v", res)
	}
	for _, c := range res.Items {
		if c.SetID != "en:sv3pt5" || c.Score <= 0 {
			t.Errorf("item %+v", c)
		}
	}
	if _, err := resolve.Search(context.Background(), src, resolve.SearchRequest{Q: "x", Limit: 500}); apperr.ErrorCode(err) != apperr.EINVALID {
		t.Errorf("limit 500: %v", err)
	}
}

func TestByID(t *testing.T) {
	c, by, err := resolve.ByID(src.Reader, "pokemon", "EN:BASE1-4")
	if err != nil || c.ID != "en:base1-4" || by != resolve.ByCardID {
		t.Fatalf("card id: %v %s %v", c, by, err)
	}
	if c.PartnerProductID == 0 {
		t.Skip("en:base1-4 has no partner product id in this snapshot")
	}
	pid := fmt.Sprint(c.PartnerProductID)
	if p, by, err := resolve.ByID(src.Reader, "pokemon", pid); err != nil || p.ID != c.ID || by != resolve.ByPartnerID {
		t.Errorf("partner id %s: %v %s %v", pid, p, by, err)
	}
	// Every printing's ids at either marketplace: TCGplayer's bare or
	// prefixed, Cardmarket's prefixed.
	if len(c.MarketIDs) == 0 {
		t.Fatal("en:base1-4 has no market_ids in this snapshot")
	}
	for _, m := range c.MarketIDs {
		for id, want := range map[string]string{fmt.Sprint(m.TCGplayer): resolve.ByPartnerID, "TCGplayer:" + fmt.Sprint(m.TCGplayer): resolve.ByPartnerID,
			"cardmarket:" + fmt.Sprint(m.Cardmarket): resolve.ByCardmarketID} {
			if strings.HasSuffix(id, ":0") || id == "0" {
				continue
			}
			if p, by, err := resolve.ByID(src.Reader, "pokemon", id); err != nil || p.ID != c.ID || by != want {
				t.Errorf("%s: %v %s %v, want %s by %s", id, p, by, err, c.ID, want)
			}
		}
	}
	for _, id := range []string{"en:nope-1", "999999999999", "+" + pid, "0", "cardmarket:0", "cardmarket:x1", "ebay:" + pid, "cardmarket:", "tcgplayer:-1"} {
		if _, _, err := resolve.ByID(src.Reader, "pokemon", id); apperr.ErrorCode(err) != apperr.ENOTFOUND {
			t.Errorf("%s: %v, want ENOTFOUND", id, err)
		}
	}
}

func TestColumns_Resolve(t *testing.T) {
	cols, err := resolve.NewColumns(src, "pokemon")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		f      resolve.Fields
		status string
		by     string
		card   string
	}{
		{resolve.Fields{CardID: "en:base1-4"}, resolve.Resolved, resolve.ByCardID, "en:base1-4"},
		{resolve.Fields{Set: "Base", Number: "4/102"}, resolve.Resolved, resolve.BySetNumber, "en:base1-4"},
		{resolve.Fields{Set: "base set", Number: "004"}, resolve.Resolved, resolve.BySetNumber, "en:base1-4"},
		{resolve.Fields{Name: "charizard", Set: "en:base1"}, resolve.Resolved, resolve.BySetName, "en:base1-4"},
		{resolve.Fields{CardID: "en:nope-1", Set: "Base", Number: "4"}, resolve.Resolved, resolve.BySetNumber, "en:base1-4"},
		{resolve.Fields{Name: "Pikachu"}, resolve.Ambiguous, "", ""},
		{resolve.Fields{Name: "Charizard"}, resolve.Resolved, resolve.ByName, "en:base1-4"},
		{resolve.Fields{Name: "Charizzard"}, resolve.Ambiguous, "", ""},
		{resolve.Fields{CardID: "en:nope-1"}, resolve.NotFound, "", ""},
		{resolve.Fields{Set: "No Such Set", Number: "4"}, resolve.NotFound, "", ""},
	}
	for _, tc := range cases {
		m := cols.Resolve(ctx, tc.f)
		if m.Status != tc.status || m.By != tc.by || (tc.card != "" && (m.Card == nil || m.Card.ID != tc.card)) {
			t.Errorf("%+v: %s %s %v (%s)", tc.f, m.Status, m.By, m.Card, m.Reason)
		}
		if m.Status == resolve.Ambiguous && (len(m.Candidates) < 2 || len(m.Candidates) > resolve.MaxCandidates) {
			t.Errorf("%+v: %d candidates", tc.f, len(m.Candidates))
		}
		if m.Status != resolve.Resolved && m.Reason == "" {
			t.Errorf("%+v: no reason", tc.f)
		}
	}
	if m := cols.Resolve(ctx, resolve.Fields{CardID: "en:base1-4", Name: "Blastoise"}); len(m.Warnings) != 1 {
		t.Errorf("a name that disagrees is a warning: %+v", m)
	}
}

// src is a real tiny snapshot, built once for the package's tests.
var src *live.View

func TestMain(m *testing.M) { os.Exit(snapshotstest.RunView(m, &src, live.NewView)) }

// TestResolve_OtherGames: free text no card of the default game matches is
// tried in the snapshot's other games when the game was not given, and the
// answer says where it was found and the parameter that searches it first;
// with the game given, it is not found.
func TestResolve_OtherGames(t *testing.T) {
	ctx := context.Background()
	c, err := src.Reader.Card("onepiece", "en:OP01-001")
	if err != nil {
		t.Fatal(err)
	}
	ref := c.Name + " op01"
	r, err := resolve.Resolve(ctx, src, "pokemon", false, ref)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == resolve.NotFound || !strings.Contains(r.Message, "found in onepiece instead (add game=onepiece") {
		t.Fatalf("%q in pokemon, no game given: %s (%s)", ref, r.Status, r.Message)
	}
	if r.Status == resolve.Resolved && r.Card.Game != "onepiece" {
		t.Errorf("resolved to %s", r.Card.ID)
	}
	for _, cand := range r.Candidates {
		if cand.Game != "onepiece" {
			t.Errorf("candidate %s", cand.CardID)
		}
	}
	r, err = resolve.Resolve(ctx, src, "pokemon", true, ref)
	if err != nil || r.Status != resolve.NotFound || strings.Contains(r.Message, "onepiece") {
		t.Errorf("%q with game=pokemon: %s (%s) %v", ref, r.Status, r.Message, err)
	}
	r, err = resolve.Resolve(ctx, src, "pokemon", false, "zzqx wvvv")
	if err != nil || r.Status != resolve.NotFound || !strings.Contains(r.Message, "no other game's card matches either") {
		t.Errorf("nothing anywhere: %s (%s) %v", r.Status, r.Message, err)
	}
}
