package pricecharting

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Grades maps the price columns to the API's grades. PriceCharting's
// grades 7, 8 and 9 combine the graders' sales; the API files them under the
// top grader (slab), whose sales dominate them; 9.5 is BGS's. SGC has no
// grader in the API: condition-18-price is read and reported, not filed.
var Grades = []struct {
	Column string
	Grade  string // "" : no API grade
}{
	{"loose-price", "raw:near_mint"},
	{"cib-price", "slab:7"},
	{"new-price", "slab:8"},
	{"graded-price", "slab:9"},
	{"box-only-price", "bgs:9.5"},
	{"manual-only-price", "slab:10"},
	{"bgs-10-price", "bgs:10"},
	{"condition-17-price", "cgc:10"},
	{"condition-18-price", ""},
}

// Source is PriceCharting's guide.
type Source struct{}

var _ source.Source = Source{}

// Name implements source.Source.
func (Source) Name() string { return source.PriceCharting }

// Options implements source.Source.
func (Source) Options() []string { return []string{"day"} }

// Read implements source.Source: in.Location is the CSV file or URL.
// Option: day=YYYY-MM-DD.
func (Source) Read(ctx context.Context, f *source.Fetcher, in source.Input) (*source.Day, error) {
	if err := in.CheckOptions(Source{}.Options()...); err != nil {
		return nil, err
	}
	d, ok, err := in.DayOption()
	if err != nil {
		return nil, err
	}
	file, err := f.Get(ctx, in.Location)
	if err != nil {
		return nil, fmt.Errorf("pricecharting: %w", err)
	}
	if !ok {
		if file.ModTime.IsZero() {
			return nil, fmt.Errorf("pricecharting %s: %w", in.Location, source.Refusedf("the file's day is unknown: give day=YYYY-MM-DD"))
		}
		d = snapshots.DayOf(file.ModTime)
	}
	day, err := Parse(file.Body, d)
	if err != nil {
		return nil, fmt.Errorf("pricecharting %s: %w", in.Location, err)
	}
	day.Input = in.Location
	return day, nil
}

