// Package activeset solves the cloth contact step's QP (Weidner et al. 2018
// eq. 12: minimize 1/2 v^T A v - b^T v subject to the pins and one row
// n_k^T v_i >= t_k per contact vertex) by an active-set iteration on the
// filtered preconditioned conjugate gradients of Baraff and Witkin 1998,
// "Large steps in cloth simulation", sec. 5.3 (sparse.PCG), instead of a
// general QP solver. It owns that iteration on plain arrays: the system
// matrix, the right-hand side, the pins' per-vertex filters and the contact
// rows. Where the rows' groups are larger than one vertex's velocity (EOL
// vertices), solver/blockqp solves the same kind of QP.
package activeset

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

// MaxRounds bounds the active-set corrections; each round is one PCG solve.
const MaxRounds = 8

// LooseTolerance is the relative PCG tolerance of the rounds that only look
// for the active set (never tighter than the problem's): each round starts
// from the last round's v, so only the final round, on the set they
// settled, pays for the problem's tolerance.
const LooseTolerance = 1e-2

// Row is a contact row n^T v_i >= Target on vertex Vertex's velocity. The
// normal is unit; the rows of one vertex must have orthogonal normals (in
// practice a vertex has one row), so that the filter stays a projection.
type Row struct {
	Vertex int32
	Normal dense.Vec3
	Target float64 // m/s
}

// Problem is one contact solve's data, all read only. For n vertices: A is
// the n x n block system matrix, B its right-hand side (3n), PinFilter the
// pins' 3x3 filter per vertex (9n, row major; the identity for a free
// vertex) and PinZ the pins' prescribed velocities (3n). Tolerance and
// MaxIterations are the PCG's.
type Problem struct {
	A             *sparse.BSR
	B             []float64
	PinFilter     []float64
	PinZ          []float64
	Rows          []Row
	Tolerance     float64
	MaxIterations int
	// Prepare, when not nil, sets PCG's preconditioner up for the
	// operator of a round's filter before the first round and again
	// before the first round at Tolerance when at least RePrepareRows
	// rows have changed state since.
	Prepare Preparer
}

// RePrepareRows is the number of rows that must have changed state (active
// or not) since the first round's Prepare for the first round at the
// problem's tolerance to prepare again. A row whose state differs between
// the preconditioner and PCG's filter is a rank-one change of the
// preconditioned operator, an outlying eigenvalue that costs CG about one
// iteration, and a setup costs about eleven (sphere-arcsim, 99 frames: the
// bound 16 skipped 253 of 648 setups for 645 more iterations, 2.5 per
// skipped setup; with 32, 9.4).
const RePrepareRows = 16

// A Preparer sets up the preconditioner that PCG applies for the system
// matrix A filtered by filter (9n: the pins' filters with the active rows'
// normals projected out), such as an AMG hierarchy of the filtered
// operator (amg.Preconditioner.SetupFiltered). A V-cycle of A that knows
// only the pins treats the contact vertices as free in their normals: with
// a few hundred active rows (sphere-arcsim as the sphere lifts the cloth)
// PCG then needs twice the iterations (a fixed active set solved to 1e-4:
// 66-111 against 30-44 with the hierarchy of the filtered operator).
type Preparer interface {
	Prepare(r sparse.Runner, A *sparse.BSR, filter []float64) error
}

// Result reports a solve.
type Result struct {
	Solves     int              // PCG solves (rounds)
	Iterations int              // PCG iterations over all rounds
	Residual   float64          // the larger of the last PCG residual and the largest row violation
	Last       sparse.PCGResult // the last PCG solve's
}

// Solver holds the iteration's workspace between solves.
type Solver struct {
	filter []float64 // 9n: the pins' filters with the active rows added
	z      []float64 // 3n
	av     []float64 // 3n: A v
	active []bool    // per contact row
	// held is, per vertex, whether one of its rows was active when the
	// last solve ended: the next solve's first guess.
	held []bool
	// prepared is active as it was at the last Prepare.
	prepared []bool
}

