package alert_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/alert/alerttest"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep"
)

// BenchmarkEvaluate_100k evaluates 100,000 rules (1,000 accounts of 100:
// price targets, moves and listings on 10,000 cards) against a synthetic
// market in a bbolt state file, one snapshot per iteration, with about a
// tenth of the rules crossing each time. It reports the time per rule; the
// figure over the default snapshot comes when the live view is wired.
func BenchmarkEvaluate_100k(b *testing.B) {
	b.Run("bolt", func(b *testing.B) {
		clock := statetest.NewClock(t0)
		benchEvaluate(b, openBolt(b, clock), clock)
	})
	b.Run("redis", func(b *testing.B) {
		clock := statetest.NewClock(t0)
		benchEvaluate(b, openRedis(b, clock), clock)
	})
}

func benchEvaluate(b *testing.B, st state.Store, clock *statetest.Clock) {
	const accounts, perAccount, cards = 1000, 100, 10000
	m := alerttest.New("b0", day0)
	for i := range cards {
		id := fmt.Sprintf("bench-%d", i)
		m.AddCard("pokemon", fmt.Sprintf("set%d", i/100), id, "Card "+id)
		m.SetPrice("own", "pokemon", id, 0, nm, day0-30, 1000)
	}
	for a := range accounts {
		err := st.Update(ctx, func(tx state.Tx) error {
			for r := range perAccount {
				n := a*perAccount + r
				rule := alert.Rule{ID: fmt.Sprintf("r_%016d", n), Account: fmt.Sprintf("a_%04d", a), Game: "pokemon",
					CardID: fmt.Sprintf("bench-%d", n%cards), Grade: nm.String(), Source: "own", Created: t0, Updated: t0}
				switch n % 4 {
				case 0, 1:
					rule.Condition = alert.Condition{Kind: alert.AtOrBelow, TargetCents: 900}
				case 2:
					rule.Condition = alert.Condition{Kind: alert.Move, Pct: 15, Days: 7, Direction: "either"}
				case 3:
					rule.Condition = alert.Condition{Kind: alert.FirstListing}
				}
				v, _ := json.Marshal(rule)
				if err := tx.Put(state.AlertRules, rule.Account+"/"+rule.ID, v, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	s := MustService(b, st, clock, nil)
	run, err := sweep.New(sweep.Options{State: st, Now: clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var fired int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		day := day0 + snapshots.Day(i+1)
		for c := 0; c < cards; c += 10 { // a tenth of the cards cross $9 one way or the other
			cents := int64(800)
			if i%2 == 1 {
				cents = 1000
			}
			m.SetPrice("own", "pokemon", fmt.Sprintf("bench-%d", c), 0, nm, day, cents)
		}
		m.Next(fmt.Sprintf("b%d", i+1), day)
		b.StartTimer()
		rep, err := s.Evaluate(ctx, m, run)
		if err != nil {
			b.Fatal(err)
		}
		fired += rep.Fired
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(accounts*perAccount)/1000, "µs/rule")
	b.ReportMetric(float64(fired)/float64(b.N), "events/op")
}
