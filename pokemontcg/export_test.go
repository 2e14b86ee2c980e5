package pokemontcg

// CompareCards compares two card objects by keys on their values (not the
// catalog's ranks): the order SortCards must give, ties aside.
func CompareCards(a, b *Card, keys []SortKey) int { return compareByKeys(a, b, keys, cardSorts) }
