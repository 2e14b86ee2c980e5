package e2e_test

import (
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/mcp/mcptest"
)

// TestSearchSyntax_DefaultSnapshot runs #25's checks of the search syntax
// (search_test.go) on the default snapshot (defaultEdge): the issue's
// queries on /api/v3/search and /api/v3/cards, every page, each returning
// exactly the catalog's cards where the query has no plain words; charizard
// -set:base1; the 422s that name the term; card detail's play facts; MCP
// search. Every response is checked against the OpenAPI document.
func TestSearchSyntax_DefaultSnapshot(t *testing.T) {
	e, root, se := defaultEdge(t)
	t.Run("queries", func(t *testing.T) { checkSyntaxCases(t, se, snapshotCards(t, root)) })
	t.Run("errors", func(t *testing.T) { checkSyntaxErrs(t, se) })
	t.Run("card detail", func(t *testing.T) { checkCardPlay(t, se) })
	t.Run("mcp", func(t *testing.T) {
		checkMCPSearchSyntax(t, mcptest.Open(t, se.base, e.key(t, access.Elite, false, true)))
	})
}

// TestExamples_DefaultSnapshot runs every example query people are shown
// (examples_test.go), pokemontcg.io's own examples included, on the
// default snapshot.
func TestExamples_DefaultSnapshot(t *testing.T) {
	_, _, se := defaultEdge(t)
	checkExamples(t, se, true)
}
