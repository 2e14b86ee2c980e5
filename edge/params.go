package edge

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// paramKind is the type of a query parameter.
type paramKind uint8

const (
	kString paramKind = iota
	kInt
	kFloat
	kBool
	kEnum
	kDate // YYYY-MM-DD
)

// paramSpec declares one query parameter of a route: its type, bounds and
// default. Every route declares all its parameters; unknown ones are ignored.
type paramSpec struct {
	name     string
	kind     paramKind
	maxLen   int      // strings: maximum length in characters (0 = 256)
	min, max float64  // numbers: inclusive bounds (both 0 = unbounded)
	hasMin   bool     // min applies even when min == 0
	hasMax   bool     // max applies
	enum     []string // kEnum: allowed values
	def      string   // default, as the client would send it ("" = none)
	doc      string   // OpenAPI description
	// extension marks a parameter the spec does not have (x-extension in
	// the OpenAPI document).
	extension bool
	defValue  value // def parsed once when the route is registered
}

// parseDefault parses the spec's default once (a bad default is a bug in the
// route table).
func (spec *paramSpec) parseDefault() {
	if spec.def == "" {
		return
	}
	v, err := parseValue(spec, spec.def)
	if err != nil {
		panic("edge: bad default of parameter " + spec.name + ": " + err.Msg)
	}
	spec.defValue = v
}

// gradeDoc says what a grade parameter reads (snapshots.ReadGrade).
const gradeDoc = "A grade as people write it: PSA 10, psa10, BGS 9.5, cgc 10, raw, NM, near mint, Raw, near mint " +
	"(or the code: raw:<condition>, <grader>:<number>; slab is PSA). The answer names it by its code (grade) and its name (grade_name)."

// Constructors keep route tables short.
func pStr(name string, maxLen int, doc string) paramSpec {
	return paramSpec{name: name, kind: kString, maxLen: maxLen, doc: doc}
}
func pEnum(name, def string, values []string, doc string) paramSpec {
	return paramSpec{name: name, kind: kEnum, enum: values, def: def, doc: doc}
}
func pInt(name string, lo, hi int, def string, doc string) paramSpec {
	return paramSpec{name: name, kind: kInt, min: float64(lo), max: float64(hi), hasMin: true, hasMax: hi != 0, def: def, doc: doc}
}
func pIntMin(name string, lo int, def string, doc string) paramSpec {
	return paramSpec{name: name, kind: kInt, min: float64(lo), hasMin: true, def: def, doc: doc}
}
func pFloat(name string, lo, hi float64, hasMax bool, doc string) paramSpec {
	return paramSpec{name: name, kind: kFloat, min: lo, max: hi, hasMin: true, hasMax: hasMax, doc: doc}
}
func pBool(name, def, doc string) paramSpec {
	return paramSpec{name: name, kind: kBool, def: def, doc: doc}
}
func pDate(name, doc string) paramSpec {
	return paramSpec{name: name, kind: kDate, maxLen: 10, doc: doc}
}

// value is one parsed parameter.
type value struct {
	set bool // given by the client (not the default)
	s   string
	i   int
	f   float64
	b   bool
	d   snapshots.Day
}

// params holds a request's parsed parameters in the order of the route's
// specs.
type params struct {
	specs  []paramSpec
	values []value
	buf    [4]value // values of routes with few parameters, without an allocation
}

func (p *params) get(name string) value {
	for i := range p.specs {
		if p.specs[i].name == name {
			return p.values[i]
		}
	}
	panic("edge: route reads undeclared parameter " + name)
}

func (p *params) str(name string) string  { return p.get(name).s }
func (p *params) int(name string) int     { return p.get(name).i }
func (p *params) num(name string) float64 { return p.get(name).f }
func (p *params) flag(name string) bool   { return p.get(name).b }
func (p *params) has(name string) bool    { return p.get(name).set }
func (p *params) day(name string) (snapshots.Day, bool) {
	v := p.get(name)
	return v.d, v.set
}

// setInt overrides a parsed integer (the access layer's row cap).
func (p *params) setInt(name string, n int) {
	for i := range p.specs {
		if p.specs[i].name == name {
			p.values[i].i, p.values[i].f = n, float64(n)
			p.values[i].s = strconv.Itoa(n)
			return
		}
	}
}

// canonical appends the normalized parameters (name=value after defaults,
// in declaration order) to dst: the cache key part that makes equal requests
// equal whatever their parameter order.
func (p *params) canonical(dst []byte) []byte {
	for i, v := range p.values {
		if !v.set && p.specs[i].def == "" {
			continue
		}
		dst = append(dst, p.specs[i].name...)
		dst = append(dst, '=')
		dst = append(dst, v.s...)
		dst = append(dst, '&')
	}
	return dst
}

