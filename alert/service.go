package alert

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// The tables of alerts in the state store (see state/buckets.go).
var (
	rules      = state.NewTable[Rule](state.AlertRules)       // "<account>/<rule id>"
	ruleStates = state.NewTable[ruleState](state.AlertStates) // "<account>/<rule id>"
	events     = state.NewTable[Event](state.AlertEvents)     // "<account>/<as_of hex>/<event id>"
	feeds      = state.NewTable[feedRecord](state.AlertFeeds) // "a/<account>", "t/<token hash>"
)

// stateTimeout bounds one transaction of a caller's request.
const stateTimeout = 5 * time.Second

// Limits are an account's limits (its tier's: access.Limits' AlertRules and
// AlertSetRules).
type Limits struct {
	// Rules is the most rules and want-list entries the account may keep;
	// 0: none.
	Rules int
	// SetRules is how many of them may watch a whole set.
	SetRules int
}

// Options configure a Service.
type Options struct {
	// State keeps rules, states, events and feed tokens (required).
	State state.Store
	// Now is the clock of rules' and events' times; nil means time.Now.
	Now func() time.Time
	// Sources are the price sources a rule may name; nil means any
	// well-formed name (an unknown one never fires: its checks cannot
	// tell).
	Sources []string
	// OnEvent, when set, is called for every new event in the transaction
	// that records it (webhook.Service.Enqueue queues it for the account's
	// endpoints). It may run more than once (state.Store.Update) and must
	// only write through tx; an error aborts the chunk's commit.
	OnEvent func(tx state.Tx, e Event) error
}

// Service keeps want lists and alert rules, evaluates them and serves
// their events and feeds. It is safe for concurrent use.
type Service struct {
	state   state.Store
	now     func() time.Time
	sources []string
	onEvent func(state.Tx, Event) error
}

// New returns a Service.
func New(o Options) (*Service, error) {
	if o.State == nil {
		return nil, errors.New("alert: no state store")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{state: o.State, now: o.Now, sources: o.Sources, onEvent: o.OnEvent}, nil
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Second) }

// checkAccount refuses an empty or malformed account id (a programming
// error: callers pass an authenticated account).
func checkAccount(account string) error {
	if account == "" || len(account) > 64 || strings.ContainsAny(account, "/\x00") {
		return apperr.Errorf(apperr.EINTERNAL, "alert: no account")
	}
	return nil
}

func ruleKey(account, id string) string { return account + "/" + id }

// newID returns prefix and 16 random base32 characters.
func newID(prefix string) string {
	b := make([]byte, 10)
	rand.Read(b)
	return prefix + strings.ToLower(b32.EncodeToString(b))
}

// resolve checks r against the snapshot m: the card (its canonical id) or
// the set, and the printing. ENOTFOUND, EINVALID.
func resolve(m Market, r *Rule) error {
	if r.Set() {
		cards, err := m.SetCards(r.Game, r.SetID)
		if err != nil {
			return err
		}
		if len(cards) == 0 {
			return apperr.Errorf(apperr.ENOTFOUND, "set %s has no cards", r.SetID)
		}
		r.SetID = cards[0].SetID
		if r.Printing != "" && !slices.ContainsFunc(cards, func(c *snapshots.Card) bool { _, ok := finishOf(c, r.Printing); return ok }) {
			return apperr.Errorf(apperr.EINVALID, "no card of set %s has the printing %q", r.SetID, r.Printing)
		}
		return nil
	}
	c, err := m.Card(r.Game, r.CardID)
	if err != nil {
		return err
	}
	r.CardID = c.ID
	i, err := pricing.PrintingOf(c, r.Printing)
	if err != nil {
		return err
	}
	r.Printing = ""
	if i != snapshots.BasePrinting(c) && i < len(c.Variants) {
		r.Printing = c.Variants[i]
	}
	return nil
}

