package alert_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep/sweeptest"
)

// atom is what RFC 4287 requires of a feed and its entries.
type atom struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Author  []struct {
		Name string `xml:"name"`
	} `xml:"author"`
	Links []struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Entries []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Summary string `xml:"summary"`
		Content struct {
			Type string `xml:"type,attr"`
			Body string `xml:",chardata"`
		} `xml:"content"`
	} `xml:"entry"`
}

func TestService_Feed(t *testing.T) {
	clock := statetest.NewClock(t0)
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	s := MustService(t, st, clock, nil)
	m := fixture()
	m.SetPrice("own", "pokemon", "base1-2", 0, nm, day0, 900)
	m.SetPrice("own", "pokemon", "base1-15", 0, nm, day0, 900)
	MustCreate(t, s, m, "a_1", alert.Input{Game: "pokemon", CardID: "base1-2", Kind: alert.AtOrBelow, PriceUSD: price(10)})
	MustCreate(t, s, m, "a_1", alert.Input{Game: "pokemon", CardID: "base1-15", Kind: alert.AtOrBelow, PriceUSD: price(10), Note: "<b>&</b>", Want: true})
	if _, err := s.Evaluate(ctx, m, sweeptest.MustRunner(t, st, "r", clock, 3)); err != nil {
		t.Fatal(err)
	}
	token, err := s.FeedToken(ctx, "a_1")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.FeedToken(ctx, "a_1"); again != token {
		t.Fatal("a second FeedToken made a new token")
	}
	self := "https://cardedge.example/feeds/alerts/" + token + ".atom"
	b, err := s.Feed(ctx, token, alert.FeedInfo{SelfURL: self, AlternateURL: "https://cardedge.example/dashboard/alerts"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Errorf("no XML declaration: %.60s", b)
	}
	var f atom
	if err := xml.Unmarshal(b, &f); err != nil {
		t.Fatalf("the feed does not parse as Atom: %v\n%s", err, b)
	}
	if !strings.HasPrefix(f.ID, "urn:uuid:") || f.Title == "" || len(f.Author) != 1 || len(f.Entries) != 2 {
		t.Fatalf("feed %+v", f)
	}
	if _, err := time.Parse(time.RFC3339, f.Updated); err != nil {
		t.Errorf("updated %q: %v", f.Updated, err)
	}
	if len(f.Links) != 2 || f.Links[0].Rel != "self" || f.Links[0].Href != self {
		t.Errorf("links %+v", f.Links)
	}
	ids := map[string]bool{}
	for _, e := range f.Entries {
		if !strings.HasPrefix(e.ID, "urn:uuid:") || ids[e.ID] || e.Title == "" || e.Content.Type != "text" || !strings.Contains(e.Content.Body, "Snapshot s1") {
			t.Errorf("entry %+v", e)
		}
		if _, err := time.Parse(time.RFC3339, e.Updated); err != nil {
			t.Errorf("entry updated %q: %v", e.Updated, err)
		}
		ids[e.ID] = true
	}
	// The feed's id stays when the token rolls; the old URL stops working.
	rolled, err := s.RollFeed(ctx, "a_1")
	if err != nil || rolled == token {
		t.Fatal(err)
	}
	if _, err := s.Feed(ctx, token, alert.FeedInfo{}); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("old token: %v", err)
	}
	b2, _ := s.Feed(ctx, rolled, alert.FeedInfo{})
	var f2 atom
	xml.Unmarshal(b2, &f2)
	if f2.ID != f.ID {
		t.Errorf("feed id changed with the token: %s, %s", f.ID, f2.ID)
	}
	// An empty feed is valid too.
	var empty bytes.Buffer
	if err := alert.RenderFeed(&empty, "a_2", alert.FeedInfo{Now: t0}, nil); err != nil {
		t.Fatal(err)
	}
	var f3 atom
	if err := xml.Unmarshal(empty.Bytes(), &f3); err != nil || f3.Updated != "2026-11-20T12:00:00Z" {
		t.Fatalf("empty feed: %v %+v", err, f3)
	}
}

// TestDeleteAccount: the export holds the account's rules, events and feed
// token; the deletion leaves nothing of it, and another account's data
// stays.
func TestDeleteAccount(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		s := MustService(t, st, clock, nil)
		m := fixture()
		m.SetPrice("own", "pokemon", "base1-2", 0, nm, day0, 900)
		for _, a := range []string{"a_1", "a_2"} {
			MustCreate(t, s, m, a, alert.Input{Game: "pokemon", CardID: "base1-2", Kind: alert.AtOrBelow, PriceUSD: price(10)})
			MustCreate(t, s, m, a, alert.Input{Game: "pokemon", SetID: "jungle", Kind: alert.FirstListing})
			s.FeedToken(ctx, a)
		}
		if _, err := s.Evaluate(ctx, m, sweeptest.MustRunner(t, st, "r", clock, 3)); err != nil {
			t.Fatal(err)
		}
		x, err := s.Export(ctx, "a_1")
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Rules) != 2 || len(x.Events) != 1 || x.FeedToken == "" {
			t.Fatalf("export %+v", x)
		}
		if err := s.DeleteAll(ctx, "a_1"); err != nil {
			t.Fatal(err)
		}
		st.View(ctx, func(tx state.Tx) error {
			for _, b := range []state.Bucket{state.AlertRules, state.AlertStates, state.AlertEvents, state.AlertFeeds} {
				tx.Scan(b, state.ScanOptions{}, func(k string, v []byte) error {
					if strings.Contains(k, "a_1") || strings.Contains(string(v), `"a_1"`) {
						t.Errorf("left after the deletion: %s %s", b, k)
					}
					return nil
				})
			}
			return nil
		})
		if _, err := s.FeedAccount(ctx, x.FeedToken); apperr.ErrorCode(err) != apperr.ENOTFOUND {
			t.Errorf("the deleted account's feed: %v", err)
		}
		if x2, _ := s.Export(ctx, "a_2"); len(x2.Rules) != 2 || len(x2.Events) != 1 {
			t.Errorf("the other account: %+v", x2)
		}
	})
}
