package edge

import (
	"fmt"
	"io"
	"time"

	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// readyBody is GET /ready's answer.
type readyBody struct {
	Ready      bool   `json:"ready"`
	Reason     string `json:"reason,omitempty"`
	SnapshotID string `json:"snapshot_id"`
	AsOf       string `json:"as_of"`
	// Source is the snapshot source's state in fleet mode (absent when the
	// snapshots come from a local build).
	Source *readySource `json:"source,omitempty"`
}

type readySource struct {
	Location      string  `json:"location"`
	Published     string  `json:"published"`
	Pinned        string  `json:"pinned,omitempty"`
	Pulling       string  `json:"pulling,omitempty"`
	Refused       string  `json:"refused,omitempty"`
	LastOKSeconds float64 `json:"last_ok_seconds_ago"`
	Failures      int     `json:"failures"`
	LastError     string  `json:"last_error,omitempty"`
}

// Drain makes /ready answer 503 (draining) while the server keeps serving,
// so that a load balancer's health checks take the replica out before
// Shutdown closes its listener. Otherwise /ready answers as live.Ready
// decides (200, or 503 with the reason).
func (s *Server) Drain() { s.draining.Store(true) }

func (s *Server) handleReady(ctx *fasthttp.RequestCtx) {
	snap := s.acquire()
	m := snap.Manifest()
	snap.release()
	body := readyBody{SnapshotID: m.SnapshotID, AsOf: m.AsOf}
	var src *snapshots.SourceStatus
	now := time.Now()
	if s.opts.Source != nil {
		st := s.opts.Source.Status()
		src = &st
		body.Source = &readySource{Location: st.Location, Published: st.Published, Pinned: st.Pinned, Pulling: st.Pulling,
			Refused: st.Refused, Failures: st.Failures, LastError: st.LastError}
		if !st.LastOK.IsZero() {
			body.Source.LastOKSeconds = snapshots.Round2(now.Sub(st.LastOK).Seconds())
		}
	}
	if s.draining.Load() {
		body.Ready, body.Reason = false, "draining: shutting down"
	} else {
		body.Ready, body.Reason = live.Ready(m.SnapshotID, s.live.RejectedID(), src, now)
	}
	status := fasthttp.StatusOK
	if !body.Ready {
		status = fasthttp.StatusServiceUnavailable
	}
	writeJSON(ctx, status, body)
	ctx.Response.Header.Set("Cache-Control", "no-store")
}

// writeSourceMetrics writes the snapshot source's metrics (fleet mode).
func writeSourceMetrics(w io.Writer, st snapshots.SourceStatus, now time.Time) {
	fmt.Fprintln(w, "# HELP cardedge_snapshot_source_polls_total Polls of the snapshot store, by result (changed, unchanged, unreachable, refused, local).\n# TYPE cardedge_snapshot_source_polls_total counter")
	for _, r := range []string{"changed", "unchanged", "unreachable", "refused", "local"} {
		fmt.Fprintf(w, "cardedge_snapshot_source_polls_total{result=%q} %d\n", r, st.Polls[r])
	}
	up := 0
	if st.Failures == 0 || st.LastErrorKind != "unreachable" {
		up = 1
	}
	fmt.Fprintln(w, "# HELP cardedge_snapshot_source_up Whether the last poll reached the snapshot store.\n# TYPE cardedge_snapshot_source_up gauge")
	fmt.Fprintf(w, "cardedge_snapshot_source_up %d\n", up)
	fmt.Fprintln(w, "# HELP cardedge_snapshot_source_failures Polls failed in a row.\n# TYPE cardedge_snapshot_source_failures gauge")
	fmt.Fprintf(w, "cardedge_snapshot_source_failures %d\n", st.Failures)
	if !st.LastOK.IsZero() {
		fmt.Fprintln(w, "# HELP cardedge_snapshot_source_last_ok_seconds Seconds since a poll last reached the snapshot store.\n# TYPE cardedge_snapshot_source_last_ok_seconds gauge")
		fmt.Fprintf(w, "cardedge_snapshot_source_last_ok_seconds %g\n", snapshots.Round2(now.Sub(st.LastOK).Seconds()))
	}
	if st.Published != "" {
		fmt.Fprintln(w, "# HELP cardedge_snapshot_source_published_info The snapshot the store publishes.\n# TYPE cardedge_snapshot_source_published_info gauge")
		fmt.Fprintf(w, "cardedge_snapshot_source_published_info{id=%q} 1\n", st.Published)
	}
	fmt.Fprintln(w, "# HELP cardedge_snapshot_source_fetched_total Snapshots fetched from the store.\n# TYPE cardedge_snapshot_source_fetched_total counter")
	fmt.Fprintf(w, "cardedge_snapshot_source_fetched_total %d\n", st.Fetched)
	fmt.Fprintln(w, "# HELP cardedge_snapshot_source_fetched_bytes_total Bytes downloaded from the store.\n# TYPE cardedge_snapshot_source_fetched_bytes_total counter")
	fmt.Fprintf(w, "cardedge_snapshot_source_fetched_bytes_total %d\n", st.FetchedBytes)
	fmt.Fprintln(w, "# HELP cardedge_snapshot_source_fetch_seconds_total Seconds spent fetching snapshots.\n# TYPE cardedge_snapshot_source_fetch_seconds_total counter")
	fmt.Fprintf(w, "cardedge_snapshot_source_fetch_seconds_total %g\n", snapshots.Round2(st.FetchSeconds))
}
