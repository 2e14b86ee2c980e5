package live

import (
	"fmt"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// Ready decides whether a replica serving snapshot serving is ready (its
// /ready), given the last snapshot it refused (rejected, "" when none) and
// the state of its snapshot source (src; nil when the snapshots come from a
// local build: ready). In fleet mode it is ready when it serves the
// published snapshot (the pinned one when the source pins one) or is within
// one poll of it: it noticed the publication less than a poll ago, or it is
// fetching it now, or it refused it (the bucket's fault: every replica
// refuses it and keeps serving the last good one), or the store cannot be
// reached (every replica is in the same state). It is not ready when it
// falls behind for a reason of its own (a cache directory it cannot write, a
// snapshot that will not open here) for longer than a poll, so that the load
// balancer prefers the replicas that caught up. The reason says why, for
// the ready ones too when they are not serving the published snapshot.
func Ready(serving, rejected string, src *snapshots.SourceStatus, now time.Time) (bool, string) {
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
