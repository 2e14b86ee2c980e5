package index

import (
	"hash/maphash"
	"sort"
	"strings"
	"unicode/utf8"
)

// The sorted tables of a game are searched by hash where a lookup can be
// answered that way, so that a keystroke costs a few memory reads instead of
// binary searches that miss the cache at every step: exact ids, and hot
// prefixes with their key ranges (which also narrow the search for a
// prefix that is not hot to the range of its longest hot prefix). Built by
// Open (decodeTable), never stored.

// strSet is an open-addressing hash table of distinct strings held
// elsewhere: a slot holds 1 + the index of its string, 0 is empty.
type strSet struct {
	seed  maphash.Seed
	slots []uint32
}

func newStrSet(n int) strSet {
	size := 8
	for size < 2*n {
		size <<= 1
	}
	return strSet{seed: maphash.MakeSeed(), slots: make([]uint32, size)}
}

// add inserts index i whose string is s (not already present).
func (t *strSet) add(s string, i uint32) {
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, s) & mask; ; h = (h + 1) & mask {
		if t.slots[h] == 0 {
			t.slots[h] = i + 1
			return
		}
	}
}

// find returns the index whose string, per str, is s.
func (t *strSet) find(s string, str func(int) string) (int, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if str(int(v-1)) == s {
			return int(v - 1), true
		}
	}
}

// buildHash fills the hash tables of g (after decoding and validation).
func (g *gameTable) buildHash() {
	// exact ids: the first entry of each run of one key
	runs := 0
	for i := range g.exactEnt {
		if i == 0 || g.exKey(i) != g.exKey(i-1) {
			runs++
		}
	}
	g.exactSet = newStrSet(runs)
	for i := range g.exactEnt {
		if i == 0 || g.exKey(i) != g.exKey(i-1) {
			g.exactSet.add(g.exKey(i), uint32(i))
		}
	}
	// hot prefixes, their key ranges and the key of each hot posting
	nh, n := len(g.hotOff)-1, g.nKeys()
	g.hotSet = newStrSet(nh)
	g.hotLo, g.hotHi = make([]uint32, nh), make([]uint32, nh)
	for h := 0; h < nh; h++ {
		p := g.hotKey(h)
		g.hotSet.add(p, uint32(h))
		lo := sort.Search(n, func(i int) bool { return g.key(i) >= p })
		hi := lo + sort.Search(n-lo, func(j int) bool { return !strings.HasPrefix(g.key(lo+j), p) })
		g.hotLo[h], g.hotHi[h] = uint32(lo), uint32(hi)
	}
	g.hotPostKey = make([]uint32, len(g.hotPost))
	for h := 0; h < nh; h++ {
		lo, hi := int(g.hotLo[h]), int(g.hotHi[h])
		for j := g.hotStart[h*nScopes]; j < g.hotStart[(h+1)*nScopes]; j++ {
			post := g.hotPost[j]
			k := lo + sort.Search(hi-lo, func(i int) bool { return g.postOff[lo+i+1] > post })
			if k >= hi { // a damaged file: fall back to every key
				k = g.keyOfPosting(post)
			}
			g.hotPostKey[j] = uint32(k)
		}
	}
}

// exactFirst returns the first entry of exact key in.
func (g *gameTable) exactFirst(in string) (int, bool) {
	return g.exactSet.find(in, g.exKey)
}

// hotOf returns the hot prefix equal to p.
func (g *gameTable) hotOf(p string) (int, bool) {
	return g.hotSet.find(p, g.hotKey)
}

// keyRange returns the keys with prefix p: [lo, hi), searched within the
// range of p's longest hot prefix.
func (g *gameTable) keyRange(p string) (lo, hi int) {
	from, to := 0, g.nKeys()
	for q := p; q != ""; {
		_, size := utf8.DecodeLastRuneInString(q)
		q = q[:len(q)-size]
		if h, ok := g.hotOf(q); ok {
			from, to = int(g.hotLo[h]), int(g.hotHi[h])
			break
		}
	}
	lo = from + sort.Search(to-from, func(i int) bool { return g.key(from+i) >= p })
	hi = lo + sort.Search(to-lo, func(j int) bool { return !strings.HasPrefix(g.key(lo+j), p) })
	return lo, hi
}
