package agent_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/agent"
)

func TestParseChat(t *testing.T) {
	if msgs, err := agent.ParseChat([]byte(`{"message": "hi"}`)); err != nil || len(msgs) != 1 || msgs[0].Role != "user" {
		t.Errorf("message: %v %v", msgs, err)
	}
	for _, bad := range []string{`{}`, `[]`, `{"messages": [{"role": "system", "content": "x"}]}`, `{"message": "` + strings.Repeat("x", 4001) + `"}`,
		`{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}`} {
		if _, err := agent.ParseChat([]byte(bad)); err == nil {
			t.Errorf("%.60s: accepted", bad)
		}
	}
}
