package edge

import (
	"fmt"
	"io"
	"time"

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
// Shutdown closes its listener.
func (s *Server) Drain() { s.draining.Store(true) }

// readiness decides /ready. A replica is ready when it serves a snapshot and
// is not draining; in fleet mode also when it serves the published snapshot
// or is within one poll of it: it noticed the publication less than a poll
// ago, or it is fetching it now, or it refused it (the bucket's fault: every
// replica refuses it and keeps serving the last good one), or the store
// cannot be reached (every replica is in the same state). It is not ready
// when it falls behind for a reason of its own (a cache directory it cannot
// write, a snapshot that will not open here) for longer than a poll, so
// that the load balancer prefers the replicas that caught up.
func readiness(serving string, rejected string, draining bool, src *snapshots.SourceStatus, now time.Time) (bool, string) {
	if draining {
		return false, "draining: shutting down"
	}
	if src == nil {
		return true, ""
	}
	switch {
	case src.Pinned != "":
		if serving == src.Pinned {
			return true, ""
		}
		return false, fmt.Sprintf("pinned to %s, serving %s", src.Pinned, serving)
	case src.Published == "" || serving == src.Published:
		return true, ""
	case src.Pulling == src.Published:
		return true, "fetching the published snapshot " + src.Published
	case src.Refused == src.Published || rejected == src.Published:
		return true, "the published snapshot " + src.Published + " was refused; serving the last good one"
	case src.LastErrorKind == "unreachable":
		return true, "the snapshot store is unreachable; serving the last snapshot fetched"
	case now.Sub(src.PublishedSeen) <= src.Poll:
		return true, "swapping to the published snapshot " + src.Published
	}
	reason := fmt.Sprintf("behind: published %s (seen %.0fs ago), serving %s", src.Published, now.Sub(src.PublishedSeen).Seconds(), serving)
	if src.LastError != "" {
		reason += ": " + src.LastError
	}
	return false, reason
}

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
	body.Ready, body.Reason = readiness(m.SnapshotID, s.live.RejectedID(), s.draining.Load(), src, now)
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
