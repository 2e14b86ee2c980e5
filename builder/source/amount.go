package source

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// MaxAmount bounds an amount, in minor units (ten million in major units).
const MaxAmount = 1_000_000_000

// ParseAmount reads a decimal amount in major units ("12.5", "0.99",
// "1e2") into minor units (cents), rounding half away from zero at the
// third decimal. Negative, non-numeric or larger than MaxAmount is an error.
func ParseAmount(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty amount")
	}
	if v, ok := fastAmount(s); ok {
		return v, nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/") {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if r.Sign() < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	r.Mul(r, big.NewRat(100, 1))
	// Round half away from zero: floor(x + 1/2).
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() || q.Int64() > MaxAmount {
		return 0, fmt.Errorf("%s is more than %d", s, MaxAmount/100)
	}
	return q.Int64(), nil
}

// fastAmount reads a plain decimal ("123", "12.5", "0.015") without
// allocating; ok false sends the caller to the general reader.
func fastAmount(s string) (int64, bool) {
	var whole, frac int64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		whole = whole*10 + int64(s[i]-'0')
		if whole > MaxAmount {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	digits := 0
	round := false
	if i < len(s) {
		if s[i] != '.' || i+1 == len(s) {
			return 0, false
		}
		i++
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			switch {
			case digits < 2:
				frac = frac*10 + int64(c-'0')
			case digits == 2:
				round = c >= '5'
			}
			digits++
		}
	}
	for ; digits < 2; digits++ {
		frac *= 10
	}
	v := whole*100 + frac
	if round {
		v++
	}
	if v > MaxAmount {
		return 0, false
	}
	return v, true
}

// FormatAmount writes minor units as a decimal with two places ("12.50").
func FormatAmount(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}
