package collection

import (
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Limits of an upload, of a preview and of a holding.
const (
	MaxBytes    = 1 << 20 // an upload's body
	MaxRows     = 5000    // data rows, blank rows included
	PreviewTTL  = 24 * time.Hour
	MaxQuantity = 100000 // copies of one row, and of one holding
	// MaxHoldings is the most holdings (card, printing and grade) one
	// collection keeps; an import or an add beyond it is EINVALID.
	MaxHoldings = 20000
)

// The tables of collections in the state store (Options.State).
var (
	previews    = state.NewTable[storedPreview](state.ImportPreviews) // preview id -> preview, for PreviewTTL
	collections = state.NewTable[collection](state.Collections)       // owner id (account or key id) -> collection
)

// stateTimeout bounds one transaction on the state store; rowTimeout one
// row's search of the index.
const (
	stateTimeout = 5 * time.Second
	rowTimeout   = 2 * time.Second
)

// Options configure a Service.
type Options struct {
	// State keeps previews (PreviewTTL) and collections (required).
	State state.Store
	// Now is the clock of preview expiry and of confirmation times; nil
	// means time.Now.
	Now func() time.Time
}

// Service previews and confirms uploads into collections, changes and
// values them. It is safe for concurrent use.
type Service struct {
	state state.Store
	now   func() time.Time
}

// New returns a Service over opts.State.
func New(opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{state: opts.State, now: opts.Now}
}

// clock is the service's time, to the second, in UTC: what previews and
// collections record.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Second) }

// Owner is whose collection an operation reads or changes. A collection
// belongs to the account: every key of an account, its dashboard pages and
// its chat see one collection. A key without an account (made with
// `cardedge keys create`) keeps its own.
type Owner struct {
	// Account is the account's id ("a_..."); "" for a key without one.
	Account string
	// Key is the calling key's id ("k_..."); "" for a page or a chat token
	// (Account set). With Account set too, it only says which key called:
	// the collection is the account's.
	Key string
}

// AccountOwner is the owner of an account's collection (pages, chat).
func AccountOwner(accountID string) Owner { return Owner{Account: accountID} }

// KeyOwner is the owner a key's calls act for: its account when it has
// one (accountID), else the key itself.
func KeyOwner(keyID, accountID string) Owner { return Owner{Account: accountID, Key: keyID} }

// id is the owner's record key in state.Collections: the account id, else
// the key id (their prefixes, a_ and k_, never collide).
func (o Owner) id() string {
	if o.Account != "" {
		return o.Account
	}
	return o.Key
}

// Kind is "account" or "key": who the collection belongs to.
func (o Owner) Kind() string {
	if o.Account != "" {
		return "account"
	}
	return "key"
}

// check refuses an owner with neither id (a programming error: callers
// build owners from an authenticated key or session).
func (o Owner) check() error {
	if o.id() == "" || len(o.id()) > 64 || strings.Contains(o.id(), "/") {
		return apperr.Errorf(apperr.EINTERNAL, "collection: no owner")
	}
	return nil
}

// legacy is the record an account's key kept before collections belonged to
// accounts: its own, under its key id, folded into the account's collection
// when met (Adopt, and every keyed write).
func (o Owner) legacy() string {
	if o.Account != "" && o.Key != "" {
		return o.Key
	}
	return ""
}
