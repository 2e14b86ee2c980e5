package alert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/sweep"
)

// ruleState is a rule's crossing state (state.AlertStates).
type ruleState struct {
	// In lists the members (lower-case card ids) whose condition held at
	// the last evaluation that could tell: a member fires when it enters
	// In, and again only after it left it.
	In []string `json:"in,omitempty"`
	// Baseline is set once a first_sale or first_listing rule has seen
	// the activity of its members once (at creation, with a snapshot, or
	// at its first evaluation): what was there before does not fire.
	Baseline bool `json:"baseline,omitempty"`
}

func (s ruleState) empty() bool { return len(s.In) == 0 && !s.Baseline }

// outcome is one rule's evaluation.
type outcome struct {
	state   ruleState
	changed bool
	events  []Event
	// members checked, and those whose condition could not be told (no
	// price, an unknown card or printing, a source the snapshot lacks).
	members, unknown int
}

// evalRule evaluates r against m, from state st. With fire false it only
// records the state (a new rule's baseline).
func evalRule(m Market, r Rule, st ruleState, now time.Time, fire bool) outcome {
	out := outcome{state: st}
	if r.Paused || r.Condition.Kind == "" {
		return out
	}
	g, err := snapshots.ParseGrade(r.Grade)
	if err != nil {
		return out
	}
	var cards []*snapshots.Card
	if r.Set() {
		if cards, err = m.SetCards(r.Game, r.SetID); err != nil {
			out.unknown++
			return out
		}
	} else {
		c, err := m.Card(r.Game, r.CardID)
		if err != nil {
			out.unknown++
			return out
		}
		cards = []*snapshots.Card{c}
	}
	first := r.Condition.Kind == FirstSale || r.Condition.Kind == FirstListing
	prev := map[string]bool{}
	for _, k := range st.In {
		prev[k] = true
	}
	next := map[string]bool{}
	asOf := m.AsOf()
	for _, c := range cards {
		finish, ok := finishOf(c, r.Printing)
		if !ok {
			if !r.Set() {
				out.unknown++
			}
			continue
		}
		out.members++
		key := strings.ToLower(c.ID)
		holds, known, seen := check(m, r, c, finish, g, asOf)
		if !known {
			out.unknown++
			next[key] = prev[key]
			continue
		}
		if !holds {
			continue
		}
		next[key] = true
		if prev[key] || !fire || (first && !st.Baseline) {
			continue
		}
		e := Event{ID: EventID(m.SnapshotID(), r.ID, c.ID), Type: TypeTriggered, Account: r.Account, Time: now.UTC(),
			SnapshotID: m.SnapshotID(), AsOf: asOf.String(), RuleID: r.ID, Want: r.Want,
			Game: c.Game, CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Printing: printingName(c, finish),
			Grade: r.Grade, Source: r.Source, Condition: r.Condition, Seen: seen}
		e.Summary = summary(&e)
		out.events = append(out.events, e)
	}
	in := make([]string, 0, len(next))
	for k, ok := range next {
		if ok {
			in = append(in, k)
		}
	}
	slices.Sort(in)
	out.state = ruleState{In: in, Baseline: st.Baseline || first}
	out.changed = !slices.Equal(in, st.In) || out.state.Baseline != st.Baseline
	return out
}

// finishOf is the printing of c a rule names: the base one for "", else the
// variant of that name (any case).
func finishOf(c *snapshots.Card, printing string) (int, bool) {
	if printing == "" {
		return snapshots.BasePrinting(c), true
	}
	for i, v := range c.Variants {
		if strings.EqualFold(v, printing) {
			return i, true
		}
	}
	return 0, false
}

func printingName(c *snapshots.Card, finish int) string {
	if finish < len(c.Variants) {
		return c.Variants[finish]
	}
	return ""
}

// check tells whether r's condition holds for printing finish of card c:
// known false when it cannot be told.
func check(m Market, r Rule, c *snapshots.Card, finish int, g snapshots.Grade, asOf snapshots.Day) (holds, known bool, seen Seen) {
	cond := r.Condition
	switch cond.Kind {
	case AtOrBelow, AtOrAbove, Move:
		p, err := m.Price(r.Source, c, finish, g, asOf)
		if err != nil || p.Cents <= 0 {
			return false, false, seen
		}
		seen.PriceCents, seen.PriceDay = p.Cents, p.Day.String()
		if p.Estimate != nil {
			seen.Confidence = p.Estimate.Confidence.String()
		}
		switch cond.Kind {
		case AtOrBelow:
			return p.Cents <= cond.TargetCents, true, seen
		case AtOrAbove:
			return p.Cents >= cond.TargetCents, true, seen
		}
		then, err := m.Price(r.Source, c, finish, g, asOf-snapshots.Day(cond.Days))
		if err != nil || then.Cents <= 0 {
			return false, false, seen
		}
		pct := float64(p.Cents-then.Cents) / float64(then.Cents) * 100
		seen.ThenCents, seen.MovePct = then.Cents, math.Round(pct*10)/10
		switch cond.Direction {
		case "up":
			return pct >= cond.Pct, true, seen
		case "down":
			return -pct >= cond.Pct, true, seen
		}
		return math.Abs(pct) >= cond.Pct, true, seen
	case FirstSale, FirstListing:
		a, err := m.Activity(c, finish, g)
		if err != nil {
			return false, false, seen
		}
		seen.Sales, seen.Listings, seen.LowAsk = a.Sales, a.Listings, a.LowAskCents
		if cond.Kind == FirstSale {
			return a.Sales > 0, true, seen
		}
		return a.Listings > 0, true, seen
	}
	return false, false, seen
}

