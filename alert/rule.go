package alert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// Kinds of conditions.
const (
	// AtOrBelow holds when the price is at or below the target.
	AtOrBelow = "at_or_below"
	// AtOrAbove holds when the price is at or above the target.
	AtOrAbove = "at_or_above"
	// Move holds when the price moved by at least Pct percent over Days
	// days (up, down or either way).
	Move = "move"
	// FirstSale holds once the printing and grade has a verified sale.
	FirstSale = "first_sale"
	// FirstListing holds while the printing and grade has a current
	// listing.
	FirstListing = "first_listing"
)

// Kinds lists the kinds of conditions.
var Kinds = []string{AtOrBelow, AtOrAbove, Move, FirstSale, FirstListing}

// MoveDays are the spans a Move may be measured over.
var MoveDays = []int{1, 7, 30}

// Directions of a Move.
var Directions = []string{"up", "down", "either"}

// Limits of a rule's fields.
const (
	MaxNoteLen   = 500
	MaxQuantity  = 100000
	MaxPriceUSD  = 10_000_000
	MaxPct       = 1000
	MaxInputSize = 4 << 10 // a rule's JSON body
)

// Rule is a want-list entry or an alert rule of one account: a card (or
// every card of a set) in a printing and grade, a condition on one source's
// price, and, for a want-list entry, how many copies and a note.
type Rule struct {
	ID      string `json:"id"`
	Account string `json:"account"`
	Game    string `json:"game"`
	// CardID names one card; SetID every card of a set (exactly one).
	CardID string `json:"card_id,omitempty"`
	SetID  string `json:"set_id,omitempty"`
	// Printing is the card's variant as the catalog spells it; "" is each
	// card's base printing. A set rule with a printing watches the cards
	// that have it.
	Printing string `json:"printing,omitempty"`
	// Grade is the API's grade ("raw:near_mint", "slab:10").
	Grade string `json:"grade"`
	// Source is the price the condition reads: "own" (the headline fmv),
	// "partner", "observed", or a real-price source of the snapshot
	// ("cardmarket", "tcgplayer").
	Source    string    `json:"source"`
	Condition Condition `json:"condition"`
	// Want marks a want-list entry: Quantity copies wanted, with a Note.
	// Its condition may be empty (a list entry that never fires).
	Want     bool      `json:"want"`
	Quantity int       `json:"quantity,omitempty"`
	Note     string    `json:"note,omitempty"`
	Paused   bool      `json:"paused"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// Condition is what fires a rule. Amounts are cents.
type Condition struct {
	Kind        string  `json:"kind,omitempty"`         // one of Kinds; "" for a want entry without one
	TargetCents int64   `json:"target_cents,omitempty"` // AtOrBelow, AtOrAbove
	Pct         float64 `json:"pct,omitempty"`          // Move: at least this many percent (> 0)
	Days        int     `json:"days,omitempty"`         // Move: over 1, 7 or 30 days
	Direction   string  `json:"direction,omitempty"`    // Move: up, down or either
}

// Set reports whether the rule watches a whole set.
func (r Rule) Set() bool { return r.SetID != "" }

// Describe says in words what the condition asks.
func (c Condition) Describe() string {
	switch c.Kind {
	case AtOrBelow:
		return fmt.Sprintf("at or below $%.2f", snapshots.USD(c.TargetCents))
	case AtOrAbove:
		return fmt.Sprintf("at or above $%.2f", snapshots.USD(c.TargetCents))
	case Move:
		dir := map[string]string{"up": "up ", "down": "down ", "either": ""}[c.Direction]
		return fmt.Sprintf("a move %sof %g%% or more over %d day%s", dir, c.Pct, c.Days, map[bool]string{true: "", false: "s"}[c.Days == 1])
	case FirstSale:
		return "a first verified sale"
	case FirstListing:
		return "a listing"
	}
	return "none (a want-list entry)"
}

// Input is a rule as a caller sends it (REST body, MCP arguments, a
// dashboard form), before validation.
type Input struct {
	Game     string `json:"game"`
	CardID   string `json:"card_id"`
	SetID    string `json:"set_id"`
	Printing string `json:"printing"`
	Grade    string `json:"grade"`
	Source   string `json:"source"`
	// Condition: Kind one of Kinds; PriceUSD the target of AtOrBelow and
	// AtOrAbove; Pct, Days and Direction of a Move.
	Kind      string   `json:"kind"`
	PriceUSD  *float64 `json:"price_usd"`
	Pct       *float64 `json:"pct"`
	Days      int      `json:"days"`
	Direction string   `json:"direction"`
	Want      bool     `json:"want"`
	Quantity  int      `json:"quantity"`
	Note      string   `json:"note"`
	Paused    bool     `json:"paused"`
}

// ParseInput decodes a rule's JSON body: one object, known fields only, at
// most MaxInputSize bytes. Bad JSON is an EINVALID FieldErrors naming where;
// the fields' values are checked by Check.
func ParseInput(body []byte) (Input, error) {
	var in Input
	if len(body) > MaxInputSize {
		return in, fieldErr("", "too_long", fmt.Sprintf("the body is %d bytes; at most %d", len(body), MaxInputSize), nil)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Input{}, fieldErr("", "json_invalid", "the body is not a rule's JSON object: "+err.Error(), nil)
	}
	if dec.More() {
		return Input{}, fieldErr("", "json_invalid", "the body holds more than one JSON value", nil)
	}
	return in, nil
}

func fieldErr(field, typ, msg string, input any) apperr.FieldErrors {
	loc := []any{"body"}
	if field != "" {
		loc = append(loc, field)
	}
	return apperr.FieldErrors{{Loc: loc, Msg: msg, Type: typ, Input: input}}
}

var (
	idRE     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:\-]{0,79}$`)
	sourceRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
)

