package pokemontcg

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// A card's tcgplayer and cardmarket objects, in pokemontcg.io's shapes. In
// a snapshot built from the real price sources (cardbuild --source) they
// are the sources' own numbers of their newest day, in the currency each
// gave (snapshots.CardSources' quotes: TCGplayer in USD, Cardmarket in
// EUR), of the marketplace's product the card's base printing is (as
// pokemontcg.io's are of one product). Otherwise (the synthetic market, a
// build's --synthetic-fill cards, cardedge's own feeds), tcgplayer holds
// each printing's raw near-mint fmv as market (cardedge's estimate, not a
// marketplace's number) and cardmarket is left out. cardedge.priceSource
// says which: "sources", "synthetic" or "feed".

// Where a card's prices come from (CardedgeFields.PriceSource).
const (
	PriceSources   = "sources"   // TCGplayer's and Cardmarket's own numbers
	PriceSynthetic = "synthetic" // estimates over synthesized sales
	PriceFeed      = "feed"      // estimates over the operator's own market feeds
)

// priceSourceOf is the price source of the estimates of a snapshot.
func priceSourceOf(m *snapshots.Manifest) string {
	if m.MarketSource == snapshots.MarketFeed {
		return PriceFeed
	}
	return PriceSynthetic
}

// cardPrices are one card's price objects.
type cardPrices struct {
	tcgplayer  *TCGPlayer
	cardmarket *Cardmarket
	source     string
}

// pricesOf returns the prices of c found when the catalog was loaded (nil
// for none).
func (cat *Catalog) pricesOf(c *snapshots.Card) *cardPrices {
	if int(c.Ordinal) < len(cat.prices) {
		return cat.prices[c.Ordinal]
	}
	return nil
}

// slashDay writes a day as pokemontcg.io's dates: YYYY/MM/DD.
func slashDay(d snapshots.Day) string { return d.Time().Format("2006/01/02") }

// money is hundredths of a currency as a JSON number (12.34).
func money(hundredths int64) *float64 {
	v := float64(hundredths) / 100
	return &v
}

// tcgKey names printing f of c as pokemontcg.io's tcgplayer.prices do
// (TCGplayer's subTypeName in lower camel case): reverseHolofoil,
// 1stEditionHolofoil, 1stEditionNormal, unlimitedHolofoil (a holo on a
// product that also stands for a 1st edition, which TCGplayer calls
// Unlimited Holofoil), holofoil or normal. product lists the printings of
// the TCGplayer product. A card whose printings are unknown is holofoil
// when its rarity says Holo.
func tcgKey(c *snapshots.Card, f int, product []int) string {
	if f < 0 || f >= len(c.Variants) {
		if strings.Contains(c.Rarity, "Holo") {
			return "holofoil"
		}
		return "normal"
	}
	v := c.Variants[f]
	typ, _, _ := strings.Cut(v, "/")
	firstEd := hasPart(v, "1st-edition")
	switch {
	case typ == "reverse":
		return "reverseHolofoil"
	case firstEd && typ == "holo":
		return "1stEditionHolofoil"
	case firstEd:
		return "1stEditionNormal"
	case typ == "holo":
		for _, g := range product {
			if g < len(c.Variants) && hasPart(c.Variants[g], "1st-edition") {
				return "unlimitedHolofoil"
			}
		}
		return "holofoil"
	}
	return "normal"
}

func hasPart(variant, part string) bool {
	for p := range strings.SplitSeq(variant, "/") {
		if p == part {
			return true
		}
	}
	return false
}

// slot returns the price of key in p, made when missing.
func (p *TCGPlayerPrices) slot(key string) *TCGPrice {
	var s **TCGPrice
	switch key {
	case "normal":
		s = &p.Normal
	case "holofoil":
		s = &p.Holofoil
	case "reverseHolofoil":
		s = &p.ReverseHolofoil
	case "1stEditionHolofoil":
		s = &p.FirstEditionHolofoil
	case "1stEditionNormal":
		s = &p.FirstEditionNormal
	default:
		s = &p.UnlimitedHolofoil
	}
	if *s == nil {
		*s = &TCGPrice{}
	}
	return *s
}