// Report is what an evaluation did: the job's progress, and what this
// process found in the chunks it computed (a chunk another process took over
// may be counted by both).
type Report struct {
	Job      string         `json:"job"`
	Progress sweep.Progress `json:"progress"`
	Rules    int            `json:"rules"`   // rules visited
	Members  int            `json:"members"` // cards checked (a set rule checks each card)
	Unknown  int            `json:"unknown"` // checks that could not tell (no price, ...)
	Fired    int            `json:"fired"`   // events found
	Duration time.Duration  `json:"duration"`
}

// JobID is the id of the evaluation of snapshot snapshotID (package sweep).
func JobID(snapshotID string) string { return "alerts/" + snapshotID }

// Evaluate checks every rule of every account against the snapshot m, once
// per snapshot across a fleet (run's lease), chunk by chunk at run's pace,
// resuming where a process that died left it: a rule fires when its
// condition holds and did not at its last evaluation (once per crossing).
// Each chunk's new states and events commit in one transaction, with
// Options.OnEvent called there for every new event. Events are inserted by
// key (snapshot day and event id): an event already there is not inserted,
// nor handed to OnEvent, again. It returns when the snapshot's evaluation is
// done (by this process or another), or ctx ends.
func (s *Service) Evaluate(ctx context.Context, m Market, run *sweep.Runner) (Report, error) {
	start := time.Now()
	rep := Report{Job: JobID(m.SnapshotID())}
	job := sweep.Job{ID: rep.Job, Bucket: state.AlertRules, Visit: func(ctx context.Context, chunk sweep.Chunk) (func(state.Tx) error, error) {
		return s.visit(ctx, m, chunk, &rep)
	}}
	p, err := run.Run(ctx, job)
	rep.Progress, rep.Duration = p, time.Since(start)
	if err != nil {
		return rep, fmt.Errorf("alert: evaluate %s: %w", m.SnapshotID(), err)
	}
	return rep, nil
}

// visit evaluates a chunk of rules and returns the writes of its results.
func (s *Service) visit(ctx context.Context, m Market, chunk sweep.Chunk, rep *Report) (func(state.Tx) error, error) {
	last := chunk.Records[len(chunk.Records)-1].Key
	states := map[string]ruleState{}
	err := s.state.View(ctx, func(tx state.Tx) error {
		clear(states)
		return ruleStates.Scan(tx, state.ScanOptions{After: chunk.After}, func(k string, v ruleState) error {
			if k > last {
				return errStop
			}
			states[k] = v
			return nil
		})
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("read rule states: %w", err)
	}
	now := s.now()
	type result struct {
		key     string
		updated time.Time
		out     outcome
	}
	var results []result
	for _, rec := range chunk.Records {
		var r Rule
		if err := json.Unmarshal(rec.Value, &r); err != nil {
			return nil, fmt.Errorf("%w: %s %q: %v", state.ErrCorrupt, state.AlertRules, rec.Key, err)
		}
		rep.Rules++
		out := evalRule(m, r, states[rec.Key], now, true)
		rep.Members += out.members
		rep.Unknown += out.unknown
		rep.Fired += len(out.events)
		if out.changed || len(out.events) > 0 {
			results = append(results, result{rec.Key, r.Updated, out})
		}
	}
	if len(results) == 0 {
		return nil, nil
	}
	asOf := m.AsOf()
	return func(tx state.Tx) error {
		for _, res := range results {
			// A rule deleted or changed since it was read: its results are
			// dropped (a change resets its state).
			r, err := rules.Get(tx, res.key)
			if errors.Is(err, state.ErrNotFound) || (err == nil && !r.Updated.Equal(res.updated)) {
				continue
			}
			if err != nil {
				return err
			}
			if res.out.changed {
				if res.out.state.empty() {
					err = ruleStates.Delete(tx, res.key)
				} else {
					err = ruleStates.Put(tx, res.key, res.out.state, 0)
				}
				if err != nil {
					return err
				}
			}
			for _, e := range res.out.events {
				err := events.Insert(tx, eventKey(e.Account, asOf, e.ID), e, EventTTL)
				if errors.Is(err, state.ErrConflict) {
					continue // inserted before: handed on then
				}
				if err != nil {
					return err
				}
				if s.onEvent != nil {
					if err := s.onEvent(tx, e); err != nil {
						return fmt.Errorf("hand on event %s: %w", e.ID, err)
					}
				}
			}
		}
		return nil
	}, nil
}

var errStop = errors.New("stop")
