package oauth

import (
	"slices"
	"strings"
)

// Scopes an app may be granted.
const (
	// ScopeMarket reads market data: the MCP data tools (search, cards,
	// prices, sales, trends), as an API key does.
	ScopeMarket = "market:read"
	// ScopeCollection reads and changes the account's collection through
	// the chat tools (show_cards, price_card, the collection operations),
	// for accounts with Apps access (Pro, Elite).
	ScopeCollection = "collection:write"
)

// Scope describes a scope as the consent page shows it.
type Scope struct {
	Name        string
	Title       string // "Read market data"
	Description string // what it lets the app do
	Required    bool   // granted with any other: the consent page cannot leave it out
}

// Scopes are every scope, in the order pages list them.
var Scopes = []Scope{
	{Name: ScopeMarket, Title: "Read market data",
		Description: "Search cards and sets, read prices, sales, price history and trends, as an API key of your account does. Calls count toward your account's daily quota.",
		Required:    true},
	{Name: ScopeCollection, Title: "Read and change your collection",
		Description: "See the cards in your collection and add, change or remove them through the chat tools. Needs the Pro or Elite tier."},
}

// ScopeNames lists the names of Scopes.
func ScopeNames() []string {
	out := make([]string, len(Scopes))
	for i, s := range Scopes {
		out[i] = s.Name
	}
	return out
}

// LookupScope returns the Scope named name.
func LookupScope(name string) (Scope, bool) {
	for _, s := range Scopes {
		if s.Name == name {
			return s, true
		}
	}
	return Scope{}, false
}

// parseScope splits a scope parameter (space-separated, RFC 6749 section
// 3.3) into known scope names in Scopes order, without repeats. An empty
// parameter is ScopeMarket alone. An unknown name is invalid_scope.
func parseScope(param string) ([]string, error) {
	names := strings.Fields(param)
	if len(names) == 0 {
		return []string{ScopeMarket}, nil
	}
	for _, n := range names {
		if _, ok := LookupScope(n); !ok {
			return nil, oauthErr(CodeInvalidScope, 400, "unknown scope %q: this server has %s", trunc(n, 64), strings.Join(ScopeNames(), " and "))
		}
	}
	return normalizeScopes(names), nil
}

// normalizeScopes returns the known names of names in Scopes order, once
// each, with ScopeMarket added when any is there (every grant includes it).
func normalizeScopes(names []string) []string {
	var out []string
	for _, s := range Scopes {
		if slices.Contains(names, s.Name) || (s.Required && len(names) > 0) {
			out = append(out, s.Name)
		}
	}
	return out
}

// subset reports whether every scope of a is in b.
func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// trunc cuts s to n bytes for an error message.
func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
