package account

import (
	"sort"
	"strings"
	"sync"

	"github.com/trustelem/zxcvbn/frequency"
)

// The blocklist is zxcvbn's ranked dictionaries, as shipped by the Go module
// github.com/trustelem/zxcvbn (v1.0.1, MIT License, Copyright (c) 2018
// Vincent Vanackere and Trustelem; a port of Dropbox's zxcvbn 4.4.2, MIT
// License): its "passwords" list (the 30,000 most common passwords of a
// corpus of leaked ones), the 30,000 most common words of English Wikipedia
// and of US television and film, common surnames and first names. Only
// entries of at least MinPasswordLen characters matter (shorter passwords are
// refused anyway): about 41,000, kept sorted in memory (about 1 MB), built at
// the first check. Updating the module updates the list.
var blocklist struct {
	once  sync.Once
	words []string
}

// Blocked reports whether a password (lowercased) is on the blocklist.
func Blocked(lower string) bool {
	blocklist.once.Do(func() {
		seen := map[string]bool{}
		for _, list := range frequency.FrequencyLists {
			for _, w := range list {
				if len(w) >= MinPasswordLen && !seen[w] {
					seen[w] = true
					blocklist.words = append(blocklist.words, strings.ToLower(w))
				}
			}
		}
		sort.Strings(blocklist.words)
	})
	i := sort.SearchStrings(blocklist.words, lower)
	return i < len(blocklist.words) && blocklist.words[i] == lower
}

// BlocklistLen returns the number of entries of the blocklist.
func BlocklistLen() int {
	Blocked("")
	return len(blocklist.words)
}
