package alert_test

import (
	"testing"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

func TestNewRuleList(t *testing.T) {
	lim := alert.Limits{Rules: 10, SetRules: 2}
	t.Run("Empty", func(t *testing.T) {
		if got, want := jsontexttest.MustMarshal(t, alert.NewRuleList(nil, lim)), `{"items":[],"total":0,"limit":10,"set_limit":2}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("OK", func(t *testing.T) {
		l := alert.NewRuleList([]alert.Rule{{ID: "r1", Game: "pokemon"}, {ID: "r2", Game: "pokemon", Want: true}}, lim)
		if l.Total != 2 || len(l.Items) != 2 || l.Items[0].ID != "r1" || l.Items[1].ID != "r2" || !l.Items[1].Want {
			t.Errorf("got %+v, want r1 then the want-list entry r2, total 2", l)
		}
	})
}

func TestNewEventPage(t *testing.T) {
	t.Run("Empty", func(t *testing.T) {
		if got, want := jsontexttest.MustMarshal(t, alert.NewEventPage(nil, "")), `{"items":[],"next_cursor":""}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("OK", func(t *testing.T) {
		p := alert.NewEventPage([]alert.Event{{ID: "e2", RuleID: "r1"}, {ID: "e1", RuleID: "r1"}}, "cursor")
		if len(p.Items) != 2 || p.Items[0].ID != "e2" || p.Items[1].RuleID != "r1" || p.NextCursor != "cursor" {
			t.Errorf("got %+v, want e2 then e1 of r1 and the next cursor", p)
		}
	})
}
