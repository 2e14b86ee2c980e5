package edge

import (
	"math"
	"strings"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func handleVWAP(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	p := r.p
	var verrs validationErrors
	// The usual spellings: NM, near mint, near_mint; PSA, slab, BGS.
	condition, grader := strings.TrimSpace(p.str("condition")), strings.TrimSpace(p.str("grader"))
	if condition != "" {
		if ci := snapshots.ReadCondition(condition); ci < 0 {
			verrs = append(verrs, queryError("condition", "condition must be one of "+strings.Join(snapshots.Conditions, ", ")+" (or NM, LP, MP, HP, DMG, near mint ...)", "enum", p.str("condition"), nil))
		} else {
			condition = snapshots.Conditions[ci]
		}
	}
	if grader != "" {
		if gi := snapshots.ReadGrader(grader); gi < 0 {
			verrs = append(verrs, queryError("grader", "grader must be one of "+strings.Join(snapshots.Graders, ", ")+" (slab is PSA)", "enum", p.str("grader"), nil))
		} else {
			grader = snapshots.Graders[gi]
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
	days := p.int("window_days")
	q := pricing.VWAPRequest{Finish: finish, Condition: condition, Grader: grader, Days: days, From: r.snap.AsOf - snapshots.Day(days) + 1, To: r.snap.AsOf,
		Language: p.str("language")}
	if w, ok := r.windowStart(); ok && w > q.From {
		q.From, q.Clamped = w, true
	}
	if p.has("grade_num") {
		n := p.num("grade_num")
		q.GradeNum = &n
	}
	return pricing.NewVWAP(r.snap.Reader, c, q)
}