// baseline is a new rule's state: for first_sale and first_listing, the
// activity m shows now (nothing fires for it); else none, so that the first
// evaluation fires when the condition already holds.
func baseline(m Market, r Rule, now time.Time) ruleState {
	if m == nil || (r.Condition.Kind != FirstSale && r.Condition.Kind != FirstListing) {
		return ruleState{}
	}
	return evalRule(m, r, ruleState{}, now, false).state
}

// Create validates in (Check), resolves it against the live snapshot m
// (nil: not checked) and keeps it as a new rule of account, within lim. A
// first_sale or first_listing rule records what m shows now, so that only
// activity after its creation fires it. EINVALID (FieldErrors, a printing,
// a full list), ENOTFOUND (card or set), EFORBIDDEN (the tier allows no
// rules); storage errors wrapped.
func (s *Service) Create(ctx context.Context, m Market, account string, in Input, lim Limits) (Rule, error) {
	if err := checkAccount(account); err != nil {
		return Rule{}, err
	}
	r, err := Check(in, s.sources)
	if err != nil {
		return Rule{}, err
	}
	if lim.Rules <= 0 {
		return Rule{}, apperr.Errorf(apperr.EFORBIDDEN, "alerts and want lists are not available to this tier")
	}
	if r.Set() && lim.SetRules <= 0 {
		return Rule{}, apperr.Errorf(apperr.EFORBIDDEN, "rules on a whole set are not available to this tier")
	}
	if m != nil {
		if err := resolve(m, &r); err != nil {
			return Rule{}, err
		}
	}
	now := s.clock()
	r.ID, r.Account, r.Created, r.Updated = newID("r_"), account, now, now
	st := baseline(m, r, now)
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err = s.state.Update(ctx, func(tx state.Tx) error {
		n, sets := 0, 0
		err := rules.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, v Rule) error {
			n++
			if v.Set() {
				sets++
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n >= lim.Rules {
			return apperr.Errorf(apperr.EINVALID, "the account keeps %d rules and want-list entries, the most its tier allows: delete some first", n)
		}
		if r.Set() && sets >= lim.SetRules {
			return apperr.Errorf(apperr.EINVALID, "the account keeps %d rules on whole sets, the most its tier allows", sets)
		}
		if err := rules.Insert(tx, ruleKey(account, r.ID), r, 0); err != nil {
			return err
		}
		if st.empty() {
			return nil
		}
		return ruleStates.Put(tx, ruleKey(account, r.ID), st, 0)
	})
	if err != nil {
		return Rule{}, wrap("create a rule", err)
	}
	return r, nil
}

// Replace replaces rule id of account with in (validated and resolved as
// by Create) and resets its crossing state: the new rule fires at the next
// evaluation where its condition holds. ENOTFOUND, EINVALID, EFORBIDDEN.
func (s *Service) Replace(ctx context.Context, m Market, account, id string, in Input, lim Limits) (Rule, error) {
	if err := checkAccount(account); err != nil {
		return Rule{}, err
	}
	r, err := Check(in, s.sources)
	if err != nil {
		return Rule{}, err
	}
	if m != nil {
		if err := resolve(m, &r); err != nil {
			return Rule{}, err
		}
	}
	st := baseline(m, r, s.now())
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	var out Rule
	err = s.state.Update(ctx, func(tx state.Tx) error {
		old, err := rules.Get(tx, ruleKey(account, id))
		if errors.Is(err, state.ErrNotFound) {
			return apperr.Errorf(apperr.ENOTFOUND, "no rule %s", id)
		}
		if err != nil {
			return err
		}
		if r.Set() && !old.Set() {
			sets := 0
			if err := rules.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, v Rule) error {
				if v.Set() {
					sets++
				}
				return nil
			}); err != nil {
				return err
			}
			if sets >= lim.SetRules {
				return apperr.Errorf(apperr.EINVALID, "the account keeps %d rules on whole sets, the most its tier allows", sets)
			}
		}
		out = r
		out.ID, out.Account, out.Created = old.ID, account, old.Created
		out.Updated = s.clock()
		if !out.Updated.After(old.Updated) {
			out.Updated = old.Updated.Add(time.Second) // a change is always seen as one (Evaluate compares times)
		}
		if err := rules.Put(tx, ruleKey(account, id), out, 0); err != nil {
			return err
		}
		if st.empty() {
			return ruleStates.Delete(tx, ruleKey(account, id))
		}
		return ruleStates.Put(tx, ruleKey(account, id), st, 0)
	})
	if err != nil {
		return Rule{}, wrap("replace rule "+id, err)
	}
	return out, nil
}

