package snapshots

import (
	"net/url"
	"strconv"
)

// MarketID is one marketplace product of a card, from the catalog's
// market_ids: the printing it stands for and the marketplaces' own ids.
// Several printings may share one product (Cardmarket lists 1st edition and
// unlimited, normal and reverse holo as one product; TCGplayer tells them
// apart by the subTypeName of its price rows).
type MarketID struct {
	// Variant is the printing (one of the card's Variants) the product is;
	// "" means the card as a whole: every printing that names no product of
	// that marketplace of its own.
	Variant string `json:"variant,omitempty"`
	// Cardmarket is Cardmarket's idProduct (as in its price guide); 0 when
	// none.
	Cardmarket int64 `json:"cardmarket,omitempty"`
	// TCGplayer is TCGplayer's productId; 0 when none.
	TCGplayer int64 `json:"tcgplayer,omitempty"`
}

// The marketplaces whose product ids the catalog carries (MarketIDs).
const (
	MarketIDCardmarket = "cardmarket"
	MarketIDTCGplayer  = "tcgplayer"
)

// id returns m's id at marketplace market (MarketIDCardmarket or
// MarketIDTCGplayer).
func (m MarketID) id(market string) int64 {
	if market == MarketIDCardmarket {
		return m.Cardmarket
	}
	return m.TCGplayer
}

// ProductOf returns the product id at marketplace market (MarketIDCardmarket
// or MarketIDTCGplayer) of printing finish of c (an index into its Variants;
// 0 for a card without variants): the first id of the printing's own
// entries, else the first id of the card-as-a-whole entries; 0 when neither
// has one.
func (c *Card) ProductOf(market string, finish int) int64 {
	variant := c.variantOf(finish)
	var whole int64
	for _, m := range c.MarketIDs {
		id := m.id(market)
		switch {
		case id == 0:
		case m.Variant == "":
			if whole == 0 {
				whole = id
			}
		case m.Variant == variant:
			return id
		}
	}
	return whole
}

func (c *Card) variantOf(finish int) string {
	if finish >= 0 && finish < len(c.Variants) {
		return c.Variants[finish]
	}
	return ""
}

// PrintingsOf returns the printings of c (indices into its Variants, in
// order; [0] for a card without variants) that product id at marketplace
// market stands for: those with an entry of their own naming it, and, when
// a card-as-a-whole entry names it, those without an entry of their own
// naming any product of that marketplace.
func (c *Card) PrintingsOf(market string, id int64) []int {
	if id == 0 {
		return nil
	}
	whole := false
	for _, m := range c.MarketIDs {
		if m.Variant == "" && m.id(market) == id {
			whole = true
		}
	}
	var out []int
	for f := range c.Printings() {
		variant := c.variantOf(f)
		own, named := false, false
		for _, m := range c.MarketIDs {
			if x := m.id(market); x != 0 && m.Variant != "" && m.Variant == variant {
				own = true
				named = named || x == id
			}
		}
		if named || (whole && !own) {
			out = append(out, f)
		}
	}
	return out
}

// TCGplayerProductID is the partner marketplace's product id of c: the
// TCGplayer productId of its base printing, else the first one among its
// printings; 0 when it has none. It is what Card.PartnerProductID holds.
func (c *Card) TCGplayerProductID() int64 {
	if id := c.ProductOf(MarketIDTCGplayer, BasePrinting(c)); id != 0 {
		return id
	}
	for f := range c.Printings() {
		if id := c.ProductOf(MarketIDTCGplayer, f); id != 0 {
			return id
		}
	}
	return 0
}

// TCGplayerURL is the product page of a TCGplayer productId ("" for 0).
func TCGplayerURL(productID int64) string {
	if productID == 0 {
		return ""
	}
	return "https://www.tcgplayer.com/product/" + strconv.FormatInt(productID, 10)
}

// cardmarketGames are Cardmarket's path names of the games.
var cardmarketGames = map[string]string{"pokemon": "Pokemon", "onepiece": "OnePiece"}

// CardmarketURL is Cardmarket's search page for a card name of game ("" for
// a game Cardmarket does not list). Cardmarket addresses a product page by
// its expansion's and name's slugs, which its price guide does not carry, so
// an idProduct alone makes no product URL; the search finds the product by
// name.
func CardmarketURL(game, name string) string {
	g, ok := cardmarketGames[game]
	if !ok || name == "" {
		return ""
	}
	return "https://www.cardmarket.com/en/" + g + "/Products/Search?searchString=" + url.QueryEscape(name)
}

// MarketLink is one printing of a card at the marketplaces, as the API
// shows it (card payloads' market_ids): the printing, Cardmarket's
// idProduct and TCGplayer's productId for it (null when the catalog has
// none) and their pages.
type MarketLink struct {
	// Variant is the printing (null for a card without variants).
	Variant       *string `json:"variant"`
	Cardmarket    *int64  `json:"cardmarket"`
	CardmarketURL *string `json:"cardmarket_url"`
	TCGplayer     *int64  `json:"tcgplayer"`
	TCGplayerURL  *string `json:"tcgplayer_url"`
}

// MarketLinks lists c's printings that have a product at either
// marketplace (ProductOf), in Variants order; empty (not nil) when none.
// Cardmarket's link is its search for the card's name (CardmarketURL).
func MarketLinks(c *Card) []MarketLink {
	out := []MarketLink{}
	if len(c.MarketIDs) == 0 {
		return out
	}
	for f := range c.Printings() {
		cm, tcg := c.ProductOf(MarketIDCardmarket, f), c.ProductOf(MarketIDTCGplayer, f)
		if cm == 0 && tcg == 0 {
			continue
		}
		l := MarketLink{}
		if v := c.variantOf(f); v != "" {
			l.Variant = &v
		}
		if cm != 0 {
			u := CardmarketURL(c.Game, c.Name)
			l.Cardmarket = &cm
			if u != "" {
				l.CardmarketURL = &u
			}
		}
		if tcg != 0 {
			u := TCGplayerURL(tcg)
			l.TCGplayer, l.TCGplayerURL = &tcg, &u
		}
		out = append(out, l)
	}
	return out
}
