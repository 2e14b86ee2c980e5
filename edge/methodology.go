package edge

import "github.com/cardedge/cardedge/estimate"

// GET /api/v3/methodology (methodology.v1, keyless): every estimator,
// threshold and flag of the prices, estimate.Default as the code computes
// with it. A threshold changes here and in the code at once (there is one
// value), and Version says so.

func (s *Server) registerMethodologyRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/methodology", name: "methodology", contract: "methodology.v1", keyless: true, cacheable: true,
		summary: "Extension: the estimator's rules and thresholds (fmv, outliers, sample size, confidence, flags, the liquidity rule of movers, the base printing), as the code uses them",
		schema:  "Methodology", handle: handleMethodology})
}

func handleMethodology(r *request) (any, error) { return &estimate.Default, nil }
