package cardmarket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Version is the price guide version this package reads.
const Version = 1

// Fields are the price guide's plain fields, in file order; each has a
// -holo twin (HoloSuffix).
var Fields = []string{"avg", "low", "trend", "avg1", "avg7", "avg30"}

// HoloSuffix marks the foil fields.
const HoloSuffix = "-holo"

// Source is Cardmarket's price guide.
type Source struct{}

var _ source.Source = Source{}

// Name implements source.Source.
func (Source) Name() string { return source.Cardmarket }

// Options implements source.Source.
func (Source) Options() []string { return []string{"guides"} }

// Read implements source.Source: in.Location is a price guide file or URL;
// with the option guides=6+18 it is the directory or URL the guides are in,
// and the day is every guide named (price_guide_<n>.json: 6 Pokémon, 18 One
// Piece) read as one: all or nothing, refused unless they are of one day.
func (Source) Read(ctx context.Context, f *source.Fetcher, in source.Input) (*source.Day, error) {
	if err := in.CheckOptions(Source{}.Options()...); err != nil {
		return nil, err
	}
	if _, ok := in.Options["guides"]; ok {
		return readGuideFiles(ctx, f, in)
	}
	file, err := f.Get(ctx, in.Location)
	if err != nil {
		return nil, fmt.Errorf("cardmarket: %w", err)
	}
	d, err := Parse(file.Body)
	if err != nil {
		return nil, fmt.Errorf("cardmarket %s: %w", in.Location, err)
	}
	d.Input = in.Location
	return d, nil
}

// GuideFile is the name of Cardmarket's price guide of game category n
// (6 Pokémon, 18 One Piece).
func GuideFile(n int) string { return "price_guide_" + strconv.Itoa(n) + ".json" }

// readGuideFiles reads the guides=6+18 of in's location as one day.
func readGuideFiles(ctx context.Context, f *source.Fetcher, in source.Input) (*source.Day, error) {
	var ns []int
	seenN := map[int]bool{}
	for _, p := range strings.Split(in.Options["guides"], "+") {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || seenN[n] {
			return nil, fmt.Errorf("source cardmarket: guides %q: want game numbers joined by +, each once (6+18)", in.Options["guides"])
		}
		seenN[n] = true
		ns = append(ns, n)
	}
	out := &source.Day{Source: source.Cardmarket, Input: in.Location + " (" + strings.Join(strings.Split(in.Options["guides"], "+"), ", ") + ")"}
	var bodies [][]byte
	var firstName string
	seen := map[string]string{}
	for _, n := range ns {
		loc := source.Join(in.Location, GuideFile(n))
		file, err := f.Get(ctx, loc)
		if err != nil {
			return nil, fmt.Errorf("cardmarket: %w", err)
		}
		d, err := Parse(file.Body)
		if err != nil {
			return nil, fmt.Errorf("cardmarket %s: %w", loc, err)
		}
		bodies = append(bodies, file.Body)
		if out.Date == 0 {
			out.Date, firstName = d.Date, GuideFile(n)
		} else if d.Date != out.Date {
			return nil, fmt.Errorf("cardmarket %s: %w", in.Location, source.Refusedf("%s is of %s, %s of %s: the guides of a day must be of one day",
				firstName, out.Date, GuideFile(n), d.Date))
		}
		if d.CreatedAt.After(out.CreatedAt) {
			out.CreatedAt = d.CreatedAt
		}
		for _, r := range d.Rows {
			if other, dup := seen[r.Product]; dup {
				out.Rejected = append(out.Rejected, source.Entry{Status: source.StatusRejected, Product: r.Product, Reason: "duplicate idProduct",
					Detail: fmt.Sprintf("%s: idProduct %s already in %s", GuideFile(n), r.Product, other)})
				continue
			}
			seen[r.Product] = GuideFile(n)
			out.Rows = append(out.Rows, r)
		}
		for _, e := range d.Rejected {
			e.Detail = GuideFile(n) + ": " + e.Detail
			out.Rejected = append(out.Rejected, e)
		}
	}
	out.Digest = source.Digest(bodies...)
	return out, nil
}

