package load

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Zipf draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s.
// Unlike math/rand's Zipf it accepts any s > 0 (popularity of catalog items
// is close to s = 1).
type Zipf struct {
	cdf []float64
}

// NewZipf prepares a sampler over n ranks (n >= 1, s > 0).
func NewZipf(n int, s float64) *Zipf {
	n = max(n, 1)
	cdf := make([]float64, n)
	sum := 0.0
	for i := range cdf {
		sum += 1 / math.Pow(float64(i+1), s)
		cdf[i] = sum
	}
	for i := range cdf {
		cdf[i] /= sum
	}
	return &Zipf{cdf: cdf}
}

// Rank draws one rank.
func (z *Zipf) Rank(r *rand.Rand) int {
	u := r.Float64()
	i := sort.SearchFloat64s(z.cdf, u)
	return min(i, len(z.cdf)-1)
}
