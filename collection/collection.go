package collection

import (
	"time"

	"github.com/cardedge/cardedge/state"
)

// Limits of an upload and of a preview.
const (
	MaxBytes    = 1 << 20 // an upload's body
	MaxRows     = 5000    // data rows, blank rows included
	PreviewTTL  = 24 * time.Hour
	MaxQuantity = 100000 // copies of one row
)

// The tables of collections in the state store (Options.State).
var (
	previews    = state.NewTable[storedPreview](state.ImportPreviews) // preview id -> preview, for PreviewTTL
	collections = state.NewTable[collection](state.Collections)       // key id -> collection
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

// Service previews and confirms uploads into the collections of keys. It is
// safe for concurrent use.
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