// guide is one entry of priceGuides.
type guide struct {
	IDProduct  *json.Number `json:"idProduct"`
	IDCategory *json.Number `json:"idCategory"`
	Avg        *json.Number `json:"avg"`
	Low        *json.Number `json:"low"`
	Trend      *json.Number `json:"trend"`
	Avg1       *json.Number `json:"avg1"`
	Avg7       *json.Number `json:"avg7"`
	Avg30      *json.Number `json:"avg30"`
	AvgHolo    *json.Number `json:"avg-holo"`
	LowHolo    *json.Number `json:"low-holo"`
	TrendHolo  *json.Number `json:"trend-holo"`
	Avg1Holo   *json.Number `json:"avg1-holo"`
	Avg7Holo   *json.Number `json:"avg7-holo"`
	Avg30Holo  *json.Number `json:"avg30-holo"`
}

func (g *guide) fields() [12]*json.Number {
	return [12]*json.Number{g.Avg, g.Low, g.Trend, g.Avg1, g.Avg7, g.Avg30, g.AvgHolo, g.LowHolo, g.TrendHolo, g.Avg1Holo, g.Avg7Holo, g.Avg30Holo}
}

// fieldNames are the names of guide.fields, in order.
var fieldNames = func() [12]string {
	var out [12]string
	for i, f := range Fields {
		out[i], out[i+6] = f, f+HoloSuffix
	}
	return out
}()

// createdAtLayouts are the forms of createdAt read: Cardmarket's
// (+0100 offsets) and RFC 3339.
var createdAtLayouts = []string{"2006-01-02T15:04:05-0700", time.RFC3339, "2006-01-02T15:04:05.999999999-0700"}

