package pricing

import (
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// Current prices of many cards by source (REST's prices.v1): each source's
// price of one printing and grade of each card, never blended into one
// number (Own, Partner, Observed).

// SourceOptions are the values of a prices request's source: own, partner,
// observed, a source's file (tcgplayer, cardmarket, pricecharting), or all
// (own and partner side by side).
var SourceOptions = []string{SourceOwn, SourcePartner, SourceObserved, SourceTCGplayer, SourceCardmarket, SourcePriceCharting, "all"}

// PricesRequest asks for the current prices of cards.
type PricesRequest struct {
	// IDs are card ids or partner product ids (resolve.ByID), unique
	// (case-insensitive), in request order; Requested counts the ids as sent.
	IDs       []string
	Requested int
	Source    string // one of SourceOptions
	Grade     snapshots.Grade
	Finish    string // "" = each card's base printing
	Game      string
}

// Sources returns the sources a request reports.
func (q PricesRequest) Sources() []string {
	if q.Source == "all" {
		return []string{SourceOwn, SourcePartner}
	}
	return []string{q.Source}
}

// PriceQuote is one source's current price of a card.
type PriceQuote struct {
	PriceUSD *float64 `json:"price_usd"`
	Date     *string  `json:"date"`     // day of the price (last fmv change, feed day, sale day)
	AgeDays  *int     `json:"age_days"` // as_of - date
	// own only: the estimate behind the fmv (package estimate).
	SampleSize   *int      `json:"sample_size,omitempty"`
	LastSaleDate *string   `json:"last_sale_date,omitempty"`
	Confidence   *string   `json:"confidence,omitempty"`
	Flags        *[]string `json:"flags,omitempty"`
	// observed only
	Marketplace *string `json:"marketplace,omitempty"`
	TradeType   *string `json:"trade_type,omitempty"`
	SaleID      *string `json:"sale_id,omitempty"`
	// A source's file (tcgplayer, cardmarket, pricecharting; partner in a
	// snapshot built from them) only: the field price_usd is, the number
	// as the source gave it (amount in currency) and, for a currency other
	// than USD, the ECB rate applied (USD per unit) and its day; the
	// source's product id and how it was matched to the card; every field
	// of the source's row for the printing and grade. A printing the
	// source's newest file left out is priced from the last day it had
	// one (its headline field only, no rate, product or match).
	Field     *string              `json:"field,omitempty"`
	Amount    *float64             `json:"amount,omitempty"`
	Currency  *string              `json:"currency,omitempty"`
	Rate      *float64             `json:"rate,omitempty"`
	RateDate  *string              `json:"rate_date,omitempty"`
	ProductID *string              `json:"product_id,omitempty"`
	Match     *string              `json:"match,omitempty"`
	Fields    map[string]FeedField `json:"fields,omitempty"`
	// Source is where the price comes from (tcgplayer, cardmarket,
	// pricecharting, observed or synthetic: for own, the source that made
	// the series); Synthetic whether it is synthesized; Stale whether the
	// source had no file for more than 2 days (for own: its estimate is
	// flagged stale).
	Source    string `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic bool   `json:"synthetic"`
	Stale     bool   `json:"stale"`
	// Note says why price_usd is null.
	Note string `json:"note,omitempty"`
}

// FeedField is one field of a source's row: in USD and as the source gave
// it (in the quote's currency).
type FeedField struct {
	PriceUSD float64 `json:"price_usd"`
	Amount   float64 `json:"amount"`
}

// PriceCard names the card of a prices item.
type PriceCard struct {
	CardID   string `json:"card_id"`
	Name     string `json:"name"`
	SetID    string `json:"set_id"`
	Number   string `json:"number"`
	Language string `json:"language"`
}

// PriceItem is one requested id.
type PriceItem struct {
	ID     string     `json:"id"`     // as requested
	Status string     `json:"status"` // ok or not_found
	Card   *PriceCard `json:"card"`
	// Finish is the printing priced (null for a card without variants, or
	// when the finish asked for is not one of its printings: message says
	// so) and BaseFinish whether it is the card's base printing.
	Finish     *string                `json:"finish,omitempty"`
	BaseFinish bool                   `json:"base_finish"`
	Prices     map[string]*PriceQuote `json:"prices,omitempty"`
	Message    string                 `json:"message,omitempty"`
}

// PricesSummary counts a call's ids: as sent, unique (case-insensitive),
// found and not, and the found cards each source could price.
type PricesSummary struct {
	Requested int            `json:"requested"`
	Unique    int            `json:"unique"`
	Found     int            `json:"found"`
	NotFound  int            `json:"not_found"`
	Priced    map[string]int `json:"priced"`
}

// Prices is prices.v1. Cost is one unit per unique resolved card (at least
// one).
type Prices struct {
	Source     string            `json:"source"`
	Sources    []string          `json:"sources"`
	Grade      string            `json:"grade"`
	GradeName  string            `json:"grade_name"`
	Game       string            `json:"game"`
	AsOf       string            `json:"as_of"`
	Items      []PriceItem       `json:"items"`
	Summary    PricesSummary     `json:"summary"`
	Cost       int               `json:"cost"`
	Basis      map[string]string `json:"basis"`
	SnapshotID string            `json:"snapshot_id"`
}

// CurrentPrices answers a prices request from snapshot v: each id resolved
// (one that names no card is reported per id), each card priced by each
// source in the printing asked for (a card without that printing is
// reported with a message).
func CurrentPrices(v *live.View, q PricesRequest) (*Prices, error) {
	sources := q.Sources()
	out := &Prices{Source: q.Source, Sources: sources, Grade: q.Grade.String(), GradeName: q.Grade.Name(), Game: q.Game, AsOf: v.AsOf.String(),
		Items: make([]PriceItem, 0, len(q.IDs)), Basis: map[string]string{}, SnapshotID: v.ID()}
	for _, s := range sources {
		out.Basis[s] = SourceBasis[s]
	}
	priced := map[string]int{}
	found, notFound := 0, 0
	cards := map[string]bool{}
	for _, id := range q.IDs {
		c, _, err := resolve.ByID(v.Reader, q.Game, id)
		if err != nil {
			if apperr.ErrorCode(err) != apperr.ENOTFOUND {
				return nil, err
			}
			notFound++
			out.Items = append(out.Items, PriceItem{ID: id, Status: "not_found", Message: "no card " + strconv.Quote(id) + " in " + q.Game})
			continue
		}
		found++
		cards[strings.ToLower(c.ID)] = true
		it := PriceItem{ID: id, Status: "ok", Card: &PriceCard{CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Language: c.Language},
			Prices: map[string]*PriceQuote{}}
		finish, ferr := PrintingOf(c, q.Finish)
		var quotes map[string]*PriceQuote
		if ferr != nil {
			it.Message = apperr.ErrorMessage(ferr)
			quotes = map[string]*PriceQuote{}
			for _, s := range sources {
				quotes[s] = &PriceQuote{Note: it.Message}
			}
		} else {
			it.Finish, it.BaseFinish = jsontext.StrOrNil(PrintingName(c, finish)), finish == snapshots.BasePrinting(c)
			if quotes, err = CardPrices(v.Reader, v.AsOf, c, finish, q.Grade, sources); err != nil {
				return nil, err
			}
		}
		for s, pq := range quotes {
			it.Prices[s] = pq
			if pq.PriceUSD != nil {
				priced[s]++
			}
		}
		out.Items = append(out.Items, it)
	}
	for _, s := range sources {
		priced[s] += 0
	}
	out.Cost = max(1, len(cards))
	out.Summary = PricesSummary{Requested: q.Requested, Unique: len(q.IDs), Found: found, NotFound: notFound, Priced: priced}
	return out, nil
}

// CardPrices computes the named sources' current prices as of asOf of
// printing finish of card c in grade g (one function per source: Own,
// Partner, Observed, FeedPrice), each with its origin.
func CardPrices(r snapshots.Reader, asOf snapshots.Day, c *snapshots.Card, finish int, g snapshots.Grade, sources []string) (map[string]*PriceQuote, error) {
	f := OnePrinting(c, finish)
	out := map[string]*PriceQuote{}
	prov, err := ReadProvenance(r, c)
	if err != nil {
		return nil, err
	}
	var sales []snapshots.Sale
	for _, s := range sources {
		if (s == SourcePartner || s == SourceObserved) && sales == nil {
			if sales, err = r.Sales(c.Game, c.ID); err != nil {
				return nil, err
			}
		}
		var sp SourcePrice
		switch s {
		case SourceOwn:
			if sp, err = Own(r, c, finish, g, asOf); err != nil {
				return nil, err
			}
			sp.Origin = prov.SeriesOrigin(finish, g)
			sp.Stale = sp.Estimate != nil && sp.Estimate.Flags&estimate.FlagStale != 0
		case SourcePartner:
			if prov.Market == snapshots.MarketSources {
				sp = FeedPrice(prov, SourceTCGplayer, finish, g, asOf) // the partner marketplace's own file
				break
			}
			sp = Partner(sales, g, f, asOf)
			sp.Origin = prov.SalesOrigin()
		case SourceObserved:
			sp = Observed(sales, g, f, asOf)
			sp.Origin = prov.SalesOrigin()
			if sp.Sale != nil {
				sp.Origin = prov.SaleOrigin(sp.Sale)
			}
		default:
			sp = FeedPrice(prov, s, finish, g, asOf)
		}
		pq := &PriceQuote{Note: sp.Note, Source: sp.Origin.Source, Synthetic: sp.Origin.Synthetic, Stale: sp.Stale}
		if q := sp.Quote; q != nil {
			pq.setFeed(q, sp.Fields)
		}
		if sp.Note == "" {
			pq.PriceUSD = snapshots.USDOrNil(sp.Cents)
			ds, age := sp.Day.String(), int(asOf-sp.Day)
			pq.Date, pq.AgeDays = &ds, &age
		}
		if e := sp.Estimate; e != nil {
			n, conf, flags := int(e.SampleSize), e.Confidence.String(), FlagNames(e.Flags)
			pq.SampleSize, pq.LastSaleDate, pq.Confidence, pq.Flags = &n, LastSaleDate(*e), &conf, &flags
		}
		if x := sp.Sale; x != nil {
			m, tt, id := x.Marketplace.String(), x.TradeType.String(), SaleID(x.ID)
			pq.Marketplace, pq.TradeType, pq.SaleID = &m, &tt, &id
		}
		out[s] = pq
	}
	return out, nil
}

// setFeed fills the fields of a source's file price from its headline quote
// q and its row's quotes.
func (pq *PriceQuote) setFeed(q *snapshots.Quote, row []snapshots.Quote) {
	amount, field, currency := snapshots.USD(q.Amount), q.Field, q.Currency
	pq.Field, pq.Amount, pq.Currency = &field, &amount, &currency
	if q.RateDay != 0 {
		rd := q.RateDay.String()
		pq.RateDate = &rd
	}
	if q.Rate != 0 && q.Currency != "USD" {
		rate := q.Rate
		pq.Rate = &rate
	}
	pq.ProductID, pq.Match = jsontext.StrOrNil(q.Product), jsontext.StrOrNil(q.Match)
	pq.Fields = make(map[string]FeedField, len(row))
	for _, x := range row {
		pq.Fields[x.Field] = FeedField{PriceUSD: snapshots.USD(x.Cents), Amount: snapshots.USD(x.Amount)}
	}
}