// tcgplayerURL is the card's TCGplayer product page, else TCGplayer's
// search for its name.
func tcgplayerURL(c *snapshots.Card, product int64) string {
	if product != 0 {
		return snapshots.TCGplayerURL(product)
	}
	return "https://www.tcgplayer.com/search/pokemon/product?q=" + url.QueryEscape(c.Name)
}

// pricesFromSources builds c's prices from its sources' quotes (raw near
// mint, the grade TCGplayer's and Cardmarket's numbers are filed under):
// TCGplayer's market, low, mid, high and direct_low of each printing of the
// product of c's base printing (else of the first product quoted), and
// Cardmarket's guide of the product of its base printing, its plain fields
// as averageSellPrice, lowPrice, trendPrice, avg1, avg7 and avg30 and its
// -holo fields (the product's foil articles: the reverse holo) as
// reverseHoloSell, reverseHoloLow ... Nil when no quote is of those
// sources.
func pricesFromSources(c *snapshots.Card, cs *snapshots.CardSources) *cardPrices {
	out := &cardPrices{source: PriceSources}
	tcgID := c.TCGplayerProductID()
	tcgProduct := strconv.FormatInt(tcgID, 10)
	if !quoted(cs, snapshots.SourceTCGplayer, tcgProduct) {
		for _, q := range cs.Quotes {
			if q.Source == snapshots.SourceTCGplayer && q.Grade == snapshots.RawNearMint {
				tcgProduct = q.Product
				tcgID, _ = strconv.ParseInt(q.Product, 10, 64)
				break
			}
		}
	}
	cmID := c.ProductOf(snapshots.MarketIDCardmarket, snapshots.BasePrinting(c))
	cmProduct := strconv.FormatInt(cmID, 10)
	cmPrintings := c.PrintingsOf(snapshots.MarketIDCardmarket, cmID)
	tcgPrintings := c.PrintingsOf(snapshots.MarketIDTCGplayer, tcgID)
	var tcgDay, cmDay snapshots.Day
	owner := map[string]uint8{} // tcgplayer key -> the printing whose numbers it holds
	for _, q := range cs.Quotes {
		if q.Grade != snapshots.RawNearMint {
			continue
		}
		switch {
		case q.Source == snapshots.SourceTCGplayer && q.Product == tcgProduct:
			key := tcgKey(c, int(q.Finish), tcgPrintings)
			if f, ok := owner[key]; ok && f != q.Finish {
				continue // two printings of one name: the first keeps it
			}
			owner[key] = q.Finish
			if out.tcgplayer == nil {
				out.tcgplayer = &TCGPlayer{URL: tcgplayerURL(c, tcgID)}
			}
			p := out.tcgplayer.Prices.slot(key)
			v := money(q.Amount)
			switch q.Field {
			case "market":
				p.Market = v
			case "low":
				p.Low = v
			case "mid":
				p.Mid = v
			case "high":
				p.High = v
			case "direct_low":
				p.DirectLow = v
			}
			tcgDay = max(tcgDay, q.Day)
		case q.Source == snapshots.SourceCardmarket && q.Product == cmProduct && cmID != 0:
			if out.cardmarket == nil {
				out.cardmarket = &Cardmarket{URL: snapshots.CardmarketURL(c.Game, c.Name), Prices: &CardmarketPrices{}}
			}
			p := out.cardmarket.Prices
			foil := cardmarketFoil(c, int(q.Finish), cmPrintings)
			v := money(q.Amount)
			switch q.Field {
			case "avg":
				p.AverageSellPrice, p.ReverseHoloSell = pick(foil, p.AverageSellPrice, p.ReverseHoloSell, v)
			case "low":
				p.LowPrice, p.ReverseHoloLow = pick(foil, p.LowPrice, p.ReverseHoloLow, v)
			case "trend":
				p.TrendPrice, p.ReverseHoloTrend = pick(foil, p.TrendPrice, p.ReverseHoloTrend, v)
			case "avg1":
				p.Avg1, p.ReverseHoloAvg1 = pick(foil, p.Avg1, p.ReverseHoloAvg1, v)
			case "avg7":
				p.Avg7, p.ReverseHoloAvg7 = pick(foil, p.Avg7, p.ReverseHoloAvg7, v)
			case "avg30":
				p.Avg30, p.ReverseHoloAvg30 = pick(foil, p.Avg30, p.ReverseHoloAvg30, v)
			}
			cmDay = max(cmDay, q.Day)
		}
	}
	if out.tcgplayer == nil && out.cardmarket == nil {
		return nil
	}
	if out.tcgplayer != nil {
		out.tcgplayer.UpdatedAt = slashDay(tcgDay)
	}
	if out.cardmarket != nil {
		out.cardmarket.UpdatedAt = slashDay(cmDay)
	}
	return out
}