// Parse reads one price guide file (a UTF-8 byte order mark is skipped).
// A bad file is an error wrapping source.ErrRefused; a bad entry is a
// refused row of the day.
func Parse(body []byte) (*source.Day, error) {
	d := &source.Day{Source: source.Cardmarket, Digest: source.Digest(body)}
	dec := json.NewDecoder(bytes.NewReader(source.TrimBOM(body)))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, source.Refusedf("not a price guide: %v", err)
	}
	var version *json.Number
	var createdAt string
	haveGuides := false
	seen := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, source.Refusedf("not whole JSON: %v", err)
		}
		key, _ := tok.(string)
		switch key {
		case "version":
			if err := dec.Decode(&version); err != nil {
				return nil, source.Refusedf("version: %v", err)
			}
		case "createdAt":
			if err := dec.Decode(&createdAt); err != nil {
				return nil, source.Refusedf("createdAt: %v", err)
			}
		case "priceGuides":
			haveGuides = true
			if err := readGuides(dec, d, seen); err != nil {
				return nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, source.Refusedf("not whole JSON: %v", err)
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, source.Refusedf("not whole JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, source.Refusedf("data after the price guide object")
	}
	switch {
	case version == nil:
		return nil, source.Refusedf("no version: want version %d", Version)
	case version.String() != strconv.Itoa(Version):
		return nil, source.Refusedf("version %s: this cardedge reads version %d only", version, Version)
	case createdAt == "":
		return nil, source.Refusedf("no createdAt: the day of the file is unknown")
	case !haveGuides:
		return nil, source.Refusedf("no priceGuides")
	case len(d.Rows) == 0:
		return nil, source.Refusedf("priceGuides is empty")
	}
	var t time.Time
	var err error
	for _, layout := range createdAtLayouts {
		if t, err = time.Parse(layout, createdAt); err == nil {
			break
		}
	}
	if err != nil {
		return nil, source.Refusedf("createdAt %q is not a time like 2025-11-26T02:47:06+0100", createdAt)
	}
	d.CreatedAt = t
	// The day is the date in the file's own offset: Cardmarket's day.
	day, _ := snapshots.ParseDay(t.Format("2006-01-02"))
	d.Date = day
	return d, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}

// readGuides reads the priceGuides array, one entry at a time.
func readGuides(dec *json.Decoder, d *source.Day, seen map[string]int) error {
	if err := expectDelim(dec, '['); err != nil {
		return source.Refusedf("priceGuides is not an array: %v", err)
	}
	n := 0
	for dec.More() {
		n++
		var g guide
		// The decoder reads a whole value before decoding it: a syntax
		// error (a truncated file) refuses the file, a value of the wrong
		// type refuses the entry alone.
		err := dec.Decode(&g)
		var se *json.SyntaxError
		if err != nil && (errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
			return source.Refusedf("priceGuides entry %d: not whole JSON: %v", n, err)
		}
		row, reason, detail := rowOf(&g, err)
		if reason == "" {
			if first, dup := seen[row.Product]; dup {
				reason, detail = "duplicate idProduct", fmt.Sprintf("idProduct %s already at entry %d", row.Product, first)
			} else {
				seen[row.Product] = n
			}
		}
		if reason != "" {
			d.Rejected = append(d.Rejected, source.Entry{Status: source.StatusRejected, Product: row.Product, Reason: reason,
				Detail: fmt.Sprintf("priceGuides entry %d: %s", n, detail)})
			continue
		}
		d.Rows = append(d.Rows, row)
	}
	if err := expectDelim(dec, ']'); err != nil {
		return source.Refusedf("priceGuides: not whole JSON: %v", err)
	}
	return nil
}

// rowOf checks one entry: a positive integer idProduct, numbers or nulls.
func rowOf(g *guide, decodeErr error) (source.Row, string, string) {
	row := source.Row{Currency: "EUR", Prices: map[string]int64{}}
	if g.IDProduct != nil {
		row.Product = g.IDProduct.String()
	}
	if decodeErr != nil {
		var te *json.UnmarshalTypeError
		if errors.As(decodeErr, &te) {
			return row, "bad field type", fmt.Sprintf("%s: want a number or null, got JSON %s", te.Field, te.Value)
		}
		return row, "bad field type", fmt.Sprintf("want numbers or null: %v", decodeErr)
	}
	if g.IDProduct == nil {
		return row, "no idProduct", ""
	}
	if id, err := strconv.ParseInt(row.Product, 10, 64); err != nil || id <= 0 {
		return row, "bad idProduct", fmt.Sprintf("idProduct %s is not a positive integer", row.Product)
	}
	if g.IDCategory != nil {
		row.Category = g.IDCategory.String()
	}
	for i, v := range g.fields() {
		if v == nil {
			continue
		}
		cents, err := source.ParseAmount(v.String())
		if err != nil {
			return row, "bad amount", fmt.Sprintf("%s: %v", fieldNames[i], err)
		}
		row.Prices[fieldNames[i]] = cents
	}
	return row, "", ""
}

// Map implements source.Source.
func (Source) Map(d, _ *source.Day, cat *source.Catalog) ([]source.Observation, *source.Report) {
	var obs []source.Observation
	rep := source.NewReport(source.Cardmarket, d)
	for i := range d.Rows {
		obs = mapRow(obs, d, i, cat, rep)
	}
	return obs, rep
}

func mapRow(obs []source.Observation, d *source.Day, i int, cat *source.Catalog, rep *source.Report) []source.Observation {
	row := &d.Rows[i]
	n := i + 1
	id, _ := strconv.ParseInt(row.Product, 10, 64)
	cards := cat.ByProduct(snapshots.MarketIDCardmarket, id)
	if len(cards) == 0 {
		rep.Add(source.Entry{Row: n, Status: source.StatusUnmatched, Product: row.Product, Reason: "no card has this idProduct",
			Detail: "category " + row.Category}, true)
		return obs
	}
	counted := false
	lang := cards[0].Language
	for _, c := range cards {
		if c.Language != lang {
			rep.Add(source.Entry{Row: n, Status: source.StatusDropped, Product: row.Product, CardID: c.ID,
				Reason: "id shared with another language", Detail: "kept for " + cards[0].ID}, false)
			continue
		}
		plain, foil, why := Printings(c, c.PrintingsOf(snapshots.MarketIDCardmarket, id))
		added := 0
		for _, part := range []struct {
			target int
			holo   bool
		}{{plain, false}, {foil, true}} {
			have := false
			for _, f := range Fields {
				name := f
				if part.holo {
					name += HoloSuffix
				}
				v, ok := row.Prices[name]
				if !ok {
					continue
				}
				have = true
				if part.target < 0 {
					continue
				}
				obs = append(obs, source.Observation{Source: source.Cardmarket, Card: c, Finish: part.target, Grade: snapshots.RawNearMint,
					Day: d.Date, Field: f, Amount: v, Currency: row.Currency, Product: row.Product, Match: source.MatchID, Confidence: snapshots.ConfExact})
				added++
			}
			if have && part.target < 0 {
				label := "plain fields"
				if part.holo {
					label = "-holo fields"
				}
				rep.Add(source.Entry{Row: n, Status: source.StatusDropped, Product: row.Product, Printing: label, CardID: c.ID,
					Reason: label + ": " + why[btoi(part.holo)], Detail: strings.Join(c.Variants, " ")}, false)
			}
		}
		rep.Observations += added
		if !counted {
			rep.Add(source.Entry{Row: n, Status: source.StatusByID, Product: row.Product, CardID: c.ID,
				Finish: source.VariantOf(c, firstOf(plain, foil))}, true)
			counted = true
		}
	}
	return obs
}

func firstOf(a, b int) int {
	if a >= 0 {
		return a
	}
	return b
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Printings decides which printings of card c the plain fields and the
// -holo fields of a Cardmarket product go to, given the printings the
// product stands for (c.PrintingsOf): plain and foil are indices into
// c.Variants, -1 for none, and why says, for a -1, the reason (why[0] for
// plain, why[1] for foil).
//
// The rule. Cardmarket prices a product's articles in two groups: the
// "-holo" fields are its foil articles (its API names the same numbers
// LOWFOIL and TRENDFOIL, "current lowest foil price", "current foil trend
// price"), the plain fields the others. In Pokémon, Cardmarket's foil is
// the reverse holo: a holo rare is the product itself, not a foil of it,
// and pokemontcg.io, which republishes these fields, names the -holo ones
// reverseHoloSell, reverseHoloLow, reverseHoloTrend, reverseHoloAvg1 ...
// So, per product:
//   - a card without known variants: the plain fields go to its one
//     printing; the -holo fields to none (which printing is foil is
//     unknown);
//   - a product that is only reverse printings (Cardmarket lists the
//     ball-pattern reverses as products of their own): its plain fields go
//     to its (plainest) reverse printing, the product being that printing
//     whatever foil flag its sellers set; its -holo fields to none (they
//     would price it twice). This case has no outside evidence: the report
//     counts it ("-holo fields: the product is a reverse printing of its
//     own");
//   - else the plain fields go to the plainest (BaseOf) of the product's
//     printings that are not reverse, preferring one without 1st-edition
//     (Cardmarket lists 1st edition and unlimited as one product and its
//     guide does not tell them apart: the unlimited printing takes the
//     number, the 1st edition gets none from Cardmarket);
//   - the -holo fields go to the plainest of its reverse printings; without
//     one, to its plainest holo printing when it also has a normal (non-holo)
//     printing (the holo is then the foil of the normal card); else none.
func Printings(c *snapshots.Card, printings []int) (plain, foil int, why [2]string) {
	if len(c.Variants) == 0 {
		return 0, -1, [2]string{"", "the card's printings are unknown"}
	}
	if len(printings) == 0 {
		return -1, -1, [2]string{"no printing of the card has this product", "no printing of the card has this product"}
	}
	isReverse := func(v string) bool { return source.VariantType(v) == source.PartReverse }
	others := source.Filter(c, printings, func(v string) bool { return !isReverse(v) })
	reverse := source.Filter(c, printings, isReverse)
	plain, foil = -1, -1
	if len(others) == 0 {
		// The product is a reverse printing of its own (a ball-pattern
		// reverse): its plain fields price it, whatever the sellers' foil
		// flag says; its -holo fields would price it twice.
		return source.BaseOf(c, reverse), -1, [2]string{"", "the product is a reverse printing of its own: its plain fields price it"}
	}
	unlimited := source.Filter(c, others, func(v string) bool { return !source.HasPart(v, source.PartFirstEd) })
	if len(unlimited) > 0 {
		plain = source.BaseOf(c, unlimited)
	} else {
		plain = source.BaseOf(c, others)
	}
	switch {
	case len(reverse) > 0:
		foil = source.BaseOf(c, reverse)
	default:
		holo := source.Filter(c, others, func(v string) bool { return source.VariantType(v) == source.PartHolo })
		normal := source.Filter(c, others, func(v string) bool { return source.VariantType(v) == source.PartNormal })
		if len(holo) > 0 && len(normal) > 0 {
			foil = source.BaseOf(c, holo)
			if foil == plain {
				plain = source.BaseOf(c, normal)
			}
		} else {
			why[1] = "the product has no reverse printing"
		}
	}
	return plain, foil, why
}
