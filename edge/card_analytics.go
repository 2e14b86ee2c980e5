package edge

import "github.com/cardedge/cardedge/pricing"

func handleCardAnalytics(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	finish, err := r.finishOf(c)
	if err != nil {
		return nil, err
	}
	return pricing.ReadCardAnalytics(r.snap.Reader, c, finish, r.p.str("window"), r.snap.AsOf)
}
