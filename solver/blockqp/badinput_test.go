package blockqp

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/qp"
)

// small returns a valid problem: two 3-groups, H = tridiagonal SPD, one
// contact row and one equality.
func small(t *testing.T) *Problem {
	hm := &sym{n: 6}
	for i := 0; i < 6; i++ {
		hm.add(i, i, 4)
		if i > 0 {
			hm.add(i, i-1, -1)
			hm.add(i-1, i, -1)
		}
	}
	return &Problem{
		H:      hm.csr(t),
		F:      []float64{1, -2, 3, 0, 1, -1},
		Groups: []Group{{Vars: []int32{0, 1, 2}}, {Vars: []int32{5, 4, 3}}},
		Rows: []Row{
			{Group: 0, Coef: []float64{0, 0, 1}, Target: 2},
			{Group: 1, Coef: []float64{1, 1, 0}, Eq: true, Target: 0.5},
		},
	}
}

// TestBadInput: malformed problems and settings return errors that say what
// is wrong; nothing panics.
func TestBadInput(t *testing.T) {
	if _, err := NewSolver().Solve(nil, small(t), nil, Settings{}); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
	cases := []struct {
		name, want string
		edit       func(p *Problem)
		warm       []float64
		set        Settings
	}{
		{"nil H", "H is nil", func(p *Problem) { p.H = nil }, nil, Settings{}},
		{"NaN in F", "F[2] is NaN", func(p *Problem) { p.F[2] = math.NaN() }, nil, Settings{}},
		{"Inf in H", "is +Inf", func(p *Problem) { p.H.Val[3] = math.Inf(1) }, nil, Settings{}},
		{"NaN in H", "is NaN", func(p *Problem) { p.H.Val[7] = math.NaN() }, nil, Settings{}},
		{"H column out of range", "outside 6 columns", func(p *Problem) { p.H.Col[4] = 9 }, nil, Settings{}},
		{"H wrong size", "H is 6x6, want 5x5", func(p *Problem) { p.F = p.F[:5] }, nil, Settings{}},
		{"NaN coefficient", "row 0: coefficient 1 is NaN", func(p *Problem) { p.Rows[0].Coef[1] = math.NaN() }, nil, Settings{}},
		{"NaN target", "row 1: target is NaN", func(p *Problem) { p.Rows[1].Target = math.NaN() }, nil, Settings{}},
		{"missing group", "row 1: group 2 does not exist", func(p *Problem) { p.Rows[1].Group = 2 }, nil, Settings{}},
		{"negative group", "row 0: group -1 does not exist", func(p *Problem) { p.Rows[0].Group = -1 }, nil, Settings{}},
		{"short row", "row 0: 2 coefficients for group 0 of 3", func(p *Problem) { p.Rows[0].Coef = p.Rows[0].Coef[:2] }, nil, Settings{}},
		{"zero row", "row 0: all coefficients are zero", func(p *Problem) { p.Rows[0].Coef = []float64{0, 0, 0} }, nil, Settings{}},
		{"dependent rows", "row 2 is linearly dependent on rows [1]", func(p *Problem) {
			p.Rows = append(p.Rows, Row{Group: 1, Coef: []float64{-2, -2, 0}, Target: 1})
		}, nil, Settings{}},
		{"too many rows", "group 0 has 4 rows but 3 variables", func(p *Problem) {
			for k := 0; k < 3; k++ {
				p.Rows = append(p.Rows, Row{Group: 0, Coef: []float64{1, float64(k), 0}})
			}
		}, nil, Settings{}},
		{"variable twice", "variable 1 is in groups 0 and 1", func(p *Problem) { p.Groups[1].Vars[0] = 1 }, nil, Settings{}},
		{"variable in no group", "variable 3 is in no group", func(p *Problem) { p.Groups[1].Vars = p.Groups[1].Vars[:2] }, nil, Settings{}},
		{"variable out of range", "group 1: variable 6 outside [0, 6)", func(p *Problem) { p.Groups[1].Vars[0] = 6 }, nil, Settings{}},
		{"empty group", "group 1 has 0 variables", func(p *Problem) { p.Groups[1].Vars = nil }, nil, Settings{}},
		{"big group", "group 0 has 6 variables", func(p *Problem) {
			p.Groups = []Group{{Vars: []int32{0, 1, 2, 3, 4, 5}}}
			p.Rows = nil
		}, nil, Settings{}},
		{"coupled domains", "Domains: H couples group 0 of domain 0 to group 1 of another domain", func(p *Problem) { p.Domains = []int{0, 1, 2} }, nil, Settings{}},
		{"Domains start", "Domains[0] = 1, want 0", func(p *Problem) { p.Domains = []int{1, 2} }, nil, Settings{}},
		{"Domains descend", "Domains[2] = 1: the bounds must ascend within [0, 2]", func(p *Problem) { p.Domains = []int{0, 2, 1} }, nil, Settings{}},
		{"Domains beyond", "Domains[1] = 3: the bounds must ascend within [0, 2]", func(p *Problem) { p.Domains = []int{0, 3} }, nil, Settings{}},
		{"warm length", "len(warm) = 2, want 6", func(p *Problem) {}, []float64{1, 2}, Settings{}},
		{"warm NaN", "warm[1] is NaN", func(p *Problem) {}, []float64{0, math.NaN(), 0, 0, 0, 0}, Settings{}},
		{"bad Tol", "Settings.Tol = -1", func(p *Problem) {}, nil, Settings{Tol: -1}},
		{"NaN DualTol", "Settings.DualTol = NaN", func(p *Problem) {}, nil, Settings{DualTol: math.NaN()}},
		{"negative MaxCG", "Settings.MaxCG = -3", func(p *Problem) {}, nil, Settings{MaxCG: -3}},
	}
	s := NewSolver()
	for _, c := range cases {
		p := small(t)
		c.edit(p)
		_, err := s.Solve(nil, p, c.warm, c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := s.Solve(nil, nil, nil, Settings{}); err == nil {
		t.Error("nil problem: no error")
	}
	// The Solver still works after the errors, with and without domains
	// (group 0 a domain, group 1 the separator).
	if res, err := s.Solve(nil, small(t), nil, Settings{}); err != nil || !res.Converged {
		t.Errorf("after errors: %v %s", err, res.Message)
	}
	p := small(t)
	p.Domains = []int{0, 1}
	if res, err := s.Solve(nil, p, nil, Settings{}); err != nil || !res.Converged {
		t.Errorf("one domain and a separator: %v %s", err, res.Message)
	}
}

// TestNotConverged: too few CG iterations, too few rounds, an H that is not
// positive definite on the free subspace and a singular free direction with a
// force along it all give Converged = false with a Message, never a panic.
func TestNotConverged(t *testing.T) {
	p := clothProblem(t, rand.New(rand.NewSource(7)), 12, 12)
	s := NewSolver()
	res, err := s.Solve(nil, p, nil, Settings{MaxCG: 3})
	if err != nil || res.Converged || !strings.Contains(res.Message, "PCG did not reach relative residual") || !strings.Contains(res.Message, "in 3 iterations") {
		t.Errorf("MaxCG 3: err %v, converged %v, message %q", err, res.Converged, res.Message)
	}
	if res.CGIterations != 3 || res.Rounds != 1 {
		t.Errorf("MaxCG 3: %d iterations, %d rounds", res.CGIterations, res.Rounds)
	}
	res, err = s.Solve(nil, p, nil, Settings{MaxRounds: 1})
	if err != nil || res.Converged || !strings.Contains(res.Message, "active set not settled after 1 rounds") {
		t.Errorf("MaxRounds 1: err %v, converged %v, message %q", err, res.Converged, res.Message)
	}

	// Negative definite H.
	q := small(t)
	for k := range q.H.Val {
		q.H.Val[k] = -q.H.Val[k]
	}
	res, err = s.Solve(nil, q, nil, Settings{})
	if err != nil || res.Converged || !strings.Contains(res.Message, "not positive definite on the free subspace") {
		t.Errorf("negative H: err %v, converged %v, message %q", err, res.Converged, res.Message)
	}

	// Group 1's block is zero and it has only one equality: H is singular on
	// its free subspace and F pushes along it (unbounded QP).
	q = small(t)
	q.H, _ = qp.NewCSR(6, 6, []int{0, 1, 2}, []int{0, 1, 2}, []float64{1, 1, 1})
	res, err = s.Solve(nil, q, nil, Settings{MaxCG: 50})
	if err != nil || res.Converged || res.Message == "" || res.RegularizedGroups != 1 {
		t.Errorf("singular H: err %v, converged %v, message %q, %d regularized", err, res.Converged, res.Message, res.RegularizedGroups)
	}
	t.Logf("singular H: %s", res.Message)
}
