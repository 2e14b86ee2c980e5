package edge

import (
	"math"
	"strings"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

func handleVWAP(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	p := r.p
	var verrs validationErrors
	condition, grader := strings.ToLower(p.str("condition")), strings.ToLower(p.str("grader"))
	ci, gi := -1, -1
	if condition != "" {
		if ci = snapshots.ConditionIndex(condition); ci < 0 {
			verrs = append(verrs, queryError("condition", "condition must be one of "+strings.Join(snapshots.Conditions, ", "), "enum", p.str("condition"), nil))
		}
	}
	if grader != "" {
		if gi = snapshots.GraderIndex(grader); gi < 0 {
			verrs = append(verrs, queryError("grader", "grader must be one of "+strings.Join(snapshots.Graders, ", "), "enum", p.str("grader"), nil))
		}
	}
	if condition != "" && grader != "" {
		verrs = append(verrs, queryError("grader", "give condition (raw sales) or grader (graded sales), not both", "value_error", p.str("grader"), nil))
	}
	if p.has("grade_num") {
		n := p.num("grade_num")
		if grader == "" {
			verrs = append(verrs, queryError("grade_num", "grade_num needs grader", "value_error", n, nil))
		} else if n < 1 || n*2 != math.Trunc(n*2) {
			verrs = append(verrs, queryError("grade_num", "grade_num must be 1 to 10 in steps of 0.5", "value_error", n, nil))
		}
	}
	finish, ferr := r.finishOf(c)
	if ferr != nil {
		verrs = append(verrs, ferr.(validationErrors)...)
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	keep := func(g snapshots.Grade) bool {
		switch {
		case ci >= 0:
			return g == snapshots.RawGrade(ci)
		case gi >= 0 && p.has("grade_num"):
			return g == snapshots.GradedGrade(gi, p.num("grade_num"))
		case gi >= 0:
			return g.Grader() == gi
		}
		return true
	}
	days := p.int("window_days")
	from := r.snap.AsOf - snapshots.Day(days) + 1
	clamped := false
	if w, ok := r.windowStart(); ok && w > from {
		from, clamped = w, true
	}
	out := vwapPayload{
		CardID: c.ID, WindowDays: days, From: from.String(), To: r.snap.AsOf.String(), Clamped: clamped,
		Condition: jsontext.StrOrNil(condition), Grader: jsontext.StrOrNil(grader), Language: c.Language,
		Finish: jsontext.StrOrNil(pricing.PrintingName(c, printing(c, finish))), BaseFinish: printing(c, finish) == snapshots.BasePrinting(c),
		PriceBasis: "sum of verified sale prices / number of verified sales of the printing in the window (each sale is one unit; outliers count, as in volumes)",
	}
	if p.has("grade_num") {
		n := p.num("grade_num")
		out.GradeNum = &n
	}
	if lang := p.str("language"); lang != "" && !strings.EqualFold(lang, c.Language) {
		out.Note = jsontext.StrOrNil("card " + c.ID + " is a " + c.Language + " card; no sales match language " + lang)
		return out, nil
	}
	cum, err := r.cumSeries(c, finish)
	if err != nil {
		return nil, err
	}
	n, cents := snapshots.SumWindow(cum, keep, from, r.snap.AsOf)
	out.Sales, out.VolumeUSD = n, snapshots.USD(cents)
	if n > 0 {
		v := snapshots.USD(int64(math.Round(float64(cents) / float64(n))))
		out.VWAPUSD = &v
	}
	return out, nil
}

type vwapPayload struct {
	CardID     string   `json:"card_id"`
	WindowDays int      `json:"window_days"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Clamped    bool     `json:"clamped_to_history_window"`
	Condition  *string  `json:"condition"`
	Grader     *string  `json:"grader"`
	GradeNum   *float64 `json:"grade_num"`
	Language   string   `json:"language"`
	Finish     *string  `json:"finish"`
	BaseFinish bool     `json:"base_finish"`
	VWAPUSD    *float64 `json:"vwap_usd"`
	Sales      int      `json:"sales"`
	VolumeUSD  float64  `json:"volume_usd"`
	PriceBasis string   `json:"price_basis"`
	Note       *string  `json:"note,omitempty"`
}
