package live_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

func TestReady(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	src := func(f func(*snapshots.SourceStatus)) *snapshots.SourceStatus {
		s := &snapshots.SourceStatus{Poll: 10 * time.Second, Published: "b", PublishedSeen: now.Add(-time.Minute)}
		f(s)
		return s
	}
	tests := []struct {
		name     string
		serving  string
		rejected string
		src      *snapshots.SourceStatus
		ready    bool
		reason   string
	}{
		{"local", "a", "", nil, true, ""},
		{"serving the published", "b", "", src(func(*snapshots.SourceStatus) {}), true, ""},
		{"not reached the store yet", "a", "", src(func(s *snapshots.SourceStatus) { s.Published = "" }), true, ""},
		{"published within a poll", "a", "", src(func(s *snapshots.SourceStatus) { s.PublishedSeen = now.Add(-5 * time.Second) }), true, "swapping"},
		{"fetching it", "a", "", src(func(s *snapshots.SourceStatus) { s.Pulling = "b" }), true, "fetching"},
		{"refused by the source", "a", "", src(func(s *snapshots.SourceStatus) { s.Refused = "b" }), true, "refused"},
		{"refused by the edge", "a", "b", src(func(*snapshots.SourceStatus) {}), true, "refused"},
		{"store unreachable", "a", "", src(func(s *snapshots.SourceStatus) { s.LastErrorKind, s.Failures = "unreachable", 3 }), true, "unreachable"},
		{"behind for its own reason", "a", "", src(func(s *snapshots.SourceStatus) {
			s.LastErrorKind, s.LastError, s.Failures = "local", "no space left on device", 2
		}), false, "behind: published b (seen 60s ago), serving a: no space left on device"},
		{"pinned and serving it", "a", "", src(func(s *snapshots.SourceStatus) { s.Pinned = "a" }), true, ""},
		{"pinned, not serving it", "b", "", src(func(s *snapshots.SourceStatus) { s.Pinned = "a" }), false, "pinned to a"},
	}
	for _, tt := range tests {
		ready, reason := live.Ready(tt.serving, tt.rejected, tt.src, now)
		if ready != tt.ready || !strings.Contains(reason, tt.reason) || (tt.reason == "" && reason != "") {
			t.Errorf("%s: ready %v (%q), want %v (%q)", tt.name, ready, reason, tt.ready, tt.reason)
		}
	}
}
