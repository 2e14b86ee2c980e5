package alert

import (
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// View is a rule as its owner reads it (REST, MCP, the dashboard): the
// fields of an Input, amounts in USD, so that what a GET returns can be sent
// back as it is to replace the rule; and what the service keeps (id, times,
// the condition in words).
type View struct {
	ID       string `json:"id"`
	Game     string `json:"game"`
	CardID   string `json:"card_id,omitempty"`
	SetID    string `json:"set_id,omitempty"`
	Printing string `json:"printing"`
	Grade    string `json:"grade"`
	Source   string `json:"source"`
	// Kind is the condition (one of Kinds; "" for a want-list entry
	// without one), with its fields: PriceUSD for at_or_below and
	// at_or_above, Pct, Days and Direction for a move.
	Kind        string    `json:"kind"`
	PriceUSD    *float64  `json:"price_usd,omitempty"`
	Pct         *float64  `json:"pct,omitempty"`
	Days        int       `json:"days,omitempty"`
	Direction   string    `json:"direction,omitempty"`
	Description string    `json:"description"` // the condition in words
	Want        bool      `json:"want"`
	Quantity    int       `json:"quantity,omitempty"`
	Note        string    `json:"note,omitempty"`
	Paused      bool      `json:"paused"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
}

// View returns r as its owner reads it.
func (r Rule) View() View {
	v := View{ID: r.ID, Game: r.Game, CardID: r.CardID, SetID: r.SetID, Printing: r.Printing, Grade: r.Grade, Source: r.Source,
		Kind: r.Condition.Kind, Description: r.Condition.Describe(), Want: r.Want, Quantity: r.Quantity, Note: r.Note,
		Paused: r.Paused, Created: r.Created, Updated: r.Updated}
	switch r.Condition.Kind {
	case AtOrBelow, AtOrAbove:
		p := snapshots.USD(r.Condition.TargetCents)
		v.PriceUSD = &p
	case Move:
		p := r.Condition.Pct
		v.Pct, v.Days, v.Direction = &p, r.Condition.Days, r.Condition.Direction
	}
	return v
}

// Input returns the Input that makes r again (a form's values).
func (r Rule) Input() Input {
	v := r.View()
	return Input{Game: v.Game, CardID: v.CardID, SetID: v.SetID, Printing: v.Printing, Grade: v.Grade, Source: v.Source,
		Kind: v.Kind, PriceUSD: v.PriceUSD, Pct: v.Pct, Days: v.Days, Direction: v.Direction, Want: v.Want,
		Quantity: v.Quantity, Note: v.Note, Paused: v.Paused}
}

// EventView is an event as its owner reads it (REST, MCP, the dashboard):
// the webhook payload's fields (Payload), typed, with the event's type and
// time.
type EventView struct {
	ID         string        `json:"event_id"`
	Type       string        `json:"type"`
	Time       time.Time     `json:"time"`
	RuleID     string        `json:"rule_id"`
	Want       bool          `json:"want"`
	SnapshotID string        `json:"snapshot_id"`
	AsOf       string        `json:"as_of"`
	Game       string        `json:"game"`
	CardID     string        `json:"card_id"`
	Name       string        `json:"name"`
	SetID      string        `json:"set_id"`
	Number     string        `json:"number"`
	Printing   string        `json:"printing"`
	Grade      string        `json:"grade"`
	Source     string        `json:"source"`
	Condition  ConditionView `json:"condition"`
	Seen       SeenView      `json:"seen"`
	Summary    string        `json:"summary"`
}

// ConditionView is a condition with amounts in USD.
type ConditionView struct {
	Kind        string   `json:"kind"`
	Description string   `json:"description"`
	PriceUSD    *float64 `json:"price_usd,omitempty"`
	Pct         *float64 `json:"pct,omitempty"`
	Days        int      `json:"days,omitempty"`
	Direction   string   `json:"direction,omitempty"`
}

// SeenView is what fired a rule, amounts in USD (absent when not known).
type SeenView struct {
	PriceUSD   *float64 `json:"price_usd,omitempty"`
	PriceDay   string   `json:"price_day,omitempty"`
	Confidence string   `json:"confidence,omitempty"`
	ThenUSD    *float64 `json:"then_usd,omitempty"`
	MovePct    *float64 `json:"move_pct,omitempty"`
	Sales      *int     `json:"sales,omitempty"`
	Listings   *int     `json:"listings,omitempty"`
	LowAskUSD  *float64 `json:"low_ask_usd,omitempty"`
}

// View returns e as its owner reads it.
func (e Event) View() EventView {
	usd := func(c int64) *float64 {
		if c == 0 {
			return nil
		}
		v := snapshots.USD(c)
		return &v
	}
	v := EventView{ID: e.ID, Type: e.Type, Time: e.Time, RuleID: e.RuleID, Want: e.Want, SnapshotID: e.SnapshotID, AsOf: e.AsOf,
		Game: e.Game, CardID: e.CardID, Name: e.Name, SetID: e.SetID, Number: e.Number, Printing: e.Printing, Grade: e.Grade,
		Source: e.Source, Summary: e.Summary,
		Condition: ConditionView{Kind: e.Condition.Kind, Description: e.Condition.Describe()}}
	switch e.Condition.Kind {
	case AtOrBelow, AtOrAbove:
		v.Condition.PriceUSD = usd(e.Condition.TargetCents)
	case Move:
		p := e.Condition.Pct
		v.Condition.Pct, v.Condition.Days, v.Condition.Direction = &p, e.Condition.Days, e.Condition.Direction
	}
	if e.Seen.PriceCents != 0 {
		v.Seen.PriceUSD, v.Seen.PriceDay, v.Seen.Confidence = usd(e.Seen.PriceCents), e.Seen.PriceDay, e.Seen.Confidence
	}
	switch e.Condition.Kind {
	case Move:
		m := e.Seen.MovePct
		v.Seen.ThenUSD, v.Seen.MovePct = usd(e.Seen.ThenCents), &m
	case FirstSale:
		n := e.Seen.Sales
		v.Seen.Sales = &n
	case FirstListing:
		n := e.Seen.Listings
		v.Seen.Listings, v.Seen.LowAskUSD = &n, usd(e.Seen.LowAsk)
	}
	return v
}

// RuleList is alert-rules.v1: an account's rules (or want-list entries),
// oldest first, and how many its tier allows.
type RuleList struct {
	Items []View `json:"items"`
	Total int    `json:"total"`
	// Limit is the most rules and want-list entries (together) the tier
	// allows; SetLimit how many of them may watch a whole set.
	Limit    int `json:"limit"`
	SetLimit int `json:"set_limit"`
}

// NewRuleList is the list of rules under lim.
func NewRuleList(rules []Rule, lim Limits) RuleList {
	out := RuleList{Items: make([]View, 0, len(rules)), Total: len(rules), Limit: lim.Rules, SetLimit: lim.SetRules}
	for _, r := range rules {
		out.Items = append(out.Items, r.View())
	}
	return out
}

// RuleDeleted is alert-rule-deleted.v1.
type RuleDeleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// EventPage is alert-events.v1: an account's events, newest first.
type EventPage struct {
	Items []EventView `json:"items"`
	// NextCursor is the after of the next page ("" at the end).
	NextCursor string `json:"next_cursor"`
}

// NewEventPage is a page of events and the cursor of the next (Events).
func NewEventPage(evs []Event, next string) EventPage {
	out := EventPage{Items: make([]EventView, 0, len(evs)), NextCursor: next}
	for _, e := range evs {
		out.Items = append(out.Items, e.View())
	}
	return out
}

// FeedLink is alert-feed.v1.
type FeedLink struct {
	// URL is the feed's secret URL (Atom 1.0): anyone who has it reads
	// the account's last 50 alerts. Roll it to stop an old one.
	URL   string `json:"url"`
	Token string `json:"token"`
}