// Check validates in and returns the rule it describes (without id, account
// or times), or an EINVALID FieldErrors naming every field that is wrong.
// sources, when not nil, are the price sources a rule may name. It does not
// look the card up: Service.Create does, against the live snapshot.
func Check(in Input, sources []string) (Rule, error) {
	var errs apperr.FieldErrors
	bad := func(field, typ, msg string, input any) {
		errs = append(errs, fieldErr(field, typ, msg, input)...)
	}
	r := Rule{Game: strings.TrimSpace(in.Game), CardID: strings.TrimSpace(in.CardID), SetID: strings.TrimSpace(in.SetID),
		Printing: strings.TrimSpace(in.Printing), Source: strings.TrimSpace(in.Source), Want: in.Want, Note: strings.TrimSpace(in.Note), Paused: in.Paused}
	if !sourceRE.MatchString(r.Game) {
		bad("game", "missing", "game: name the card's game (pokemon, onepiece)", in.Game)
	}
	switch {
	case r.CardID == "" && r.SetID == "":
		bad("card_id", "missing", "name a card (card_id) or a whole set (set_id)", nil)
	case r.CardID != "" && r.SetID != "":
		bad("set_id", "value_error", "name a card (card_id) or a set (set_id), not both", in.SetID)
	case r.CardID != "" && !idRE.MatchString(r.CardID):
		bad("card_id", "value_error", "card_id: 1 to 80 letters, digits and . _ : -", in.CardID)
	case r.SetID != "" && !idRE.MatchString(r.SetID):
		bad("set_id", "value_error", "set_id: 1 to 80 letters, digits and . _ : -", in.SetID)
	}
	if len(r.Printing) > 80 || strings.ContainsAny(r.Printing, "\x00\r\n") {
		bad("printing", "value_error", "printing: one of the card's variants, at most 80 characters", in.Printing)
	}
	g, err := snapshots.ReadGradeOr(in.Grade, snapshots.RawNearMint)
	if err != nil {
		bad("grade", "value_error", "grade: "+err.Error(), in.Grade)
	} else {
		r.Grade = g.String()
	}
	if r.Source == "" {
		r.Source = pricing.SourceOwn
	}
	switch {
	case !sourceRE.MatchString(r.Source):
		bad("source", "value_error", "source: a price source's name (own, partner, observed, cardmarket, ...)", in.Source)
	case sources != nil && !slices.Contains(sources, r.Source):
		bad("source", "enum", "source: one of "+strings.Join(sources, ", "), in.Source)
	}
	c := Condition{Kind: strings.TrimSpace(in.Kind)}
	switch c.Kind {
	case AtOrBelow, AtOrAbove:
		switch p := in.PriceUSD; {
		case p == nil:
			bad("price_usd", "missing", "price_usd: the target price in USD is required for "+c.Kind, nil)
		case math.IsNaN(*p) || *p <= 0 || *p > MaxPriceUSD:
			bad("price_usd", "value_error", fmt.Sprintf("price_usd: an amount in USD above 0 and at most %d", MaxPriceUSD), *p)
		default:
			c.TargetCents = int64(math.Round(*p * 100))
			if c.TargetCents == 0 {
				bad("price_usd", "value_error", "price_usd: at least 0.01", *p)
			}
		}
	case Move:
		switch p := in.Pct; {
		case p == nil:
			bad("pct", "missing", "pct: the move in percent is required for move", nil)
		case math.IsNaN(*p) || *p <= 0 || *p > MaxPct:
			bad("pct", "value_error", fmt.Sprintf("pct: a percentage above 0 and at most %d", MaxPct), *p)
		default:
			c.Pct = math.Round(*p*100) / 100
		}
		c.Days = in.Days
		if !slices.Contains(MoveDays, c.Days) {
			bad("days", "enum", "days: 1, 7 or 30", in.Days)
		}
		c.Direction = strings.TrimSpace(in.Direction)
		if c.Direction == "" {
			c.Direction = "either"
		}
		if !slices.Contains(Directions, c.Direction) {
			bad("direction", "enum", "direction: up, down or either", in.Direction)
		}
	case FirstSale, FirstListing:
	case "":
		if !in.Want {
			bad("kind", "missing", "kind: one of "+strings.Join(Kinds, ", ")+" (only a want-list entry may have none)", nil)
		}
	default:
		bad("kind", "enum", "kind: one of "+strings.Join(Kinds, ", "), in.Kind)
	}
	if c.Kind != AtOrBelow && c.Kind != AtOrAbove && in.PriceUSD != nil {
		bad("price_usd", "value_error", "price_usd: only at_or_below and at_or_above take a target price", *in.PriceUSD)
	}
	if c.Kind != Move && (in.Pct != nil || in.Days != 0 || in.Direction != "") {
		bad("pct", "value_error", "pct, days and direction: only a move takes them", nil)
	}
	r.Condition = c
	if in.Want {
		r.Quantity = in.Quantity
		if r.Quantity == 0 {
			r.Quantity = 1
		}
		if r.Quantity < 1 || r.Quantity > MaxQuantity {
			bad("quantity", "value_error", fmt.Sprintf("quantity: 1 to %d copies", MaxQuantity), in.Quantity)
		}
	} else if in.Quantity != 0 {
		bad("quantity", "value_error", "quantity: only a want-list entry (want: true) has one", in.Quantity)
	}
	if len(r.Note) > MaxNoteLen || strings.ContainsRune(r.Note, 0) {
		bad("note", "string_too_long", fmt.Sprintf("note: at most %d bytes of text", MaxNoteLen), nil)
	}
	if errs != nil {
		return Rule{}, errs
	}
	return r, nil
}