// Parse reads a guide CSV of day d. A bad file is an error wrapping
// source.ErrRefused; a bad line is a refused row.
func Parse(body []byte, d snapshots.Day) (*source.Day, error) {
	day := &source.Day{Source: source.PriceCharting, Date: d, Digest: source.Digest(body)}
	r := csv.NewReader(bytes.NewReader(source.TrimBOM(body)))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, source.Refusedf("no header: %v", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"id", "console-name", "product-name"} {
		if _, ok := col[need]; !ok {
			return nil, source.Refusedf("no %s column: not a PriceCharting guide (header %q)", need, strings.Join(head, ","))
		}
	}
	line := 1
	seen := map[string]int{}
	for {
		rec, err := r.Read()
		line++
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && pe.Err == csv.ErrFieldCount {
			err = nil
		}
		if err != nil {
			return nil, source.Refusedf("line %d: %v", line, err)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row := source.Row{Product: get("id"), Set: get("console-name"), Name: get("product-name"), Currency: "USD", Prices: map[string]int64{}}
		reject := func(reason, detail string) {
			day.Rejected = append(day.Rejected, source.Entry{Status: source.StatusRejected, Product: row.Product, Reason: reason,
				Detail: fmt.Sprintf("line %d: %s", line, detail)})
		}
		if len(rec) != len(head) {
			reject("wrong number of columns", fmt.Sprintf("%d columns, the header has %d", len(rec), len(head)))
			continue
		}
		if row.Product == "" || row.Set == "" || row.Name == "" {
			reject("no id, console or product name", "")
			continue
		}
		if first, dup := seen[row.Product]; dup {
			reject("duplicate id", fmt.Sprintf("id %s already on line %d", row.Product, first))
			continue
		}
		bad := false
		for _, g := range Grades {
			v := get(g.Column)
			if v == "" {
				continue
			}
			cents, err := price(v)
			if err != nil {
				reject("bad price", g.Column+": "+err.Error())
				bad = true
				break
			}
			if cents > 0 {
				row.Prices[g.Column] = cents
			}
		}
		if bad {
			continue
		}
		seen[row.Product] = line
		day.Rows = append(day.Rows, row)
	}
	if len(day.Rows) == 0 && len(day.Rejected) == 0 {
		return nil, source.Refusedf("no products")
	}
	return day, nil
}

// price reads "$1,234.56" or "1234.56" (dollars) or "123456" (pennies, as
// the API gives them).
func price(s string) (int64, error) {
	dollars := strings.HasPrefix(s, "$")
	s = strings.ReplaceAll(strings.TrimPrefix(s, "$"), ",", "")
	if dollars || strings.Contains(s, ".") {
		return source.ParseAmount(s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > source.MaxAmount {
		return 0, fmt.Errorf("%q is not a price", s)
	}
	return n, nil
}

// consoleRE reads a console name: the game, Japanese or Chinese, the set.
var consoleRE = regexp.MustCompile(`(?i)^(pokemon|pokémon|one piece)\s+(?:(japanese|chinese)\s+)?(.+)$`)

// productRE reads a product name: the name, [bracketed words], #number.
var (
	bracketRE = regexp.MustCompile(`\[([^\]]*)\]`)
	numberRE  = regexp.MustCompile(`#\s*([A-Za-z0-9-]+)\s*$`)
)

// Map implements source.Source.
func (Source) Map(d, _ *source.Day, cat *source.Catalog) ([]source.Observation, *source.Report) {
	var obs []source.Observation
	rep := source.NewReport(source.PriceCharting, d)
	for i := range d.Rows {
		row := &d.Rows[i]
		n := i + 1
		m, err := Match(cat, row.Set, row.Name)
		if err != nil {
			st := source.StatusUnmatched
			var amb *AmbiguousError
			if errors.As(err, &amb) {
				st = source.StatusAmbiguous
			}
			rep.Add(source.Entry{Row: n, Status: st, Product: row.Product, Printing: row.Set, Reason: reasonOf(err), Detail: row.Name + ": " + err.Error()}, true)
			continue
		}
		rep.Add(source.Entry{Row: n, Status: source.StatusByNumberName, Product: row.Product, Printing: row.Set, CardID: m.Card.ID,
			Finish: source.VariantOf(m.Card, m.Finish), Detail: row.Name}, true)
		for _, g := range Grades {
			v, ok := row.Prices[g.Column]
			if !ok {
				continue
			}
			if g.Grade == "" {
				rep.Add(source.Entry{Row: n, Status: source.StatusDropped, Product: row.Product, Printing: g.Column, CardID: m.Card.ID,
					Reason: "SGC 10: no grader in the API"}, false)
				continue
			}
			grade, _ := snapshots.ParseGrade(g.Grade)
			obs = append(obs, source.Observation{Source: source.PriceCharting, Card: m.Card, Finish: m.Finish, Grade: grade, Day: d.Date,
				Field: g.Column, Amount: v, Currency: "USD", Product: row.Product, Match: source.MatchNumberName, Confidence: snapshots.ConfAgreeHigh})
			rep.Observations++
		}
	}
	return obs, rep
}

// Matched is a product matched to a card and printing.
type Matched struct {
	Card   *snapshots.Card
	Finish int
}

// AmbiguousError is a product that names several cards or printings.
type AmbiguousError struct {
	Reason     string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return e.Reason + ": " + strings.Join(e.Candidates, " ")
}

// unmatchedError is a product that names no card.
type unmatchedError struct{ reason, detail string }

func (e *unmatchedError) Error() string {
	if e.detail == "" {
		return e.reason
	}
	return e.reason + ": " + e.detail
}

func reasonOf(err error) string {
	var amb *AmbiguousError
	if errors.As(err, &amb) {
		return amb.Reason
	}
	var um *unmatchedError
	if errors.As(err, &um) {
		return um.reason
	}
	return err.Error()
}

// Match finds the card and printing of a PriceCharting product: its
// console names the game, language and set; its product name the card's
// name, number and printing words. Only one card and one printing is a
// match.
func Match(cat *source.Catalog, console, product string) (Matched, error) {
	cm := consoleRE.FindStringSubmatch(strings.TrimSpace(console))
	if cm == nil {
		return Matched{}, &unmatchedError{"not a Pokémon or One Piece product", console}
	}
	game, language := "pokemon", "en"
	if strings.EqualFold(cm[1], "one piece") {
		game = "onepiece"
	}
	switch strings.ToLower(cm[2]) {
	case "japanese":
		language = "ja"
	case "chinese":
		language = "zh-tw"
	}
	// The console's set name as written, else without the " Set" or
	// " Promo" PriceCharting adds ("Base Set" is the catalog's "Base").
	var sets []*snapshots.Set
	for _, name := range []string{cm[3], strings.TrimSuffix(cm[3], " Set"), strings.TrimSuffix(strings.TrimSuffix(cm[3], " Promos"), " Promo")} {
		if sets = cat.SetsByName(game, language, name); len(sets) > 0 {
			break
		}
	}
	if len(sets) == 0 {
		return Matched{}, &unmatchedError{"no set of this console name", fmt.Sprintf("%s %s %q", game, language, cm[3])}
	}
	var words []string
	for _, b := range bracketRE.FindAllStringSubmatch(product, -1) {
		words = append(words, b[1])
	}
	name := bracketRE.ReplaceAllString(product, " ")
	number := ""
	if nm := numberRE.FindStringSubmatch(name); nm != nil {
		number = nm[1]
		name = name[:strings.LastIndex(name, "#")]
	}
	name = source.FoldName(name)
	if number == "" {
		return Matched{}, &unmatchedError{"no number in the product name", product}
	}
	var byNumber, named []*snapshots.Card
	for _, s := range sets {
		byNumber = append(byNumber, cat.ByNumber(game, s.ID, number)...)
	}
	for _, c := range byNumber {
		if source.FoldName(c.Name) == name {
			named = append(named, c)
		}
	}
	switch {
	case len(byNumber) == 0:
		return Matched{}, &unmatchedError{"no card with this number in the set", fmt.Sprintf("#%s in %s", number, sets[0].ID)}
	case len(named) == 0:
		return Matched{}, &AmbiguousError{Reason: "number matches, name does not", Candidates: ids(byNumber)}
	}
	if game == "onepiece" && len(named) > 1 {
		// A parallel (alternate art) print is a card of its own: the
		// bracketed words say which.
		w := snapshots.ReadWords(strings.Join(words, " "))
		alt := w.Art == snapshots.ArtAlternate || strings.Contains(strings.ToLower(strings.Join(words, " ")), "parallel")
		var keep []*snapshots.Card
		for _, c := range named {
			if isAlternate(c) == alt {
				keep = append(keep, c)
			}
		}
		named = keep
		if len(named) == 0 {
			return Matched{}, &unmatchedError{"no card of this art", product}
		}
	}
	if len(named) > 1 {
		return Matched{}, &AmbiguousError{Reason: "several cards of this number and name", Candidates: ids(named)}
	}
	c := named[0]
	finish, err := printingOf(c, snapshots.ReadWords(strings.Join(words, " ")).Printing)
	if err != nil {
		return Matched{}, err
	}
	return Matched{Card: c, Finish: finish}, nil
}

// printingOf is source.PrintingOfWords with its failure as an
// ambiguity of the row.
func printingOf(c *snapshots.Card, printing string) (int, error) {
	f, why := source.PrintingOfWords(c, printing)
	if f < 0 {
		reason, detail, _ := strings.Cut(why, ": ")
		return -1, &AmbiguousError{Reason: reason, Candidates: []string{detail}}
	}
	return f, nil
}

// isAlternate reports whether a One Piece card is a parallel print (an
// alternate art: its variant says so, its id has a _p, _r ... suffix).
func isAlternate(c *snapshots.Card) bool {
	for _, v := range c.Variants {
		if v == "alternate-art" {
			return true
		}
	}
	return strings.Contains(c.SourceID, "_")
}

func ids(cards []*snapshots.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}