// pick sets the plain or the foil field to v.
func pick(foil bool, plain, holo, v *float64) (*float64, *float64) {
	if foil {
		return plain, v
	}
	return v, holo
}

// quoted reports whether cs has a raw near-mint quote of source's product.
func quoted(cs *snapshots.CardSources, source, product string) bool {
	for _, q := range cs.Quotes {
		if q.Source == source && q.Product == product && q.Grade == snapshots.RawNearMint {
			return true
		}
	}
	return false
}

// cardmarketFoil reports whether Cardmarket's numbers filed under printing
// f of c are the product's -holo fields (its foil articles), by the rule
// that filed them (builder/source/cardmarket's Printings, given the
// printings the product stands for): a reverse printing of a product that
// also stands for another printing, or a holo printing of a product that
// stands for a normal printing and no reverse one. A card whose printings
// are unknown has plain fields only.
func cardmarketFoil(c *snapshots.Card, f int, product []int) bool {
	if f >= len(c.Variants) {
		return false
	}
	typeOf := func(g int) string { t, _, _ := strings.Cut(c.Variants[g], "/"); return t }
	var reverse, normal, other bool
	for _, g := range product {
		if g >= len(c.Variants) {
			continue
		}
		switch typeOf(g) {
		case "reverse":
			reverse = true
		case "normal":
			normal, other = true, true
		default:
			other = true
		}
	}
	switch typeOf(f) {
	case "reverse":
		return other
	case "holo":
		return normal && !reverse
	}
	return false
}

// estimatePrices builds c's prices from the estimates of its printings:
// tcgplayer.prices of each printing with a raw near-mint fmv, that fmv as
// market and the other numbers null, updatedAt the card's price day, source
// the market's (PriceSynthetic or PriceFeed). Nil when no printing has one.
func estimatePrices(c *snapshots.Card, printings []snapshots.Printing, asOf snapshots.Day, source string) *cardPrices {
	var tp *TCGPlayer
	owner := map[string]bool{}
	for i := range printings {
		pm := pricing.NewPrintingMarket(&printings[i])
		if pm.Cents <= 0 {
			continue
		}
		f := int(printings[i].Finish)
		key := tcgKey(c, f, c.PrintingsOf(snapshots.MarketIDTCGplayer, c.ProductOf(snapshots.MarketIDTCGplayer, f)))
		if owner[key] {
			continue
		}
		owner[key] = true
		if tp == nil {
			day := c.PriceDay
			if day <= 0 {
				day = asOf
			}
			tp = &TCGPlayer{URL: tcgplayerURL(c, c.TCGplayerProductID()), UpdatedAt: slashDay(day)}
		}
		tp.Prices.slot(key).Market = money(pm.Cents)
	}
	if tp == nil {
		return nil
	}
	return &cardPrices{tcgplayer: tp, source: source}
}
