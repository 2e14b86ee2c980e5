package snapshots

import (
	"fmt"
	"strconv"
	"strings"
)

// Marketplace is a place where cards sell: an off-chain marketplace or an
// on-chain venue. Its numeric value is stored in snapshots: append only.
type Marketplace uint8

// Marketplaces, off-chain first. The partner marketplace's price feed is also
// addressed as "partner_feed" (see ParseMarketplace).
const (
	MarketPartner Marketplace = iota
	MarketEbay
	MarketCardmarket
	MarketMercari
	MarketYahooAuctions
	VenueCourtyard
	VenueCollectorCrypt
	numMarketplaces
)

var marketplaceNames = [...]string{"partner", "ebay", "cardmarket", "mercari", "yahoo_auctions", "courtyard", "collector_crypt"}

// PartnerFeedAlias is the name of the partner price feed, an alias of "partner".
const PartnerFeedAlias = "partner_feed"

// AllMarketplaces lists every marketplace and venue in API order.
func AllMarketplaces() []Marketplace {
	out := make([]Marketplace, numMarketplaces)
	for i := range out {
		out[i] = Marketplace(i)
	}
	return out
}

func (m Marketplace) String() string {
	if int(m) < len(marketplaceNames) {
		return marketplaceNames[m]
	}
	return "unknown"
}

// OnChain reports whether m is an on-chain venue.
func (m Marketplace) OnChain() bool { return m >= VenueCourtyard && m < numMarketplaces }

// ParseMarketplace parses a marketplace name; "partner_feed" means partner.
func ParseMarketplace(s string) (Marketplace, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == PartnerFeedAlias {
		return MarketPartner, true
	}
	for i, n := range marketplaceNames {
		if n == s {
			return Marketplace(i), true
		}
	}
	return 0, false
}

// TradeType is how a sale was made. Stored: append only.
type TradeType uint8

// Trade types.
const (
	TradeAuction TradeType = iota
	TradeFixedPrice
	TradeBestOffer
	TradeOnChainTransfer
	numTradeTypes
)

var tradeTypeNames = [...]string{"auction", "fixed_price", "best_offer", "on_chain_transfer"}

// TradeTypeNames lists the trade types in API order.
func TradeTypeNames() []string { return tradeTypeNames[:] }

func (t TradeType) String() string {
	if int(t) < len(tradeTypeNames) {
		return tradeTypeNames[t]
	}
	return "unknown"
}

// ParseTradeType parses a trade type name.
func ParseTradeType(s string) (TradeType, bool) {
	for i, n := range tradeTypeNames {
		if n == s {
			return TradeType(i), true
		}
	}
	return 0, false
}

// Confidence is how sure the identity match of a sale to its card is.
// Stored: append only.
type Confidence uint8

// Identity confidences; the last two are hidden by default.
const (
	ConfExact Confidence = iota
	ConfAgreeHigh
	ConfAgreeMedium
	ConfDisagreeMedium
	ConfDisagreeHigh
)

var confidenceNames = [...]string{"exact", "agree_high", "agree_medium", "disagree_medium", "disagree_high"}

func (c Confidence) String() string {
	if int(c) < len(confidenceNames) {
		return confidenceNames[c]
	}
	return "unknown"
}

// Untrusted reports whether c is a low-confidence match, hidden by default.
func (c Confidence) Untrusted() bool { return c >= ConfDisagreeMedium }

// ParseConfidence parses a confidence name.
func ParseConfidence(s string) (Confidence, bool) {
	for i, n := range confidenceNames {
		if n == s {
			return Confidence(i), true
		}
	}
	return 0, false
}

// Conditions of raw (ungraded) cards, best first.
var Conditions = []string{"near_mint", "lightly_played", "moderately_played", "heavily_played", "damaged"}

// Graders, in API order: the first is the top grader.
var Graders = []string{"slab", "bgs", "cgc"}

// Grade identifies a condition or a grader's grade. It is stored as one byte:
//
//	0..4     raw conditions (Conditions order)
//	5..      grader g (Graders order), number n in half steps 1.0..10.0:
//	         5 + g*19 + (2n - 2)
type Grade uint8

// RawNearMint is the default grade, raw:near_mint.
const RawNearMint Grade = 0

const gradeSteps = 19 // 1.0, 1.5, ..., 10.0

// GradedGrade returns the grade of grader index g with number num (1..10 in
// half steps).
func GradedGrade(g int, num float64) Grade {
	return Grade(5 + g*gradeSteps + int(num*2) - 2)
}

// RawGrade returns the raw grade of condition index c.
func RawGrade(c int) Grade { return Grade(c) }

// Raw reports whether g is a raw condition.
func (g Grade) Raw() bool { return g < 5 }

// Grader returns the grader index of a graded grade, or -1 for raw grades.
func (g Grade) Grader() int {
	if g.Raw() {
		return -1
	}
	return (int(g) - 5) / gradeSteps
}

// Number returns the grade number of a graded grade (0 for raw grades).
func (g Grade) Number() float64 {
	if g.Raw() {
		return 0
	}
	return float64((int(g)-5)%gradeSteps+2) / 2
}

// Condition returns the condition name of a raw grade ("" for graded).
func (g Grade) Condition() string {
	if g.Raw() {
		return Conditions[g]
	}
	return ""
}

// Valid reports whether g is a defined grade.
func (g Grade) Valid() bool { return int(g) < 5+len(Graders)*gradeSteps }

// String formats g as raw:<condition> or <grader>:<number>.
func (g Grade) String() string { return gradeNames[g] }

// gradeNames holds the String of every Grade value.
var gradeNames = func() (names [256]string) {
	for i := range names {
		names[i] = Grade(i).format()
	}
	return names
}()

func (g Grade) format() string {
	if g.Raw() {
		return "raw:" + Conditions[g]
	}
	if !g.Valid() {
		return "unknown"
	}
	return Graders[g.Grader()] + ":" + strconv.FormatFloat(g.Number(), 'f', -1, 64)
}

// ParseGrade parses raw:<condition> or <grader>:<number> (1..10, half steps).
func ParseGrade(s string) (Grade, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	prefix, rest, ok := strings.Cut(s, ":")
	if !ok {
		return 0, fmt.Errorf("grade %q: want raw:<condition> or <grader>:<number>", s)
	}
	if prefix == "raw" {
		for i, c := range Conditions {
			if c == rest {
				return RawGrade(i), nil
			}
		}
		return 0, fmt.Errorf("grade %q: condition must be one of %s", s, strings.Join(Conditions, ", "))
	}
	gi := GraderIndex(prefix)
	if gi < 0 {
		return 0, fmt.Errorf("grade %q: grader must be raw or one of %s", s, strings.Join(Graders, ", "))
	}
	num, err := strconv.ParseFloat(rest, 64)
	if err != nil || num < 1 || num > 10 || num*2 != float64(int(num*2)) {
		return 0, fmt.Errorf("grade %q: number must be 1 to 10 in steps of 0.5", s)
	}
	return GradedGrade(gi, num), nil
}

// GraderIndex returns the index of grader name in Graders, or -1.
func GraderIndex(name string) int {
	for i, g := range Graders {
		if g == name {
			return i
		}
	}
	return -1
}

// ConditionIndex returns the index of a condition name in Conditions, or -1.
func ConditionIndex(name string) int {
	for i, c := range Conditions {
		if c == name {
			return i
		}
	}
	return -1
}