// Delete deletes rule id of account (and its state; its events stay in
// the feed). ENOTFOUND.
func (s *Service) Delete(ctx context.Context, account, id string) error {
	if err := checkAccount(account); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err := s.state.Update(ctx, func(tx state.Tx) error {
		if _, err := rules.Get(tx, ruleKey(account, id)); errors.Is(err, state.ErrNotFound) {
			return apperr.Errorf(apperr.ENOTFOUND, "no rule %s", id)
		} else if err != nil {
			return err
		}
		if err := rules.Delete(tx, ruleKey(account, id)); err != nil {
			return err
		}
		return ruleStates.Delete(tx, ruleKey(account, id))
	})
	return wrap("delete rule "+id, err)
}

// Get returns rule id of account. ENOTFOUND.
func (s *Service) Get(ctx context.Context, account, id string) (Rule, error) {
	if err := checkAccount(account); err != nil {
		return Rule{}, err
	}
	var r Rule
	err := s.state.View(ctx, func(tx state.Tx) error {
		var err error
		r, err = rules.Get(tx, ruleKey(account, id))
		if errors.Is(err, state.ErrNotFound) {
			return apperr.Errorf(apperr.ENOTFOUND, "no rule %s", id)
		}
		return err
	})
	return r, wrap("read rule "+id, err)
}

// List returns account's rules, oldest first: want-list entries only with
// want, alert rules only without, every one for nil.
func (s *Service) List(ctx context.Context, account string, want *bool) ([]Rule, error) {
	if err := checkAccount(account); err != nil {
		return nil, err
	}
	out := []Rule{}
	err := s.state.View(ctx, func(tx state.Tx) error {
		out = out[:0]
		return rules.Scan(tx, state.ScanOptions{Prefix: account + "/"}, func(_ string, r Rule) error {
			if want == nil || *want == r.Want {
				out = append(out, r)
			}
			return nil
		})
	})
	slices.SortFunc(out, func(a, b Rule) int { return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID)) })
	return out, wrap("list rules", err)
}

// Events returns account's events newest first, at most limit (1 to 500)
// after the page cursor after ("" for the first page), and the cursor of the
// next page ("" at the end).
func (s *Service) Events(ctx context.Context, account string, limit int, after string) ([]Event, string, error) {
	if err := checkAccount(account); err != nil {
		return nil, "", err
	}
	if limit < 1 || limit > 500 {
		return nil, "", apperr.Errorf(apperr.EINVALID, "limit %d: want 1 to 500", limit)
	}
	if after != "" {
		after = account + "/" + after
	}
	var out []Event
	var keys []string
	err := s.state.View(ctx, func(tx state.Tx) error {
		out, keys = []Event{}, nil
		return events.Scan(tx, state.ScanOptions{Prefix: account + "/", After: after, Reverse: true, Limit: limit + 1}, func(k string, e Event) error {
			out, keys = append(out, e), append(keys, k)
			return nil
		})
	})
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = strings.TrimPrefix(keys[limit-1], account+"/")
	}
	return out, next, wrap("list events", err)
}

// wrap wraps a store error with what was done; errors with a code pass as
// they are.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var se *apperr.Error
	var fe apperr.FieldErrors
	if errors.As(err, &se) || errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("alert: %s: %w", what, err)
}
