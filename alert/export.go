package alert

import (
	"context"
	"errors"

	"github.com/cardedge/cardedge/state"
)

// Export is everything an account owns here, for its data export.
type Export struct {
	Rules  []Rule  `json:"rules"`  // want-list entries and alert rules
	Events []Event `json:"events"` // every event kept, newest first
	// FeedToken is the secret token of the account's feed ("" when none).
	FeedToken string `json:"feed_token"`
}

// ExportAccount returns what account owns here (its data export).
func ExportAccount(tx state.Tx, account string) (Export, error) {
	x := Export{Rules: []Rule{}, Events: []Event{}}
	if err := checkAccount(account); err != nil {
		return x, err
	}
	if err := rules.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, r Rule) error {
		x.Rules = append(x.Rules, r)
		return nil
	}); err != nil {
		return x, err
	}
	if err := events.Scan(tx, state.ScanOptions{Prefix: account + "/", Reverse: true}, func(_ string, e Event) error {
		x.Events = append(x.Events, e)
		return nil
	}); err != nil {
		return x, err
	}
	f, err := feeds.Get(tx, "a/"+account)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return x, err
	}
	x.FeedToken = f.Token
	return x, nil
}

// DeleteAccount deletes everything account owns here (rules, their states,
// events, the feed token), in tx: the account's deletion calls it in its
// own transaction.
func DeleteAccount(tx state.Tx, account string) error {
	if err := checkAccount(account); err != nil {
		return err
	}
	for _, b := range []state.Bucket{state.AlertRules, state.AlertStates, state.AlertEvents} {
		if err := deletePrefix(tx, b, account+"/"); err != nil {
			return err
		}
	}
	f, err := feeds.Get(tx, "a/"+account)
	switch {
	case errors.Is(err, state.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if err := feeds.Delete(tx, "t/"+feedHash(f.Token)); err != nil {
		return err
	}
	return feeds.Delete(tx, "a/"+account)
}

// deletePrefix deletes every record of b whose key starts with prefix.
func deletePrefix(tx state.Tx, b state.Bucket, prefix string) error {
	var keys []string
	if err := tx.Scan(b, state.ScanOptions{Prefix: prefix}, func(k string, _ []byte) error {
		keys = append(keys, k)
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(b, k); err != nil {
			return err
		}
	}
	return nil
}

// Export returns ExportAccount of account in one read.
func (s *Service) Export(ctx context.Context, account string) (Export, error) {
	var x Export
	err := s.state.View(ctx, func(tx state.Tx) error {
		var err error
		x, err = ExportAccount(tx, account)
		return err
	})
	return x, wrap("export", err)
}

// DeleteAll deletes everything account owns here in one transaction.
func (s *Service) DeleteAll(ctx context.Context, account string) error {
	return wrap("delete account data", s.state.Update(ctx, func(tx state.Tx) error { return DeleteAccount(tx, account) }))
}
