package snapshots_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/snapshots"
)

// The cards below carry the catalog's market_ids of the same cards.
var (
	// en:base1-4: 1st edition and shadowless share one product at both
	// marketplaces; the 1999-2000 copyright printing has none.
	charizard = &snapshots.Card{ID: "en:base1-4",
		Variants: []string{"holo/unlimited", "holo/shadowless/1st-edition", "holo/shadowless", "holo/1999-2000-copyright"},
		MarketIDs: []snapshots.MarketID{
			{Variant: "holo/unlimited", Cardmarket: 273699, TCGplayer: 42382},
			{Variant: "holo/shadowless/1st-edition", Cardmarket: 660224, TCGplayer: 106999},
			{Variant: "holo/shadowless", Cardmarket: 660224, TCGplayer: 106999},
		}}
	// en:base6-75: the card as a whole has a Cardmarket product; normal
	// and reverse have TCGplayer's of their own but no Cardmarket one.
	base675 = &snapshots.Card{ID: "en:base6-75",
		Variants: []string{"normal", "reverse", "reverse/shifted-energy-cost"},
		MarketIDs: []snapshots.MarketID{
			{Variant: "normal", TCGplayer: 85343},
			{Variant: "reverse", TCGplayer: 85343},
			{Cardmarket: 274840, TCGplayer: 85343},
		}}
	// en:sv1-6: one product for the card as a whole.
	sv16 = &snapshots.Card{ID: "en:sv1-6", Variants: []string{"reverse", "normal"},
		MarketIDs: []snapshots.MarketID{{Cardmarket: 702303, TCGplayer: 487836}}}
	// en:xy1-1: variants unknown.
	xy11 = &snapshots.Card{ID: "en:xy1-1", MarketIDs: []snapshots.MarketID{{Cardmarket: 281338, TCGplayer: 90324}}}
)

func TestCard_ProductOf(t *testing.T) {
	for _, tt := range []struct {
		card   *snapshots.Card
		market string
		finish int
		want   int64
	}{
		{charizard, snapshots.MarketIDCardmarket, 0, 273699},
		{charizard, snapshots.MarketIDTCGplayer, 1, 106999},
		{charizard, snapshots.MarketIDTCGplayer, 3, 0},
		{base675, snapshots.MarketIDCardmarket, 0, 274840}, // no own Cardmarket id: the whole card's
		{base675, snapshots.MarketIDCardmarket, 2, 274840},
		{base675, snapshots.MarketIDTCGplayer, 1, 85343},
		{sv16, snapshots.MarketIDTCGplayer, 1, 487836},
		{xy11, snapshots.MarketIDCardmarket, 0, 281338},
		{&snapshots.Card{}, snapshots.MarketIDCardmarket, 0, 0},
	} {
		if got := tt.card.ProductOf(tt.market, tt.finish); got != tt.want {
			t.Errorf("%s.ProductOf(%s, %d) = %d, want %d", tt.card.ID, tt.market, tt.finish, got, tt.want)
		}
	}
}

func TestCard_PrintingsOf(t *testing.T) {
	for _, tt := range []struct {
		card   *snapshots.Card
		market string
		id     int64
		want   []int
	}{
		{charizard, snapshots.MarketIDCardmarket, 660224, []int{1, 2}},
		{charizard, snapshots.MarketIDCardmarket, 273699, []int{0}},
		{charizard, snapshots.MarketIDCardmarket, 1, nil},
		{base675, snapshots.MarketIDCardmarket, 274840, []int{0, 1, 2}},
		{base675, snapshots.MarketIDTCGplayer, 85343, []int{0, 1, 2}},
		{sv16, snapshots.MarketIDCardmarket, 702303, []int{0, 1}},
		{xy11, snapshots.MarketIDTCGplayer, 90324, []int{0}},
		{xy11, snapshots.MarketIDTCGplayer, 0, nil},
	} {
		if got := tt.card.PrintingsOf(tt.market, tt.id); !cmp.Equal(got, tt.want) {
			t.Errorf("%s.PrintingsOf(%s, %d) = %v, want %v", tt.card.ID, tt.market, tt.id, got, tt.want)
		}
	}
}

