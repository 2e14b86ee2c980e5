package source

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// The sources by name: the names of --source, of the history store's
// directories and of provenance.
const (
	Cardmarket    = "cardmarket"
	TCGplayer     = "tcgplayer"
	PriceCharting = "pricecharting"
	SoldListings  = "soldlistings"
)

// Source reads one source's input. Implementations are stateless: Read and
// Map may be called for many days.
type Source interface {
	// Name is the source's name (Cardmarket, TCGplayer ...).
	Name() string
	// Options are the key=value options of an Input it reads; Read
	// refuses others (Input.CheckOptions).
	Options() []string
	// Read reads and validates one day of the source at in (a file,
	// directory or URL, and the options of --source): all or nothing. A
	// refused input is an error wrapping ErrRefused that says what is
	// wrong. Rows it could not read are refused rows in Day.Rejected.
	Read(ctx context.Context, f *Fetcher, in Input) (*Day, error)
	// Map maps one day of the source onto the catalog: its observations
	// and its report. latest is the source's newest day (d itself, or the
	// day a history's older day is mapped with), from which a source may
	// take what d lacks (tcgcsv's archive days have prices only: the
	// products of the latest day name them).
	Map(d, latest *Day, cat *Catalog) ([]Observation, *Report)
}

// MapVersion is the version of what the sources' Map make of a day. A day
// mapped before and kept in the history store (its mapped observations,
// history.Mapped) serves a build only when it was mapped with this version:
// bump it with any change to a source's Map, or to the matching it uses,
// that changes the observations of some day. TestMapVersion (package
// builder) fails when the fixtures' observations change while it stays.
const MapVersion = 1

// ErrRefused marks an input refused as a whole: nothing of it is used.
var ErrRefused = errors.New("refused")

// Refusedf returns an error wrapping ErrRefused.
func Refusedf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// Input is one source's location and options, as --source gives them:
// name=LOCATION[,key=value...].
type Input struct {
	Source   string
	Location string
	// Options are the key=value pairs after the location (day=YYYY-MM-DD,
	// categories=3+85, marketplace=ebay ...); each source says which it
	// reads and refuses the others.
	Options map[string]string
}

// ParseInput reads a --source value: name=LOCATION[,key=value...].
func ParseInput(s string) (Input, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" || rest == "" {
		return Input{}, fmt.Errorf("source %q: want name=FILE, name=DIR or name=URL (with ,key=value options)", s)
	}
	in := Input{Source: strings.ToLower(strings.TrimSpace(name)), Options: map[string]string{}}
	parts := strings.Split(rest, ",")
	in.Location = parts[0]
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return Input{}, fmt.Errorf("source %q: option %q is not key=value", s, p)
		}
		if _, dup := in.Options[k]; dup {
			return Input{}, fmt.Errorf("source %q: option %s given twice", s, k)
		}
		in.Options[k] = v
	}
	return in, nil
}

// CheckOptions refuses options of in other than known.
func (in Input) CheckOptions(known ...string) error {
	var bad []string
	for k := range in.Options {
		if !contains(known, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("source %s: unknown option %s (known: %s)", in.Source, strings.Join(bad, ", "), strings.Join(known, ", "))
	}
	return nil
}

// DayOption returns the day=YYYY-MM-DD option of in (ok false without one).
func (in Input) DayOption() (snapshots.Day, bool, error) {
	s, ok := in.Options["day"]
	if !ok {
		return 0, false, nil
	}
	d, err := snapshots.ParseDay(s)
	if err != nil {
		return 0, false, fmt.Errorf("source %s: day: %w", in.Source, err)
	}
	return d, true, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Day is one day of one source as read: its rows normalized but not
// mapped. The history store files it as is (Rejected aside).
type Day struct {
	Source string
	Date   snapshots.Day
	// CreatedAt is the input's own timestamp (Cardmarket's createdAt,
	// tcgcsv's last-updated.txt); zero when it has none.
	CreatedAt time.Time
	// Input names where the day was read from; Digest is the SHA-256 of
	// its bytes (of every file, in read order).
	Input  string
	Digest string
	Rows   []Row
	// Rejected are the rows the source could not read (not filed).
	Rejected []Entry
}

// Row is one priced product of a day, as the source gave it.
type Row struct {
	// Product is the source's product id ("" for a sold listing).
	Product string `json:"product,omitempty"`
	// Category is the source's game category (Cardmarket idCategory,
	// TCGplayer categoryId).
	Category string `json:"category,omitempty"`
	// Group, Set and SetCode are the product's group and set as the
	// source names them (TCGplayer's groupId, name and abbreviation;
	// PriceCharting's console-name).
	Group   string `json:"group,omitempty"`
	Set     string `json:"set,omitempty"`
	SetCode string `json:"set_code,omitempty"`
	// Name is the product's name (a sold listing's title); Number its
	// collector number as the source writes it ("4/102", "OP01-001").
	Name   string `json:"name,omitempty"`
	Number string `json:"number,omitempty"`
	// Printing is the source's printing word (TCGplayer's subTypeName).
	Printing string `json:"printing,omitempty"`
	// Date is a sold listing's sale date (YYYY-MM-DD); Grade the grade it
	// states; URL its listing; Marketplace where it sold.
	Date        string `json:"date,omitempty"`
	Grade       string `json:"grade,omitempty"`
	URL         string `json:"url,omitempty"`
	Marketplace string `json:"marketplace,omitempty"`
	// Currency is the ISO 4217 code of Prices.
	Currency string `json:"currency"`
	// Prices are the row's numbers by the source's field name, in minor
	// units (cents); a field null or absent in the input is absent here.
	Prices map[string]int64 `json:"prices"`
}

// How an observation was matched to its card (Observation.Match, Report).
const (
	MatchID         = "id"          // the marketplace's product id, through the catalog's market_ids
	MatchNumberName = "number_name" // set and number, or number and name
	MatchTitle      = "title"       // a listing's title read with the collectors' words
)

// Observation is one number a source gave for one printing and grade of a
// catalog card on one day.
type Observation struct {
	Source string
	Card   *snapshots.Card
	Finish int // index into Card.Variants (0 for a card without variants)
	Grade  snapshots.Grade
	Day    snapshots.Day
	// Field is the source's field: TCGplayer market, low, mid, high,
	// direct_low; Cardmarket avg, low, trend, avg1, avg7, avg30;
	// PriceCharting's price columns; FieldSale for a sold listing.
	Field string
	// Amount is in minor units of Currency (ISO 4217).
	Amount   int64
	Currency string
	// Product is the source's product id; Match how it was matched.
	Product string
	Match   string
	// Confidence is how sure the match is (snapshots' identity
	// confidences; exact for an id).
	Confidence snapshots.Confidence
	// Sales (Field FieldSale): where and how it sold and the listing.
	Marketplace snapshots.Marketplace
	TradeType   snapshots.TradeType
	URL         string
	Title       string
}

// FieldSale is the field of a sold listing's observation.
const FieldSale = "sale"

// SortObservations orders observations by card (game, ordinal), printing,
// grade, field and day: the order the builder consumes them in.
func SortObservations(obs []Observation) {
	sort.SliceStable(obs, func(i, j int) bool {
		a, b := &obs[i], &obs[j]
		if a.Card.Game != b.Card.Game {
			return a.Card.Game < b.Card.Game
		}
		if a.Card.Ordinal != b.Card.Ordinal {
			return a.Card.Ordinal < b.Card.Ordinal
		}
		if a.Finish != b.Finish {
			return a.Finish < b.Finish
		}
		if a.Grade != b.Grade {
			return a.Grade < b.Grade
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Day < b.Day
	})
}
