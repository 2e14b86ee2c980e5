package snapshots

import (
	"strconv"
	"strings"
)

// Alternate arts of the Sun & Moon and Sword & Shield eras carry no rarity
// of their own in the catalog: the alternate-art Umbreon VMAX (en:swsh7-215)
// is a "Rare Rainbow" like the rainbow Umbreon VMAX (en:swsh7-214), the
// alternate-art Charizard V (en:swsh9-154) a "Rare Ultra" like the full-art
// one (en:swsh9-153). What marks them is their set: the second card of one
// name at one of these rarities (by collector number) is the alternate art,
// and so is a "Rare Rainbow" printed without the rainbow foil in a set whose
// rainbow rares have it (the Fusion Strike VMAX alternate arts, en:swsh8-265
// to 271, have no rainbow twin). (Cards whose variants name alternate-art,
// the One Piece parallels, say so themselves: HasVariantPart.)
var altArtRarities = map[string]bool{"Rare Ultra": true, "Ultra Rare": true, "Rare Rainbow": true}

// altArtEra is the eras whose sets print alternate arts that way: from Sun &
// Moon (2017) to the end of Sword & Shield (early 2023), by set release.
var altArtEra = [2]string{"2017-01-01", "2023-03-31"}

// AlternateArts returns the alternate arts among cards (keyed game|id) by
// the rule above; sets are the cards' sets (their release dates). The result
// depends only on the contents of cards and sets, not their order. The
// builder's market model and the edge's reading of "alt art" share it.
func AlternateArts(cards []*Card, sets []*Set) map[string]bool {
	out := map[string]bool{}
	type setKey struct{ game, id string }
	release := map[setKey]string{}
	for _, s := range sets {
		if _, err := ParseDay(s.ReleaseDate); err == nil {
			release[setKey{s.Game, s.ID}] = s.ReleaseDate
		}
	}
	type group struct{ set, name, rarity string }
	groups := map[group][]*Card{}
	rainbowSets := map[setKey]bool{} // sets whose rainbow rares carry the rainbow part
	for _, c := range cards {
		if c.Game != "pokemon" || !altArtRarities[c.Rarity] {
			continue
		}
		d, ok := release[setKey{c.Game, c.SetID}]
		if !ok || d < altArtEra[0] || d > altArtEra[1] {
			continue
		}
		k := group{c.SetID, c.Name, c.Rarity}
		groups[k] = append(groups[k], c)
		if c.Rarity == "Rare Rainbow" && HasVariantPart(c.Variants, "rainbow") {
			rainbowSets[setKey{c.Game, c.SetID}] = true
		}
	}
	for k, cs := range groups {
		for _, c := range cs {
			if k.rarity == "Rare Rainbow" && rainbowSets[setKey{c.Game, c.SetID}] && !HasVariantPart(c.Variants, "rainbow") {
				out[c.Game+"|"+c.ID] = true
			}
		}
	}
	for _, cs := range groups {
		if len(cs) < 2 {
			continue
		}
		first := cs[0]
		for _, c := range cs[1:] {
			if numberLess(c.Number, first.Number) {
				first = c
			}
		}
		rainbow := false
		for _, c := range cs {
			rainbow = rainbow || HasVariantPart(c.Variants, "rainbow")
		}
		for _, c := range cs {
			if rainbow {
				if !HasVariantPart(c.Variants, "rainbow") {
					out[c.Game+"|"+c.ID] = true
				}
			} else if c != first {
				out[c.Game+"|"+c.ID] = true
			}
		}
	}
	return out
}

// numberLess orders collector numbers: numerically when both are numbers.
func numberLess(a, b string) bool {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 == nil && err2 == nil {
		return x < y
	}
	return a < b
}

// HasVariantPart reports whether one of variants has the '/'-separated part
// p.
func HasVariantPart(variants []string, p string) bool {
	for _, v := range variants {
		for _, part := range strings.Split(v, "/") {
			if part == p {
				return true
			}
		}
	}
	return false
}
