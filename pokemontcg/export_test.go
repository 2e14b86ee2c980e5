package pokemontcg

// CompareCards compares two card objects by keys on their values (not the
// catalog's ranks): the order SortCards must give, ties aside.
func CompareCards(a, b *Card, keys []SortKey) int {
	for _, k := range keys {
		f := cardSorts[k.Field]
		x, y := f.value(a), f.value(b)
		switch {
		case x == "" && y == "":
			continue
		case x == "":
			return 1
		case y == "":
			return -1
		}
		c := compareValues(f.kind, x, y)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
