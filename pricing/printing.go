package pricing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// Printings: every price is one printing's (one of a card's variants), never
// a blend of them. A route that prices a card takes a finish and answers for
// one printing: the one PrintingOf picks, the card's base printing when no
// finish is given (snapshots.BasePrinting), named in the answer.

// finishAliases are words people write for a part of a variant.
var finishAliases = map[string]string{
	"first-edition": "1st-edition", "1st-ed": "1st-edition", "1st": "1st-edition", "1st-edition": "1st-edition",
	"first-ed": "1st-edition", "1ed": "1st-edition",
	"reverse-holo": "reverse", "reverse-holofoil": "reverse", "reverse-foil": "reverse", "rh": "reverse",
	"holofoil": "holo", "foil": "holo",
	"non-holo": "normal", "nonholo": "normal",
	"alt-art": "alternate-art", "alternate": "alternate-art", "alt": "alternate-art",
}

// normalizePart lowercases a variant part and writes its spaces and
// underscores as hyphens ("1st Edition" and "1st-edition" are one part).
func normalizePart(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '\t' }), "-")
	if a, ok := finishAliases[s]; ok {
		return a
	}
	return s
}

// variantParts returns the normalized parts of a variant ("holo/1st Edition"
// -> holo, 1st-edition).
func variantParts(v string) []string {
	parts := strings.Split(v, "/")
	for i, p := range parts {
		parts[i] = normalizePart(p)
	}
	return parts
}

// PrintingOf picks the printing of card c a finish names, as an index into
// c.Variants (0 for a card without variants):
//
//   - "" is the card's base printing (snapshots.BasePrinting);
//   - a whole variant, any case, spaces or hyphens ("holo/shadowless",
//     "holo/1st edition");
//   - else one or more parts ("1st-edition", "shadowless/1st-edition",
//     "reverse"; "1st edition", "first edition" and "reverse holo" are read
//     as the parts they mean): of the variants that have every part, the one
//     with the fewest other parts, the base printing first on a tie, then
//     catalog order ("holo" on en:base1-4 is holo/unlimited).
//
// A finish the card does not have is EINVALID, naming the card's variants.
func PrintingOf(c *snapshots.Card, finish string) (int, error) {
	finish = strings.TrimSpace(finish)
	if finish == "" {
		return snapshots.BasePrinting(c), nil
	}
	if len(c.Variants) == 0 {
		return 0, apperr.Errorf(apperr.EINVALID, "finish %q: card %s has no known variants (one printing); leave finish out", finish, c.ID)
	}
	asked := variantParts(finish)
	for i, v := range c.Variants {
		if slices.Equal(variantParts(v), asked) {
			return i, nil
		}
	}
	base := snapshots.BasePrinting(c)
	best, bestExtra := -1, 0
	for i, v := range c.Variants {
		parts := variantParts(v)
		ok := true
		for _, a := range asked {
			if !slices.Contains(parts, a) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		extra := len(parts) - len(asked)
		if best < 0 || extra < bestExtra || (extra == bestExtra && i == base) {
			best, bestExtra = i, extra
		}
	}
	if best < 0 {
		return 0, apperr.Errorf(apperr.EINVALID, "finish %q is not a printing of card %s; its printings are %s", finish, c.ID, strings.Join(c.Variants, ", "))
	}
	return best, nil
}

// PrintingName is the name of printing finish of c: its variant, or "" for
// a card without variants.
func PrintingName(c *snapshots.Card, finish int) string {
	if finish >= 0 && finish < len(c.Variants) {
		return c.Variants[finish]
	}
	return ""
}

// OnePrinting is the Finish that selects the sales and listings of one
// printing of c.
func OnePrinting(c *snapshots.Card, finish int) Finish {
	if len(c.Variants) == 0 {
		return Finish{}
	}
	f := Finish{Asked: strings.ToLower(c.Variants[finish]), Variants: []string{c.Variants[finish]}, idx: make([]bool, len(c.Variants))}
	f.idx[finish] = true
	return f
}

// EstimateOf returns printing p's estimate of grade g (false when the grade
// has no series in that printing).
func EstimateOf(p *snapshots.Printing, g snapshots.Grade) (snapshots.Estimate, bool) {
	for _, e := range p.Estimates {
		if e.Grade == g {
			return e, true
		}
	}
	return snapshots.Estimate{Grade: g, LastSaleDay: snapshots.NoDay}, false
}

// PrintingEstimate reads card c's printings and returns printing finish's
// estimate of grade g (ok false when that grade has no series there).
func PrintingEstimate(r snapshots.Reader, c *snapshots.Card, finish int, g snapshots.Grade) (e snapshots.Estimate, ok bool, err error) {
	ps, err := r.Printings(c.Game, c.ID)
	if err != nil {
		return snapshots.Estimate{}, false, err
	}
	for i := range ps {
		if int(ps[i].Finish) == finish {
			e, ok = EstimateOf(&ps[i], g)
			return e, ok, nil
		}
	}
	return snapshots.Estimate{Grade: g, LastSaleDay: snapshots.NoDay}, false, nil
}

// Shown is the fmv an estimate shows: none at confidence none (no accepted
// verified sale in the sample window), where note says why instead.
func Shown(e snapshots.Estimate) (cents int64, note string) {
	if e.Shown() == 0 {
		return 0, NoteNone(e)
	}
	return e.FMVCents, ""
}

// NoteNone says why an estimate at confidence none shows no value.
func NoteNone(e snapshots.Estimate) string {
	g := e.Grade.Name()
	if e.LastSaleDay == snapshots.NoDay || e.LastSaleDay == 0 {
		return fmt.Sprintf("no value: no accepted verified %s sale of this printing (confidence none; see /api/v3/methodology)", g)
	}
	return fmt.Sprintf("no value: no accepted verified %s sale of this printing in the last %d days, the last on %s (confidence none; see /api/v3/methodology)",
		g, estimate.Default.SampleDays, e.LastSaleDay)
}

// FlagNames are the names of flags, never nil (a JSON array).
func FlagNames(f estimate.Flags) []string {
	if n := f.Names(); n != nil {
		return n
	}
	return []string{}
}

// LastSaleDate is an estimate's last accepted sale day as a date (nil when
// none).
func LastSaleDate(e snapshots.Estimate) *string {
	if e.LastSaleDay == snapshots.NoDay || e.LastSaleDay == 0 {
		return nil
	}
	s := e.LastSaleDay.String()
	return &s
}

// EstimateRow is a series' estimate as the API shows it: the derived values
// (null at confidence none, with a note) and what stands behind them.
type EstimateRow struct {
	FMVUSD       *float64 `json:"fmv_usd"`
	TVWAPUSD     *float64 `json:"tvwap_usd"`
	MedianUSD    *float64 `json:"median_usd"`
	SampleSize   int      `json:"sample_size"`
	LastSaleDate *string  `json:"last_sale_date"`
	Confidence   string   `json:"confidence"`
	Flags        []string `json:"flags"`
	Note         string   `json:"note,omitempty"`
}

// NewEstimateRow shows estimate e.
func NewEstimateRow(e snapshots.Estimate) EstimateRow {
	row := EstimateRow{SampleSize: int(e.SampleSize), LastSaleDate: LastSaleDate(e), Confidence: e.Confidence.String(), Flags: FlagNames(e.Flags)}
	if _, note := Shown(e); note != "" {
		row.Note = note
		return row
	}
	row.FMVUSD, row.TVWAPUSD, row.MedianUSD = snapshots.USDOrNil(e.FMVCents), snapshots.USDOrNil(e.TVWAPCents), snapshots.USDOrNil(e.MedianCents)
	return row
}
