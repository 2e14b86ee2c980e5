// Package alerttest has a Market for tests and benchmarks: a catalog and
// prices set by hand, changed between snapshots.
//
// It imports the standard library, alert, apperr, pricing and snapshots.
package alerttest

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// Market is an alert.Market whose cards, prices and activity are set by
// hand. Prices are per source, card, printing and grade, each a series of
// (day, cents) in day order: the price in force on a day is the last one on
// or before it. It is safe for concurrent use.
type Market struct {
	mu     sync.Mutex
	id     string
	asOf   snapshots.Day
	cards  map[string]*snapshots.Card // game|lower id
	sets   map[string][]*snapshots.Card
	prices map[string][]point // source|game|lower id|finish|grade
	act    map[string]alert.Activity
	// Calls counts Price and Activity calls.
	Calls int
	// OnCall, when set, is called at each Price or Activity call (a test
	// cancels a context from it).
	OnCall func(n int)
}

type point struct {
	day   snapshots.Day
	cents int64
}

var _ alert.Market = (*Market)(nil)

// New returns an empty market of snapshot id whose today is asOf.
func New(id string, asOf snapshots.Day) *Market {
	return &Market{id: id, asOf: asOf, cards: map[string]*snapshots.Card{}, sets: map[string][]*snapshots.Card{},
		prices: map[string][]point{}, act: map[string]alert.Activity{}}
}

// Next moves the market to snapshot id, today asOf (prices set so far stay).
func (m *Market) Next(id string, asOf snapshots.Day) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.id, m.asOf = id, asOf
}

// AddCard adds a card of game in set with variants (none: one unnamed
// printing).
func (m *Market) AddCard(game, set, id, name string, variants ...string) *snapshots.Card {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &snapshots.Card{Game: game, ID: id, SetID: set, Name: name, Number: fmt.Sprint(len(m.sets[game+"|"+strings.ToLower(set)]) + 1), Variants: variants}
	m.cards[game+"|"+strings.ToLower(id)] = c
	m.sets[game+"|"+strings.ToLower(set)] = append(m.sets[game+"|"+strings.ToLower(set)], c)
	return c
}

func pkey(source, game, id string, finish int, g snapshots.Grade) string {
	return fmt.Sprintf("%s|%s|%s|%d|%d", source, game, strings.ToLower(id), finish, g)
}

// SetPrice sets source's price of card id's printing finish in grade g from
// day on (cents 0: none from then).
func (m *Market) SetPrice(source, game, id string, finish int, g snapshots.Grade, day snapshots.Day, cents int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := pkey(source, game, id, finish, g)
	ps := m.prices[k]
	for len(ps) > 0 && ps[len(ps)-1].day >= day {
		ps = ps[:len(ps)-1]
	}
	m.prices[k] = append(ps, point{day, cents})
}

// SetActivity sets the activity of card id's printing finish in grade g.
func (m *Market) SetActivity(game, id string, finish int, g snapshots.Grade, a alert.Activity) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.act[pkey("", game, id, finish, g)] = a
}

// SnapshotID implements alert.Market.
func (m *Market) SnapshotID() string { m.mu.Lock(); defer m.mu.Unlock(); return m.id }

// AsOf implements alert.Market.
func (m *Market) AsOf() snapshots.Day { m.mu.Lock(); defer m.mu.Unlock(); return m.asOf }

// Card implements alert.Market.
func (m *Market) Card(game, id string) (*snapshots.Card, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.cards[game+"|"+strings.ToLower(id)]; ok {
		return c, nil
	}
	return nil, apperr.Errorf(apperr.ENOTFOUND, "card %s not found", id)
}

// SetCards implements alert.Market.
func (m *Market) SetCards(game, set string) ([]*snapshots.Card, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cs, ok := m.sets[game+"|"+strings.ToLower(set)]; ok {
		return cs, nil
	}
	return nil, apperr.Errorf(apperr.ENOTFOUND, "set %s not found", set)
}

func (m *Market) call() {
	m.Calls++
	if m.OnCall != nil {
		m.OnCall(m.Calls)
	}
}

// Price implements alert.Market: sources are those prices were set for.
func (m *Market) Price(source string, c *snapshots.Card, finish int, g snapshots.Grade, day snapshots.Day) (pricing.SourcePrice, error) {
	m.mu.Lock()
	m.call()
	ps := m.prices[pkey(source, c.Game, c.ID, finish, g)]
	m.mu.Unlock()
	var p pricing.SourcePrice
	for _, pt := range ps {
		if pt.day <= day {
			p = pricing.SourcePrice{Cents: pt.cents, Day: pt.day}
		}
	}
	if p.Cents == 0 {
		p.Note = "no price"
	}
	return p, nil
}

// Activity implements alert.Market.
func (m *Market) Activity(c *snapshots.Card, finish int, g snapshots.Grade) (alert.Activity, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.call()
	return m.act[pkey("", c.Game, c.ID, finish, g)], nil
}
