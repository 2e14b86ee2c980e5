package alert

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// TypeTriggered is the type of an event of a rule that fired (webhook
// payloads' "type").
const TypeTriggered = "alert.triggered"

// EventTTL is how long events are kept (the feed, the dashboard).
const EventTTL = 90 * 24 * time.Hour

// Event is one firing of a rule for one card: what the feed, the dashboard
// and webhooks show.
type Event struct {
	// ID is derived from the snapshot, the rule and the card (EventID): the
	// same firing always has the same id, which webhooks send as
	// webhook-id.
	ID      string    `json:"id"`
	Type    string    `json:"type"`
	Account string    `json:"account"`
	Time    time.Time `json:"time"` // when the evaluation found it
	// The snapshot whose prices fired the rule.
	SnapshotID string `json:"snapshot_id"`
	AsOf       string `json:"as_of"`
	RuleID     string `json:"rule_id"`
	Want       bool   `json:"want"`
	// The card, printing and grade, and the source read.
	Game     string `json:"game"`
	CardID   string `json:"card_id"`
	Name     string `json:"name"`
	SetID    string `json:"set_id"`
	Number   string `json:"number"`
	Printing string `json:"printing"`
	Grade    string `json:"grade"`
	Source   string `json:"source"`
	// Condition is the rule's condition; Seen what the snapshot showed.
	Condition Condition `json:"condition"`
	Seen      Seen      `json:"seen"`
	// Summary says it in one sentence.
	Summary string `json:"summary"`
}

// Seen is what fired a rule. Amounts are cents; zero values are absent.
type Seen struct {
	PriceCents int64   `json:"price_cents,omitempty"`
	PriceDay   string  `json:"price_day,omitempty"`  // the day behind the price
	Confidence string  `json:"confidence,omitempty"` // the estimate's, for own
	ThenCents  int64   `json:"then_cents,omitempty"` // a move: the price Days before
	MovePct    float64 `json:"move_pct,omitempty"`
	Sales      int     `json:"sales,omitempty"`
	Listings   int     `json:"listings,omitempty"`
	LowAsk     int64   `json:"low_ask_cents,omitempty"`
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// EventID is the id of rule ruleID's firing for card cardID at snapshot
// snapshotID: "evt_" and 26 base32 characters of their SHA-256.
func EventID(snapshotID, ruleID, cardID string) string {
	h := sha256.Sum256([]byte(snapshotID + "\x00" + ruleID + "\x00" + strings.ToLower(cardID)))
	return "evt_" + strings.ToLower(b32.EncodeToString(h[:16]))
}

// eventKey is e's key in state.AlertEvents: account, the snapshot's day (8
// hex digits) and the id, so that a reverse scan reads newest first.
func eventKey(account string, asOf snapshots.Day, id string) string {
	return fmt.Sprintf("%s/%08x/%s", account, uint32(asOf), id)
}

// Payload is the event's data as webhooks and the API send it: amounts in
// USD, the condition in the words of a rule's input.
func (e Event) Payload() json.RawMessage {
	usd := func(c int64) *float64 {
		if c == 0 {
			return nil
		}
		v := snapshots.USD(c)
		return &v
	}
	cond := map[string]any{"kind": e.Condition.Kind, "description": e.Condition.Describe()}
	switch e.Condition.Kind {
	case AtOrBelow, AtOrAbove:
		cond["price_usd"] = usd(e.Condition.TargetCents)
	case Move:
		cond["pct"], cond["days"], cond["direction"] = e.Condition.Pct, e.Condition.Days, e.Condition.Direction
	}
	seen := map[string]any{}
	if e.Seen.PriceCents != 0 {
		seen["price_usd"], seen["price_day"] = usd(e.Seen.PriceCents), e.Seen.PriceDay
		if e.Seen.Confidence != "" {
			seen["confidence"] = e.Seen.Confidence
		}
	}
	if e.Condition.Kind == Move {
		seen["then_usd"], seen["move_pct"] = usd(e.Seen.ThenCents), e.Seen.MovePct
	}
	if e.Condition.Kind == FirstSale {
		seen["sales"] = e.Seen.Sales
	}
	if e.Condition.Kind == FirstListing {
		seen["listings"], seen["low_ask_usd"] = e.Seen.Listings, usd(e.Seen.LowAsk)
	}
	b, _ := json.Marshal(map[string]any{
		"event_id": e.ID, "rule_id": e.RuleID, "want": e.Want, "snapshot_id": e.SnapshotID, "as_of": e.AsOf,
		"game": e.Game, "card_id": e.CardID, "name": e.Name, "set_id": e.SetID, "number": e.Number,
		"printing": e.Printing, "grade": e.Grade, "source": e.Source,
		"condition": cond, "seen": seen, "summary": e.Summary,
	})
	return b
}

// summary says what fired in one sentence.
func summary(e *Event) string {
	what := e.Name + " (" + e.CardID
	if e.Printing != "" {
		what += ", " + e.Printing
	}
	what += ", " + snapshots.GradeNameOf(e.Grade) + ")" // as people read it: PSA 10
	price := func(c int64) string { return fmt.Sprintf("$%.2f", snapshots.USD(c)) }
	switch e.Condition.Kind {
	case AtOrBelow, AtOrAbove:
		return fmt.Sprintf("%s is %s (%s), %s", what, price(e.Seen.PriceCents), e.Source, e.Condition.Describe())
	case Move:
		return fmt.Sprintf("%s moved %+.1f%% over %d days (%s to %s, %s)", what, e.Seen.MovePct, e.Condition.Days,
			price(e.Seen.ThenCents), price(e.Seen.PriceCents), e.Source)
	case FirstSale:
		return fmt.Sprintf("%s has its first verified sale", what)
	case FirstListing:
		return fmt.Sprintf("%s is listed (%d listing%s, from %s)", what, e.Seen.Listings, map[bool]string{true: "", false: "s"}[e.Seen.Listings == 1], price(e.Seen.LowAsk))
	}
	return what
}
