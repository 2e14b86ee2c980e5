package account

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/cardedge/cardedge/state"
)

// Event is one entry of an account's audit log.
type Event struct {
	Time   time.Time `json:"time"`
	What   string    `json:"what"`             // one of the Event* constants
	Addr   string    `json:"addr,omitempty"`   // client address; "" for the operator's CLI
	Detail string    `json:"detail,omitempty"` // key id and name, tiers
}

// What an audit event records.
const (
	EventCreated             = "account_created"
	EventSignedIn            = "signed_in"
	EventSignInFailed        = "sign_in_failed"
	EventSignedOut           = "signed_out"
	EventSignedOutEverywhere = "signed_out_everywhere"
	EventPasswordChanged     = "password_changed"
	EventPasswordReset       = "password_reset" // by the operator
	EventTierChanged         = "tier_changed"   // by the operator
	EventDisabled            = "account_disabled"
	EventEnabled             = "account_enabled"
	EventKeyCreated          = "key_created"
	EventKeyRolled           = "key_rolled"
	EventKeyRevoked          = "key_revoked"
	// Apps connected through OAuth (package oauth): Detail names the app
	// (client name and redirect host) and the grant.
	EventAppConnected = "app_connected"   // a grant made (a code exchanged)
	EventAppRefreshed = "app_refreshed"   // its tokens refreshed
	EventAppRevoked   = "app_revoked"     // ended: by the account, or by the app (RFC 7009)
	EventAppReuse     = "app_token_reuse" // ended: a refresh token or code used twice
)

// AuditRetention is how long audit events are kept.
const AuditRetention = 365 * 24 * time.Hour

var auditLog = state.NewTable[Event](state.Audit)

// audit appends e to account id's log in tx, stamped now. The key ends with
// the time as 16 hex digits, so a reverse scan reads the newest first.
func (s *Service) audit(tx state.Tx, id string, e Event) error {
	e.Time = s.now().UTC()
	var r [3]byte
	if _, err := rand.Read(r[:]); err != nil {
		return err
	}
	// Events of one instant keep their order (a sequence number), and two
	// processes never write the same key (random bytes).
	key := fmt.Sprintf("%s/%016x/%08x%s", id, uint64(e.Time.UnixNano()), uint32(s.auditSeq.Add(1)), hex.EncodeToString(r[:]))
	return auditLog.Put(tx, key, e, AuditRetention)
}

// AuditIn appends e to account id's log inside tx (an Update of the
// caller's): package oauth records its grants, refreshes and revocations in
// the transaction that makes them. e.Time is set to now.
func (s *Service) AuditIn(tx state.Tx, id string, e Event) error { return s.audit(tx, id, e) }

// auditLater appends e in the background: a failed sign-in must answer in
// the time an unknown email does, without this write. At most a few such
// writes run at once; more are dropped (a flood of failures is throttled
// anyway).
func (s *Service) auditLater(id string, e Event) {
	select {
	case s.background <- struct{}{}:
	default:
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.background }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.st.Update(ctx, func(tx state.Tx) error { return s.audit(tx, id, e) }); err != nil {
			s.log.Warn("account: audit event not written", "account", id, "what", e.What, "err", err)
		}
	}()
}

// Close waits for the background writes (failed sign-ins' audit events). The
// Service may still be used after it.
func (s *Service) Close() error {
	s.wg.Wait()
	return nil
}

// Audit returns account id's newest events, at most limit (0: 50).
func (s *Service) Audit(ctx context.Context, id string, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = 50
	}
	var out []Event
	err := s.st.View(ctx, func(tx state.Tx) error {
		out = out[:0]
		return auditLog.Scan(tx, state.ScanOptions{Prefix: id + "/", Reverse: true, Limit: limit}, func(_ string, e Event) error {
			out = append(out, e)
			return nil
		})
	})
	return out, err
}
