package edge

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

type batchBody struct {
	IDs     []string `json:"ids"`
	Game    string   `json:"game"`
	Profile string   `json:"profile"`
}

var batchProfiles = []string{"core", "market", "full"}

// parseBatch decodes and checks a batch body; the unique ids are its cost.
func parseBatch(r *request) (batchBody, []string, error) {
	return decodeBatch(r.body, r.snap.Manifest().Games)
}

// decodeBatch decodes and checks a batch body against the snapshot's games
// (the first is the default). Every rejection is a validationErrors whose loc
// starts with "body"; one JSON value and nothing after it is accepted.
func decodeBatch(body []byte, games []string) (batchBody, []string, error) {
	var b batchBody
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&b)
	if err == nil && len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		err = errors.New("data after the JSON object")
	}
	if err != nil {
		return b, nil, validationErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"ids\": [...], \"game\": ..., \"profile\": ...}: " + err.Error(), Type: "json_invalid"}}
	}
	var verrs validationErrors
	if len(b.IDs) == 0 {
		verrs = append(verrs, validationError{Loc: []any{"body", "ids"}, Msg: "ids must be a non-empty array of card ids", Type: "missing"})
	}
	if b.Profile == "" {
		b.Profile = "core"
	}
	if !slices.Contains(batchProfiles, b.Profile) {
		verrs = append(verrs, validationError{Loc: []any{"body", "profile"}, Msg: "Input should be " + enumList(batchProfiles), Type: "enum", Input: b.Profile})
	}
	if b.Game == "" {
		b.Game = games[0]
	} else if !slices.Contains(games, b.Game) {
		verrs = append(verrs, validationError{Loc: []any{"body", "game"}, Msg: "Input should be " + enumList(games), Type: "enum", Input: b.Game})
	}
	seen := map[string]bool{}
	var unique []string
	for i, id := range b.IDs {
		if id == "" || len(id) > 128 {
			verrs = append(verrs, validationError{Loc: []any{"body", "ids", i}, Msg: "card id must be 1 to 128 characters", Type: "string_too_long", Input: id})
			continue
		}
		k := strings.ToLower(id)
		if !seen[k] {
			seen[k] = true
			unique = append(unique, id)
		}
	}
	if len(verrs) > 0 {
		return b, nil, verrs
	}
	return b, unique, nil
}

func batchCost(r *request) (int, error) {
	if err := access.RequireKey(r.caller); err != nil {
		return 0, err
	}
	if r.caller.Tier == access.Free {
		return 0, access.CheckBatch(r.caller, 0)
	}
	b, ids, err := parseBatch(r)
	if err != nil {
		return 0, err
	}
	if err := access.CheckBatch(r.caller, len(ids)); err != nil {
		return 0, validationErrors{{Loc: []any{"body", "ids"}, Msg: apperr.ErrorMessage(err), Type: "too_long", Ctx: map[string]any{"max_length": r.limits.BatchMax}}}
	}
	cards, _, err := catalog.CardsByID(r.snap.Reader, b.Game, ids)
	if err != nil {
		return 0, err
	}
	return max(1, len(cards)), nil
}

type batchPayload struct {
	Profile  string             `json:"profile"`
	Items    []pricing.CardGold `json:"items"`
	NotFound []string           `json:"not_found"`
	Cost     int                `json:"cost"`
	Summary  map[string]int     `json:"summary"`
}

func handleBatch(r *request) (any, error) {
	b, ids, err := parseBatch(r)
	if err != nil {
		return nil, err
	}
	cards, notFound, err := catalog.CardsByID(r.snap.Reader, b.Game, ids)
	if err != nil {
		return nil, err
	}
	out := batchPayload{Profile: b.Profile, Items: []pricing.CardGold{}, NotFound: jsontext.NonNil(notFound), Cost: max(1, len(cards))}
	for _, c := range cards {
		g, err := r.cardGold(c)
		if err != nil {
			return nil, err
		}
		var includes []string
		switch b.Profile {
		case "market":
			includes = []string{"market_summary"}
		case "full":
			includes = pricing.IncludeNames
		}
		if len(includes) > 0 {
			if g.Includes, err = r.cardIncludes(c, -1, includes); err != nil {
				return nil, err
			}
		}
		out.Items = append(out.Items, g)
	}
	out.Summary = map[string]int{"requested": len(b.IDs), "unique": len(ids), "found": len(out.Items), "not_found": len(out.NotFound)}
	return out, nil
}
