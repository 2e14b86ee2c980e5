package webhook

import (
	"context"

	"github.com/cardedge/cardedge/state"
)

// Export is everything an account owns here, for its data export. Signing
// secrets are not exported (roll one to get a new secret).
type Export struct {
	Endpoints []ExportEndpoint `json:"endpoints"`
	Notices   []Notice         `json:"notices"`
}

// ExportEndpoint is an endpoint with its queued messages and its log.
type ExportEndpoint struct {
	Endpoint
	Queued []Message `json:"queued"`
	Log    []Attempt `json:"log"` // newest first
}

// ExportAccount returns what account owns here (its data export), read in
// tx.
func (s *Service) ExportAccount(tx state.Tx, account string) (Export, error) {
	x := Export{Endpoints: []ExportEndpoint{}, Notices: []Notice{}}
	if err := checkAccount(account); err != nil {
		return x, err
	}
	var es []endpoint
	if err := endpoints.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, e endpoint) error {
		es = append(es, e)
		return nil
	}); err != nil {
		return x, err
	}
	for _, e := range es {
		c, err := getCursor(tx, e.ID)
		if err != nil {
			return x, err
		}
		xe := ExportEndpoint{Endpoint: s.view(e, c), Queued: []Message{}, Log: []Attempt{}}
		if err := queue.Scan(tx, state.ScanOptions{Prefix: e.ID + "/"}, func(_ string, m message) error {
			xe.Queued = append(xe.Queued, m.Message)
			return nil
		}); err != nil {
			return x, err
		}
		if err := logs.Scan(tx, state.ScanOptions{Prefix: e.ID + "/", Reverse: true}, func(_ string, a Attempt) error {
			xe.Log = append(xe.Log, a)
			return nil
		}); err != nil {
			return x, err
		}
		x.Endpoints = append(x.Endpoints, xe)
	}
	err := notices.Scan(tx, state.ScanOptions{Prefix: account + "/", Reverse: true}, func(_ string, n Notice) error {
		x.Notices = append(x.Notices, n)
		return nil
	})
	return x, err
}

// DeleteAccount deletes everything account owns here (endpoints with their
// queues, cursors, logs and leases; notices), in tx: the account's deletion
// calls it in its own transaction.
func DeleteAccount(tx state.Tx, account string) error {
	if err := checkAccount(account); err != nil {
		return err
	}
	var ids []string
	if err := endpoints.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, e endpoint) error {
		ids = append(ids, e.ID)
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := deleteEndpoint(tx, account, id); err != nil {
			return err
		}
	}
	return deletePrefix(tx, state.WebhookNotices, account+"/")
}

// Export returns ExportAccount of account in one read.
func (s *Service) Export(ctx context.Context, account string) (Export, error) {
	var x Export
	err := s.o.State.View(ctx, func(tx state.Tx) error {
		var err error
		x, err = s.ExportAccount(tx, account)
		return err
	})
	return x, wrap("export", err)
}

// DeleteAll deletes everything account owns here in one transaction.
func (s *Service) DeleteAll(ctx context.Context, account string) error {
	return wrap("delete account data", s.o.State.Update(ctx, func(tx state.Tx) error { return DeleteAccount(tx, account) }))
}
