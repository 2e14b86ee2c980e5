package mcp

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

func TestValidateArgs(t *testing.T) {
	tools := map[string]mcpproto.Tool{}
	for _, d := range (&Server{}).tools() {
		tools[d.tool.Name] = d.tool
	}
	many := make([]any, 1001)
	for i := range many {
		many[i] = "x"
	}
	cases := []struct {
		tool string
		args map[string]any
		want string // "" = valid
	}{
		{"quote", map[string]any{"ids": []any{"en:base1-4"}, "grade": "slab:10"}, ""},
		{"quote", map[string]any{"ids": []any{"en:base1-4"}, "finish": nil}, ""},
		{"quote", map[string]any{}, "ids is required: Card references"},
		{"quote", map[string]any{"ids": many}, "ids has 1001 items, at most 1000 per call"},
		{"quote", map[string]any{"ids": "en:base1-4"}, "ids must be an array"},
		{"quote", map[string]any{"ids": []any{}}, "ids has 0 items, give at least 1"},
		{"quote", map[string]any{"ids": []any{3.0}}, "ids item 0 must be a string, got the number 3"},
		{"quote", map[string]any{"ids": []any{""}}, "ids item 0 is empty"},
		{"quote", map[string]any{"ids": []any{"a"}, "grade": 10.0}, "grade must be a string, got the number 10"},
		{"quote", map[string]any{"ids": []any{"a"}, "colour": "red", "size": 1.0}, "unknown argument colour, size; quote takes: finish, game, grade, ids"},
		{"quote", map[string]any{"ids": []any{"a"}, "game": "magic"}, "game must be one of pokemon, onepiece"},
		{"get_prices", map[string]any{"ids": []any{"a"}, "limit": 0.0}, "limit must be from 1 to 2000, got 0"},
		{"get_prices", map[string]any{"ids": []any{"a"}, "limit": 2.5}, "limit must be a whole number"},
		{"get_prices", map[string]any{"ids": []any{"a"}, "pick": "mean"}, "pick must be one of fmv, tvwap, median, all"},
		{"batch_grade_ladder", map[string]any{"set_id": "en:base1", "dry_run": "yes"}, "dry_run must be true or false"},
		{"rank_set_sales", map[string]any{"set_id": "en:base1", "min_grade": 9.5}, ""},
		{"rank_set_sales", map[string]any{"set_id": "en:base1", "min_grade": 0.5}, "min_grade must be from 1 to 10"},
		{"search", map[string]any{"q": strings.Repeat("a", 257)}, "q is 257 characters long, at most 256"},
		{"compare_set_finish", map[string]any{"set_id": "en:base1"}, "finish is required"},
	}
	for _, tc := range cases {
		err := validateArgs(tools[tc.tool], tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.tool, tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || apperr.ErrorCode(err) != apperr.EINVALID):
			t.Errorf("%s %v: %v, want %q", tc.tool, tc.args, err, tc.want)
		}
	}
}
