package ecb

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// MaxGapDays is how far back a day without a rate looks for one (Easter
// closes TARGET for four days).
const MaxGapDays = 7

// Rates are the reference rates by day: units of each currency per euro.
// They are read-only once parsed and safe for concurrent use.
type Rates struct {
	days        []snapshots.Day       // ascending
	rates       []map[string]*big.Rat // by days' index
	usd         []map[string]float64  // USD per unit of each currency, by days' index
	cols        map[string]bool       // currencies of the file
	first, last snapshots.Day
}

// Parse reads eurofxref-hist.csv (or a zip holding it). A bad file is an
// error naming the line.
func Parse(body []byte) (*Rates, error) {
	if bytes.HasPrefix(body, []byte("PK\x03\x04")) {
		b, err := unzip(body)
		if err != nil {
			return nil, fmt.Errorf("ecb: %w", err)
		}
		body = b
	}
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("ecb: header: %w", err)
	}
	head = trimEmpty(head)
	if len(head) < 2 || !strings.EqualFold(strings.TrimSpace(head[0]), "Date") {
		return nil, errors.New("ecb: the first line must be Date,<currency>,...: not eurofxref-hist.csv")
	}
	rt := &Rates{cols: map[string]bool{}}
	cur := make([]string, len(head))
	for i, h := range head[1:] {
		h = strings.ToUpper(strings.TrimSpace(h))
		if len(h) != 3 {
			return nil, fmt.Errorf("ecb: header column %d %q is not a currency code", i+2, h)
		}
		cur[i+1] = h
		rt.cols[h] = true
	}
	seen := map[snapshots.Day]bool{}
	line := 1
	for {
		rec, err := r.Read()
		line++
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("ecb: line %d: %w", line, err)
		}
		rec = trimEmpty(rec)
		if len(rec) == 0 {
			continue
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("ecb: line %d: %d columns, the header has %d", line, len(rec), len(head))
		}
		d, err := snapshots.ParseDay(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("ecb: line %d: %w", line, err)
		}
		if seen[d] {
			return nil, fmt.Errorf("ecb: line %d: day %s twice", line, d)
		}
		seen[d] = true
		m := map[string]*big.Rat{}
		for i := 1; i < len(rec); i++ {
			v := strings.TrimSpace(rec[i])
			if v == "" || v == "N/A" {
				continue
			}
			x, ok := new(big.Rat).SetString(v)
			if !ok || x.Sign() <= 0 || strings.Contains(v, "/") {
				return nil, fmt.Errorf("ecb: line %d: %s rate %q is not a positive number", line, cur[i], v)
			}
			m[cur[i]] = x
		}
		rt.days = append(rt.days, d)
		rt.rates = append(rt.rates, m)
	}
	if len(rt.days) == 0 {
		return nil, errors.New("ecb: no rates")
	}
	idx := make([]int, len(rt.days))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return rt.days[idx[a]] < rt.days[idx[b]] })
	days := make([]snapshots.Day, len(idx))
	rates := make([]map[string]*big.Rat, len(idx))
	for i, j := range idx {
		days[i], rates[i] = rt.days[j], rt.rates[j]
	}
	rt.days, rt.rates = days, rates
	rt.usd = make([]map[string]float64, len(days))
	for i, m := range rates {
		rt.usd[i] = map[string]float64{}
		usd, ok := m["USD"]
		if !ok {
			continue
		}
		rt.usd[i]["EUR"] = roundSignificant(ratFloat(usd), 6)
		for cur, per := range m {
			rt.usd[i][cur] = roundSignificant(ratFloat(new(big.Rat).Quo(usd, per)), 6)
		}
	}
	rt.first, rt.last = days[0], days[len(days)-1]
	return rt, nil
}

// trimEmpty drops the empty last column the trailing comma makes.
func trimEmpty(rec []string) []string {
	for len(rec) > 0 && strings.TrimSpace(rec[len(rec)-1]) == "" {
		rec = rec[:len(rec)-1]
	}
	return rec
}

func unzip(body []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, err
	}
	for _, f := range zr.File {
		if strings.HasSuffix(strings.ToLower(f.Name), ".csv") {
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(io.LimitReader(rc, 64<<20))
		}
	}
	return nil, errors.New("no .csv in the zip")
}

// Span returns the first and last day with rates.
func (rt *Rates) Span() (first, last snapshots.Day) { return rt.first, rt.last }

// Conversion is an amount converted to US dollars, with what it came from.
type Conversion struct {
	USDCents int64
	// Amount and Currency are the original (hundredths of the currency).
	Amount   int64
	Currency string
	// Rate is the USD per unit of Currency applied, RateDay the ECB day
	// whose rates made it (zero for USD).
	Rate    float64
	RateDay snapshots.Day
}

// ToUSD converts amount (hundredths of currency) of day d into US cents,
// rounding half away from zero, with the rates of d or of the latest day
// before it (at most MaxGapDays). USD passes unchanged. The rate (USD per
// unit of currency, the ratio of two of the day's rates) is rounded to six
// significant decimals, as the ECB publishes rates, before it is applied:
// the converted number is Amount x Rate, which a reader can redo.
func (rt *Rates) ToUSD(amount int64, currency string, d snapshots.Day) (Conversion, error) {
	currency = strings.ToUpper(currency)
	c := Conversion{Amount: amount, Currency: currency}
	if currency == "USD" {
		c.USDCents, c.Rate = amount, 1
		return c, nil
	}
	if currency != "EUR" && !rt.cols[currency] {
		return c, fmt.Errorf("no ECB rate of %s", currency)
	}
	i := sort.Search(len(rt.days), func(i int) bool { return rt.days[i] > d }) - 1
	for ; i >= 0 && d-rt.days[i] <= MaxGapDays; i-- {
		rate, ok := rt.usdPer(i, currency)
		if !ok {
			continue
		}
		v := math.Round(float64(amount) * rate)
		if math.IsNaN(v) || math.IsInf(v, 0) || v > math.MaxInt64/2 {
			return c, fmt.Errorf("%d %s is too large", amount, currency)
		}
		c.USDCents, c.Rate, c.RateDay = int64(v), rate, rt.days[i]
		return c, nil
	}
	if d < rt.first {
		return c, fmt.Errorf("no ECB rate of %s on or before %s: the rates start %s", currency, d, rt.first)
	}
	return c, fmt.Errorf("no ECB rate of %s within %d days before %s (the rates end %s)", currency, MaxGapDays, d, rt.last)
}

// usdPer is the USD per unit of currency on the i-th day, rounded to six
// significant digits (ok false when the day lacks either rate).
func (rt *Rates) usdPer(i int, currency string) (float64, bool) {
	f, ok := rt.usd[i][currency]
	return f, ok
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

func roundSignificant(f float64, digits int) float64 {
	if f == 0 {
		return 0
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(f))))
	return math.Round(f*p) / p
}