func TestCard_TCGplayerProductID(t *testing.T) {
	for _, tt := range []struct {
		card *snapshots.Card
		want int64
	}{
		{charizard, 42382},
		{sv16, 487836}, // base printing normal, from the whole card's entry
		{&snapshots.Card{Variants: []string{"normal", "reverse"}, MarketIDs: []snapshots.MarketID{{Variant: "reverse", TCGplayer: 9}}}, 9},
		{&snapshots.Card{}, 0},
	} {
		if got := tt.card.TCGplayerProductID(); got != tt.want {
			t.Errorf("%s.TCGplayerProductID() = %d, want %d", tt.card.ID, got, tt.want)
		}
	}
}

func TestMarketURLs(t *testing.T) {
	if got, want := snapshots.TCGplayerURL(42382), "https://www.tcgplayer.com/product/42382"; got != want {
		t.Errorf("TCGplayerURL = %q, want %q", got, want)
	}
	if got, want := snapshots.CardmarketURL("pokemon", "Mr. Mime ex"), "https://www.cardmarket.com/en/Pokemon/Products/Search?searchString=Mr.+Mime+ex"; got != want {
		t.Errorf("CardmarketURL = %q, want %q", got, want)
	}
	if got := snapshots.CardmarketURL("chess", "x"); got != "" {
		t.Errorf("CardmarketURL(unknown game) = %q, want empty", got)
	}
}

func TestMarketLinks(t *testing.T) {
	str := func(s string) *string { return &s }
	id := func(n int64) *int64 { return &n }
	search := str("https://www.cardmarket.com/en/Pokemon/Products/Search?searchString=Charizard")
	charizard.Game, charizard.Name = "pokemon", "Charizard"
	defer func() { charizard.Game, charizard.Name = "", "" }()
	for _, tt := range []struct {
		card *snapshots.Card
		want []snapshots.MarketLink
	}{
		{charizard, []snapshots.MarketLink{
			{Variant: str("holo/unlimited"), Cardmarket: id(273699), CardmarketURL: search, TCGplayer: id(42382), TCGplayerURL: str("https://www.tcgplayer.com/product/42382")},
			{Variant: str("holo/shadowless/1st-edition"), Cardmarket: id(660224), CardmarketURL: search, TCGplayer: id(106999), TCGplayerURL: str("https://www.tcgplayer.com/product/106999")},
			{Variant: str("holo/shadowless"), Cardmarket: id(660224), CardmarketURL: search, TCGplayer: id(106999), TCGplayerURL: str("https://www.tcgplayer.com/product/106999")},
		}},
		// A game Cardmarket does not list (no name here): an id, no page.
		{base675, []snapshots.MarketLink{
			{Variant: str("normal"), Cardmarket: id(274840), TCGplayer: id(85343), TCGplayerURL: str("https://www.tcgplayer.com/product/85343")},
			{Variant: str("reverse"), Cardmarket: id(274840), TCGplayer: id(85343), TCGplayerURL: str("https://www.tcgplayer.com/product/85343")},
			{Variant: str("reverse/shifted-energy-cost"), Cardmarket: id(274840), TCGplayer: id(85343), TCGplayerURL: str("https://www.tcgplayer.com/product/85343")},
		}},
		{xy11, []snapshots.MarketLink{{Cardmarket: id(281338), TCGplayer: id(90324), TCGplayerURL: str("https://www.tcgplayer.com/product/90324")}}},
		{&snapshots.Card{ID: "en:none", Variants: []string{"normal"}}, []snapshots.MarketLink{}},
	} {
		if diff := cmp.Diff(tt.want, snapshots.MarketLinks(tt.card)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.card.ID, diff)
		}
	}
}
