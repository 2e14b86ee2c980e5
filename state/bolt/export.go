package bolt

import (
	"context"
	"time"

	"github.com/cardedge/cardedge/state"
)

var _ state.Exporter = (*Store)(nil)

// Export implements state.Exporter: every live record and counter of the
// file, in one read transaction.
func (s *Store) Export(ctx context.Context, fn func(state.Entry) error) error {
	return s.view(ctx, func(t *tx) error {
		for _, b := range state.Buckets {
			bk := t.btx.Bucket([]byte(b))
			if bk == nil {
				continue
			}
			err := t.scan(b, state.ScanOptions{}, func(k, v []byte) error {
				kind, exp, p, ok := decode(v)
				if !ok {
					return corrupt(b, k, "no record header")
				}
				if !t.live(exp) {
					return errSkip
				}
				e := state.Entry{Bucket: b, Key: string(k)}
				if exp != 0 {
					e.Expires = time.Unix(0, exp)
				}
				switch kind {
				case kindRecord:
					e.Value = p
				default:
					n, ok := counterValue(p)
					if !ok {
						return corrupt(b, k, "not a counter")
					}
					e.N = n
				}
				t.leave()
				err := fn(e)
				t.enter()
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
