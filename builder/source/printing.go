package source

import (
	"strings"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// Variant parts the sources' printing rules read (the catalog's variants are
// type[/foil][/subtype][/stamp...]: "holo/unlimited", "reverse/pokeball").
const (
	PartNormal     = "normal"
	PartHolo       = "holo"
	PartReverse    = "reverse"
	PartFirstEd    = "1st-edition"
	PartUnlimited  = "unlimited"
	PartShadowless = "shadowless"
)

// VariantType is the first part of a variant: normal, holo, reverse ...
func VariantType(v string) string {
	t, _, _ := strings.Cut(v, "/")
	return t
}

// HasPart reports whether variant v has part p.
func HasPart(v, p string) bool {
	for part := range strings.SplitSeq(v, "/") {
		if part == p {
			return true
		}
	}
	return false
}

// Filter returns the printings of c (indices into its Variants) among
// printings whose variant keep accepts.
func Filter(c *snapshots.Card, printings []int, keep func(variant string) bool) []int {
	var out []int
	for _, f := range printings {
		if f < len(c.Variants) && keep(c.Variants[f]) {
			out = append(out, f)
		}
	}
	return out
}

// BaseOf returns the plainest of printings of c, by the rule of the card's
// base printing (estimate.Default.BasePrinting), or -1 for none.
func BaseOf(c *snapshots.Card, printings []int) int {
	if len(printings) == 0 {
		return -1
	}
	variants := make([]string, len(printings))
	for i, f := range printings {
		if f < len(c.Variants) {
			variants[i] = c.Variants[f]
		}
	}
	return printings[estimate.Default.BasePrintingOf(variants)]
}

// VariantOf is the name of printing f of c ("" for a card without
// variants).
func VariantOf(c *snapshots.Card, f int) string {
	if f >= 0 && f < len(c.Variants) {
		return c.Variants[f]
	}
	return ""
}

// PrintingOfWords picks the printing of c that printing parts name, as the
// collectors' words reader gives them (snapshots.Words.Printing:
// "1st-edition/shadowless", "reverse", "unlimited"): none said, the card's
// base printing; else the printings whose variant has every part (reverse
// and normal as its type; unlimited as no 1st-edition part), the plainest
// of several. -1 and why when none does, or when the card's printings are
// unknown and the words name one.
func PrintingOfWords(c *snapshots.Card, printing string) (int, string) {
	if printing == "" {
		return snapshots.BasePrinting(c), ""
	}
	if len(c.Variants) == 0 {
		if printing == PartNormal || printing == PartUnlimited {
			return 0, ""
		}
		return -1, "printing words for a card without known printings: " + c.ID + " " + printing
	}
	var cands []int
	for f, v := range c.Variants {
		ok := true
		for p := range strings.SplitSeq(printing, "/") {
			switch p {
			case PartReverse, PartNormal:
				ok = ok && VariantType(v) == p
			case PartUnlimited:
				ok = ok && !HasPart(v, PartFirstEd)
			default:
				ok = ok && HasPart(v, p)
			}
		}
		if ok {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return -1, "printing words match no printing: " + c.ID + " " + printing + " in " + strings.Join(c.Variants, ", ")
	}
	return BaseOf(c, cands), ""
}
