package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// TypeTest is the type of the message "Send test event" queues.
const TypeTest = "webhook.test"

// Message is what an endpoint receives: its body is
// {"type": Type, "timestamp": Time (RFC 3339), "data": Data}, and its ID is
// the webhook-id header, the same at every attempt (receivers deduplicate
// by it).
type Message struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Time time.Time       `json:"time"`
	Data json.RawMessage `json:"data"`
}

// message is a queued message (state.WebhookQueue).
type message struct {
	Message
	Seq    uint64    `json:"seq"`
	Queued time.Time `json:"queued"`
}

func queueKey(endpointID string, seq uint64) string { return fmt.Sprintf("%s/%016x", endpointID, seq) }

// Body is the JSON body of m's deliveries.
func (m Message) Body() []byte {
	b, _ := json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{m.Type, m.Time.UTC().Format(time.RFC3339), m.Data})
	return b
}

// wants reports whether e takes messages of type t.
func (e endpoint) wants(t string) bool {
	return e.Disabled == nil && (len(e.Types) == 0 || slices.Contains(e.Types, t) || t == TypeTest)
}

// Enqueue queues m, in tx, for every enabled endpoint of account that takes
// its type: alert.Options.OnEvent calls it in the transaction that records
// an alert's event, so that an event is queued exactly when it is recorded.
// Each endpoint's messages are delivered in the order queued.
func (s *Service) Enqueue(tx state.Tx, account string, m Message) error {
	if err := checkAccount(account); err != nil {
		return err
	}
	var es []endpoint
	if err := endpoints.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, e endpoint) error {
		if e.wants(m.Type) {
			es = append(es, e)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, e := range es {
		if err := s.push(tx, e, m); err != nil {
			return err
		}
	}
	return nil
}

// push queues m for endpoint e in tx.
func (s *Service) push(tx state.Tx, e endpoint, m Message) error {
	e.Seq++
	if err := queue.Put(tx, queueKey(e.ID, e.Seq), message{Message: m, Seq: e.Seq, Queued: s.clock()}, QueueTTL); err != nil {
		return err
	}
	return endpoints.Put(tx, e.Account+"/"+e.ID, e, 0)
}

// SendTest queues a test message (TypeTest) for endpoint id of account and
// returns its id: it is delivered in order after what is already queued.
// EINVALID for a disabled endpoint, ENOTFOUND.
func (s *Service) SendTest(ctx context.Context, account, id string) (string, error) {
	if err := checkAccount(account); err != nil {
		return "", err
	}
	now := s.clock()
	m := Message{ID: newID("msg_"), Type: TypeTest, Time: now}
	m.Data, _ = json.Marshal(map[string]any{"endpoint_id": id, "message": "a test event from cardedge: your endpoint receives and verifies deliveries"})
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err := s.o.State.Update(ctx, func(tx state.Tx) error {
		e, err := get(tx, account, id)
		if err != nil {
			return err
		}
		if e.Disabled != nil {
			return apperr.Errorf(apperr.EINVALID, "the endpoint is disabled (%s): enable it first", e.Disabled.Reason)
		}
		return s.push(tx, e, m)
	})
	if err != nil {
		return "", wrap("send a test event to "+id, err)
	}
	return m.ID, nil
}