// validationError is one entry of an HTTPValidationError body: the
// transport-neutral apperr.FieldError, which domain packages return too.
type validationError = apperr.FieldError

// validationErrors is a 422: every offending parameter, not only the first.
type validationErrors = apperr.FieldErrors

func queryError(name, msg, typ string, input any, ctx map[string]any) validationError {
	return validationError{Loc: []any{"query", name}, Msg: msg, Type: typ, Input: input, Ctx: ctx}
}

// parseParams parses and validates the query arguments against specs.
func parseParams(args *fasthttp.Args, specs []paramSpec) (*params, validationErrors) {
	p := &params{}
	errs := p.parse(args, specs)
	return p, errs
}

// parse fills p from the query arguments, validated against specs.
func (p *params) parse(args *fasthttp.Args, specs []paramSpec) validationErrors {
	p.specs = specs
	if len(specs) <= len(p.buf) {
		p.values = p.buf[:len(specs)]
	} else {
		p.values = make([]value, len(specs))
	}
	var errs validationErrors
	for i := range specs {
		spec := &specs[i]
		raw := args.Peek(spec.name)
		if raw == nil {
			p.values[i] = spec.defValue
			continue
		}
		v, err := parseValue(spec, string(raw))
		if err != nil {
			errs = append(errs, *err)
			continue
		}
		v.set = true
		p.values[i] = v
	}
	return errs
}

func parseValue(spec *paramSpec, raw string) (value, *validationError) {
	v := value{s: raw}
	if !utf8.ValidString(raw) {
		e := queryError(spec.name, "Input should be a valid UTF-8 string", "string_unicode", strconv.Quote(raw), nil)
		return v, &e
	}
	switch spec.kind {
	case kString:
		maxLen := spec.maxLen
		if maxLen == 0 {
			maxLen = 256
		}
		if n := utf8.RuneCountInString(raw); n > maxLen {
			e := queryError(spec.name, "String should have at most "+strconv.Itoa(maxLen)+" characters", "string_too_long", raw, map[string]any{"max_length": maxLen})
			return v, &e
		}
		if strings.IndexByte(raw, 0) >= 0 {
			e := queryError(spec.name, "String should not contain NUL bytes", "string_pattern_mismatch", strconv.Quote(raw), nil)
			return v, &e
		}
	case kEnum:
		for _, x := range spec.enum {
			if x == raw {
				return v, nil
			}
		}
		e := queryError(spec.name, "Input should be "+enumList(spec.enum), "enum", raw, map[string]any{"expected": enumList(spec.enum)})
		return v, &e
	case kInt:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || len(raw) > 18 {
			e := queryError(spec.name, "Input should be a valid integer, unable to parse string as an integer", "int_parsing", raw, nil)
			return v, &e
		}
		if e := checkBounds(spec, float64(n), raw); e != nil {
			return v, e
		}
		v.i, v.f, v.s = n, float64(n), strconv.Itoa(n)
	case kFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			e := queryError(spec.name, "Input should be a valid number, unable to parse string as a number", "float_parsing", raw, nil)
			return v, &e
		}
		if e := checkBounds(spec, f, raw); e != nil {
			return v, e
		}
		v.f, v.s = f, strconv.FormatFloat(f, 'f', -1, 64)
	case kBool:
		switch strings.ToLower(raw) {
		case "true", "1", "yes", "on", "t", "y":
			v.b, v.s = true, "true"
		case "false", "0", "no", "off", "f", "n":
			v.b, v.s = false, "false"
		default:
			e := queryError(spec.name, "Input should be a valid boolean, unable to interpret input", "bool_parsing", raw, nil)
			return v, &e
		}
	case kDate:
		if len(raw) > 10 {
			e := queryError(spec.name, "String should have at most 10 characters", "string_too_long", raw, map[string]any{"max_length": 10})
			return v, &e
		}
		d, err := snapshots.ParseDay(raw)
		if err != nil || len(raw) != 10 {
			e := queryError(spec.name, "Input should be a valid date in the format YYYY-MM-DD", "date_from_datetime_parsing", raw, nil)
			return v, &e
		}
		v.d = d
	}
	return v, nil
}

func checkBounds(spec *paramSpec, f float64, raw string) *validationError {
	if spec.hasMin && f < spec.min {
		e := queryError(spec.name, "Input should be greater than or equal to "+fmtNum(spec.min), "greater_than_equal", raw, map[string]any{"ge": spec.min})
		return &e
	}
	if spec.hasMax && f > spec.max {
		e := queryError(spec.name, "Input should be less than or equal to "+fmtNum(spec.max), "less_than_equal", raw, map[string]any{"le": spec.max})
		return &e
	}
	return nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func enumList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "'" + v + "'"
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}
