package alert

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// FeedEntries is how many events a feed shows, newest first.
const FeedEntries = 50

// feedRecord is a record of state.AlertFeeds: under "a/<account>" the
// account's token, under "t/<token hash>" the account.
type feedRecord struct {
	Token   string `json:"token,omitempty"`
	Account string `json:"account,omitempty"`
}

func feedHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// FeedToken returns the secret token of account's Atom feed (its URL is
// the wiring's, say /feeds/alerts/<token>.atom), making one the first time.
func (s *Service) FeedToken(ctx context.Context, account string) (string, error) {
	return s.feedToken(ctx, account, false)
}

// RollFeed replaces account's feed token: the old URL stops working at
// once.
func (s *Service) RollFeed(ctx context.Context, account string) (string, error) {
	return s.feedToken(ctx, account, true)
}

func (s *Service) feedToken(ctx context.Context, account string, roll bool) (string, error) {
	if err := checkAccount(account); err != nil {
		return "", err
	}
	fresh := "fd_" + newID("") + newID("") // 32 random base32 characters: 160 bits
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	var token string
	err := s.state.Update(ctx, func(tx state.Tx) error {
		old, err := feeds.Get(tx, "a/"+account)
		switch {
		case err == nil && !roll:
			token = old.Token
			return nil
		case err == nil:
			if err := feeds.Delete(tx, "t/"+feedHash(old.Token)); err != nil {
				return err
			}
		case !errors.Is(err, state.ErrNotFound):
			return err
		}
		token = fresh
		if err := feeds.Put(tx, "a/"+account, feedRecord{Token: token}, 0); err != nil {
			return err
		}
		return feeds.Put(tx, "t/"+feedHash(token), feedRecord{Account: account}, 0)
	})
	return token, wrap("feed token", err)
}

// FeedAccount returns the account whose feed token is token. ENOTFOUND for
// an unknown or rolled token.
func (s *Service) FeedAccount(ctx context.Context, token string) (string, error) {
	notFound := apperr.Errorf(apperr.ENOTFOUND, "no such feed")
	if len(token) < 10 || len(token) > 100 {
		return "", notFound
	}
	var account string
	err := s.state.View(ctx, func(tx state.Tx) error {
		rec, err := feeds.Get(tx, "t/"+feedHash(token))
		if errors.Is(err, state.ErrNotFound) {
			return notFound
		}
		if err != nil {
			return err
		}
		own, err := feeds.Get(tx, "a/"+rec.Account)
		if err != nil || subtle.ConstantTimeCompare([]byte(own.Token), []byte(token)) != 1 {
			return notFound
		}
		account = rec.Account
		return nil
	})
	return account, wrap("read feed", err)
}

// FeedInfo is what a feed says about itself.
type FeedInfo struct {
	// SelfURL is the feed's own URL (with its token); AlternateURL the
	// page that shows the same alerts (the dashboard's).
	SelfURL, AlternateURL string
	// Title is the feed's title; "" means "cardedge alerts".
	Title string
	// Now is the feed's updated time when it has no entries.
	Now time.Time
}

// Feed renders the Atom feed of the account whose token is token: its last
// FeedEntries events. ENOTFOUND for an unknown token.
func (s *Service) Feed(ctx context.Context, token string, info FeedInfo) ([]byte, error) {
	account, err := s.FeedAccount(ctx, token)
	if err != nil {
		return nil, err
	}
	evs, _, err := s.Events(ctx, account, FeedEntries, "")
	if err != nil {
		return nil, err
	}
	if info.Now.IsZero() {
		info.Now = s.now()
	}
	var b bytes.Buffer
	if err := RenderFeed(&b, account, info, evs); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type atomFeed struct {
	XMLName   xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID        string      `xml:"id"`
	Title     atomText    `xml:"title"`
	Updated   string      `xml:"updated"`
	Author    atomPerson  `xml:"author"`
	Generator string      `xml:"generator"`
	Links     []atomLink  `xml:"link"`
	Entries   []atomEntry `xml:"entry"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

type atomEntry struct {
	ID         string         `xml:"id"`
	Title      atomText       `xml:"title"`
	Updated    string         `xml:"updated"`
	Published  string         `xml:"published"`
	Links      []atomLink     `xml:"link,omitempty"`
	Categories []atomCategory `xml:"category"`
	Summary    atomText       `xml:"summary"`
	Content    atomText       `xml:"content"`
}

// urnUUID makes a stable urn:uuid (version 8, name-based) of name.
func urnUUID(name string) string {
	h := sha256.Sum256([]byte("cardedge/" + name))
	h[6] = h[6]&0x0f | 0x80
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// RenderFeed writes account's events (newest first) as an Atom 1.0 feed
// (RFC 4287): the feed's id is stable for the account (not its token),
// each entry's id for the event.
func RenderFeed(w io.Writer, account string, info FeedInfo, evs []Event) error {
	title := info.Title
	if title == "" {
		title = "cardedge alerts"
	}
	updated := info.Now.UTC()
	if len(evs) > 0 {
		updated = evs[0].Time.UTC()
		for _, e := range evs {
			if e.Time.After(updated) {
				updated = e.Time.UTC()
			}
		}
	}
	f := atomFeed{ID: urnUUID("feed/" + account), Title: atomText{Type: "text", Body: title}, Updated: updated.Format(time.RFC3339),
		Author: atomPerson{Name: "cardedge"}, Generator: "cardedge", Entries: []atomEntry{}}
	if info.SelfURL != "" {
		f.Links = append(f.Links, atomLink{Rel: "self", Type: "application/atom+xml", Href: info.SelfURL})
	}
	if info.AlternateURL != "" {
		f.Links = append(f.Links, atomLink{Rel: "alternate", Type: "text/html", Href: info.AlternateURL})
	}
	for _, e := range evs {
		t := e.Time.UTC().Format(time.RFC3339)
		en := atomEntry{ID: urnUUID("event/" + e.ID), Title: atomText{Type: "text", Body: e.Summary}, Updated: t, Published: t,
			Categories: []atomCategory{{Term: e.Condition.Kind}},
			Summary:    atomText{Type: "text", Body: e.Summary},
			Content:    atomText{Type: "text", Body: entryText(e)}}
		if e.Want {
			en.Categories = append(en.Categories, atomCategory{Term: "want"})
		}
		if info.AlternateURL != "" {
			en.Links = []atomLink{{Rel: "alternate", Type: "text/html", Href: info.AlternateURL}}
		}
		f.Entries = append(f.Entries, en)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("alert: render feed: %w", err)
	}
	return enc.Close()
}

// entryText is an entry's content: the summary and what stands behind it.
func entryText(e Event) string {
	s := e.Summary + "\n\nRule " + e.RuleID + ": " + e.Condition.Describe() + " (" + e.Source + ").\nSnapshot " + e.SnapshotID + " as of " + e.AsOf + "."
	if e.Seen.PriceCents != 0 && e.Seen.PriceDay != "" {
		s += fmt.Sprintf("\nPrice $%.2f on %s", snapshots.USD(e.Seen.PriceCents), e.Seen.PriceDay)
		if e.Seen.Confidence != "" {
			s += ", confidence " + e.Seen.Confidence
		}
		s += "."
	}
	return s
}