// Solve solves problem p with pcg (sized for its n vertices), starting from
// v (3n), which receives the solution; impulse (one per row) receives the
// rows' multipliers, the normal impulses (N s).
//
// Every contact row involves a single vertex: an active row is a filter S_i
// = I - n n^T with the prescribed normal velocity t n, so one PCG solve gives
// the equality-constrained optimum, and its multipliers are lambda_k = n^T
// (A v - b)_i. Rows with lambda_k < 0 (the obstacle would pull) are released
// and rows whose constraint the solve violates are activated, until the
// active set is stable: then v meets the QP's KKT conditions (to the PCG
// tolerance), the same answer as a QP solver without its factorizations.
// The rounds stop after MaxRounds; Result.Residual then reports the
// remaining violation.
//
// While the active set changes, a round solves only to LooseTolerance;
// once a loose round leaves the set as it was, the rounds solve to
// p.Tolerance until a round leaves the set unchanged again. So the answer
// meets the same conditions as with every round tight, and a step whose set
// needs k corrections costs about k loose solves and the tightening of the
// last, not k + 1 tight solves.
//
// With p.Prepare, the preconditioner is set up for the first round's
// filter and again for the filter of the first round at p.Tolerance, the
// set that the loose rounds settled on, unless fewer than RePrepareRows
// rows changed in between.
//
// The first guess of the active set is warm: a row starts active when its
// vertex had an active row at the end of the previous solve (the previous
// step's contact set, or this step's before a refinement added rows; while
// the vertex count is unchanged), or when the starting v already violates
// it. A vertex resting on an obstacle keeps its row from step to step
// without a round to find it again.
func (s *Solver) Solve(r sparse.Runner, pcg *sparse.PCG, p *Problem, v, impulse []float64) (Result, error) {
	n := len(p.B) / 3
	s.filter = resize(s.filter, 9*n)
	s.z = resize(s.z, 3*n)
	s.av = resize(s.av, 3*n)
	rows := p.Rows
	s.active = resize(s.active, len(rows))
	warm := len(s.held) == n
	for k, r := range rows {
		i, nr := int(r.Vertex), r.Normal
		vn := nr[0]*v[3*i] + nr[1]*v[3*i+1] + nr[2]*v[3*i+2]
		s.active[k] = vn < r.Target || (warm && s.held[i])
	}
	var out Result
	defer s.hold(n, rows)
	tol := max(p.Tolerance, LooseTolerance)
	tight := false // a round at p.Tolerance has been prepared
	for round := 0; ; round++ {
		if round+1 == MaxRounds {
			tol = p.Tolerance // the last round's answer is the step's
		}
		copy(s.filter, p.PinFilter)
		copy(s.z, p.PinZ)
		for k, r := range rows {
			if !s.active[k] {
				continue
			}
			i, nr := int(r.Vertex), r.Normal
			f := s.filter[9*i : 9*i+9]
			for a := range 3 {
				for b := range 3 {
					f[3*a+b] -= nr[a] * nr[b]
				}
				s.z[3*i+a] = r.Target * nr[a]
			}
		}
		if p.Prepare != nil && (round == 0 || tol == p.Tolerance && !tight && s.changed() >= RePrepareRows) {
			tight = tol == p.Tolerance
			s.prepared = append(s.prepared[:0], s.active...)
			if err := p.Prepare.Prepare(r, p.A, s.filter); err != nil {
				return out, fmt.Errorf("filtered contact solve: preconditioner: %w", err)
			}
		}
		res, err := pcg.Solve(r, p.A, p.B, v, s.filter, s.z, tol, p.MaxIterations)
		out.Last = res
		out.Solves++
		out.Iterations += res.Iterations
		if err != nil {
			return out, fmt.Errorf("filtered contact solve: PCG: %w", err)
		}
		if !res.Converged {
			return out, fmt.Errorf("filtered contact solve with %d rows: PCG did not converge in %d iterations (relative residual %.3g > %g)",
				len(rows), res.Iterations, res.Residual, tol)
		}
		p.A.MulVec(r, v, s.av)
		changed, violation := false, 0.0
		for k, r := range rows {
			i, nr := int(r.Vertex), r.Normal
			vn := nr[0]*v[3*i] + nr[1]*v[3*i+1] + nr[2]*v[3*i+2]
			if s.active[k] {
				lam := 0.0
				for a := range 3 {
					lam += nr[a] * (s.av[3*i+a] - p.B[3*i+a])
				}
				impulse[k] = math.Max(lam, 0)
				if lam < 0 {
					s.active[k], changed = false, true
				}
				continue
			}
			impulse[k] = 0
			if d := r.Target - vn; d > 0 {
				violation = math.Max(violation, d)
				// A violation within the PCG's accuracy is not a new contact.
				if d > 1e-9*(1+math.Abs(r.Target)) {
					s.active[k], changed = true, true
				}
			}
		}
		out.Residual = math.Max(res.Residual, violation)
		if round+1 == MaxRounds {
			break
		}
		if !changed {
			if tol == p.Tolerance {
				break
			}
			tol = p.Tolerance
		}
	}
	return out, nil
}

// changed counts the rows whose state differs from the last Prepare's.
func (s *Solver) changed() int {
	c := 0
	for k, a := range s.active {
		if a != s.prepared[k] {
			c++
		}
	}
	return c
}

// hold records, per vertex, whether one of its rows is active.
func (s *Solver) hold(n int, rows []Row) {
	s.held = resize(s.held, n)
	clear(s.held)
	for k, r := range rows {
		if s.active[k] {
			s.held[r.Vertex] = true
		}
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
