package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/rod"
)

// Stats is one record of stats.jsonl: the state at the end of a step. Every
// field is in every record (a stable schema): the pointer fields of a kind
// of scene (remeshing, strain limits, EOL cloth) are null in records of
// scenes without it, and the rod counts are 0 without rods. Time is
// step x dt (not a running sum), in seconds.
type Stats struct {
	Step           int     `json:"step"`
	Time           float64 `json:"time"`
	Vertices       int     `json:"vertices"`
	Faces          int     `json:"faces"`
	Contacts       int     `json:"contacts"`
	KineticEnergy  float64 `json:"kinetic_energy"`         // J
	Potential      float64 `json:"potential_energy"`       // J: gravity (relative to z = 0) plus elastic
	ElasticEnergy  float64 `json:"elastic_energy"`         // J: membrane and bending, rod stretch and bending
	MaxStrain      float64 `json:"max_strain"`             // largest |principal strain| over faces and |axial strain l/du - 1| over rod segments
	MaxPenetration float64 `json:"max_penetration"`        // m, deepest any obstacle overlaps the cloth surface (maxPenetration)
	MaxVertexPen   float64 `json:"max_vertex_penetration"` // m, deepest cloth vertex inside an obstacle (what the contacts constrain)
	SelfIntersect  int     `json:"self_intersections"`     // intersecting cloth face pairs that share no vertex
	PCGIterations  int     `json:"pcg_iterations"`         // of the last unconstrained solve
	PCGSolves      int     `json:"pcg_solves"`             // PCG solves of the last step's implicit solve (contact rounds and refinements included)
	PCGStepIter    int     `json:"pcg_step_iterations"`    // their iterations
	QPIterations   int     `json:"qp_iterations"`          // ADMM iterations of the last step's QP (0 without contacts)
	QPResidual     float64 `json:"qp_kkt_residual"`        // largest relative KKT residual of that QP
	Nodes          int     `json:"nodes"`                  // rod nodes
	EoLNodes       int     `json:"eol_nodes"`              // of which EoL
	EILNodes       int     `json:"eil_nodes"`              // of which EIL
	NewtonIter     int     `json:"newton_iterations"`      // rod Newton iterations of the last step
	RodCGIter      int     `json:"rod_cg_iterations"`      // conjugate gradient iterations of those Newton iterations' solves (0: solved directly)
	RodFactors     int     `json:"rod_factorizations"`     // factorizations of those Newton iterations' matrices, the regularization's failed tries included
	StepHalvings   int     `json:"step_halvings"`          // rod step halvings since the previous record
	// RodResidual is the largest unbalanced force (N) the rod Newton
	// solves left at an accepted step since the previous record
	// (rodstep.Result.Residual): near 0 where they converged, large where
	// an update below the tolerance was taken for convergence under heavy
	// regularization.
	RodResidual float64 `json:"rod_residual_force"`
	// RodStalled counts the rod Newton solves since the previous record
	// that stopped with a larger unbalanced force than they started with
	// (rodstep.Result.Stalled).
	RodStalled int `json:"rod_stalled_solves"`
	// Remeshing (scenes with remeshed bodies only): operations since the
	// previous record and the edge sizes (Narain 2012 eq. 1,
	// sqrt(u^T M u): dimensionless, 1 for an edge as long as the sizing
	// field asks, above 1 too long) after the last pass.
	RemeshSplits    *int     `json:"remesh_splits"`
	RemeshFlips     *int     `json:"remesh_flips"`
	RemeshCollapses *int     `json:"remesh_collapses"`
	EdgeSizeMin     *float64 `json:"edge_size_min"`
	EdgeSizeMedian  *float64 `json:"edge_size_median"`
	EdgeSizeMax     *float64 `json:"edge_size_max"`
	// Strain limiting (bodies with strain limits only), of the last step:
	// iterations (AL: optimizer iterations; Jacobi: sweeps) and the largest
	// violation of a limit left.
	StrainIterations *int     `json:"strain_limit_iterations"`
	StrainViolation  *float64 `json:"strain_limit_violation"`

	// EOL cloth (solver.mode "eol"): EOL vertices now; the soft contacts
	// (contacts with sharp features left without a node, EOLCloth.
	// softContacts) since the previous record, summed over steps; with conformal
	// remeshing ("eol", "lag-conformal") the conformal vertices inserted
	// since the previous record; and the cloth's bend across the
	// sharp edge it is draped over (degrees between the mean normals of the
	// faces within reach on either side; 0 when flat, null when no edge
	// feature has cloth across it).
	// Self-contact and the obstacles' fail-safe (SelfCollision), of the
	// last step: proximity rows in the solve, and what the fail-safe after
	// it still had to do: repulsion impulses, CCD impacts, vertices in
	// impact zones.
	ProximityRows *int `json:"proximity_rows"`
	Repelled      *int `json:"failsafe_repelled"`
	Impacts       *int `json:"failsafe_impacts"`
	ZoneVerts     *int `json:"failsafe_zone_vertices"`

	EOLVertices *int     `json:"eol_vertices"`
	SoftContact *int     `json:"eol_soft_contacts"`
	Conformal   *int     `json:"conformal_inserted"`
	BendAngle   *float64 `json:"bend_angle_at_feature"`

	// Developable cloth (English & Bridson 2008), of the last step:
	// projection steps over all bodies, and the largest relative error of a
	// face's midpoint distances against rest.
	ProjectionIter *int     `json:"projection_iterations,omitempty"`
	InPlaneError   *float64 `json:"in_plane_error,omitempty"`

	MS map[string]float64 `json:"ms"` // per system, since the previous record
}

// Measure computes the statistics of the current state. The per-system times
// are those accumulated since the last call, which then resets them.
func (s *Sim) Measure() Stats {
	st := s.State
	out := Stats{Step: s.Clock.Step, Time: float64(s.Clock.Step) * s.Clock.Dt, Vertices: st.NumVerts(), Faces: len(st.FaceRest), PCGIterations: st.LastSolve.Iterations,
		PCGSolves: st.StepPCG.Solves, PCGStepIter: st.StepPCG.Iterations,
		QPIterations: st.LastQP.Iterations, QPResidual: st.LastQP.Residual}
	g := s.Model.Gravity // the field simulated, incline included
	for i, m := range st.Mass {
		x, v := vec(st.X, int32(i)), vec(st.V, int32(i))
		out.KineticEnergy += 0.5 * m * v.Dot(v)
		out.Potential -= m * g.Dot(x)
	}
	if s.EOL != nil {
		out.KineticEnergy += s.EOL.kineticCorrection()
	}
	for e := range st.FaceRest {
		f := st.Faces[3*e : 3*e+3]
		x0, x1, x2 := vec(st.X, f[0]), vec(st.X, f[1]), vec(st.X, f[2])
		out.ElasticEnergy += elastic.MembraneEnergy(&st.FaceRest[e], st.FaceLame[e], x0, x1, x2)
		for _, p := range elastic.PrincipalStrains(st.FaceRest[e].DeformationGradient(x0, x1, x2)) {
			out.MaxStrain = math.Max(out.MaxStrain, math.Abs(p))
		}
	}
	for k := range st.HingeRest {
		h := st.Hinges[4*k : 4*k+4]
		out.ElasticEnergy += elastic.HingeEnergy(&st.HingeRest[k], st.HingeKb[k], vec(st.X, h[0]), vec(st.X, h[1]), vec(st.X, h[2]), vec(st.X, h[3]))
	}
	out.Potential += out.ElasticEnergy
	out.MaxVertexPen, out.MaxPenetration = s.maxPenetration()
	out.SelfIntersect = selfIntersections(s.World.Pool, st.X, st.Faces)
	q := generic.NewFilter1[components.Contact]().Query(s.World.ECS)
	out.Contacts = q.Count()
	q.Close()
	if r := s.Rods; r != nil {
		st := &r.Step
		out.Nodes = st.NumNodes()
		for _, k := range st.Kind {
			switch k {
			case rod.EoL:
				out.EoLNodes++
			case rod.EIL:
				out.EILNodes++
			}
		}
		out.Contacts += len(st.Contacts)
		out.NewtonIter = r.LastResult.Iterations
		out.RodCGIter = r.LastResult.CGIterations
		out.RodFactors = r.LastResult.Factorizations
		out.StepHalvings, out.RodResidual, out.RodStalled = r.halvings, r.residual, r.stalled
		r.halvings, r.residual, r.stalled = 0, 0, 0
		ke, el, grav, strain := st.Energies()
		out.KineticEnergy += ke
		out.ElasticEnergy += el
		out.Potential += el + grav
		out.MaxStrain = math.Max(out.MaxStrain, strain)
	}
	if r := s.Remesh; r != nil {
		out.RemeshSplits, out.RemeshFlips, out.RemeshCollapses = ptr(r.Splits), ptr(r.Flips), ptr(r.Collapses)
		out.EdgeSizeMin, out.EdgeSizeMedian, out.EdgeSizeMax = ptr(r.SizeMin), ptr(r.SizeMedian), ptr(r.SizeMax)
		r.Splits, r.Flips, r.Collapses, r.Unadapted = 0, 0, 0, 0
	}
	if c := s.SelfCollision; c != nil {
		out.ProximityRows, out.Repelled, out.Impacts, out.ZoneVerts = ptr(len(st.Pairs)), ptr(c.Last.Repelled), ptr(c.Last.Impacts), ptr(c.Last.ZoneVerts)
	}
	if d := s.Developable; d != nil {
		out.ProjectionIter, out.InPlaneError = ptr(d.Iterations), ptr(d.InPlaneError)
	}
	if l := s.StrainLimit; l != nil {
		it, viol := 0, 0.0
		for bi, res := range l.Last {
			it += l.iterations(bi)
			viol = math.Max(viol, res.MaxViolation)
		}
		out.StrainIterations, out.StrainViolation = ptr(it), ptr(viol)
	}
	if e := s.EOL; e != nil {
		// An EOL vertex's material moves with its world velocity (eq. 2),
		// not with its Lagrangian one.
		for k := range e.verts {
			ev := &e.verts[k]
			if ev.lifted {
				continue // its velocity is already the world velocity
			}
			m := st.Mass[ev.v]
			xd := vec(st.V, ev.v)
			vw := eol.LiftOffVelocity(xd, ev.xdotNew, ev.F)
			out.KineticEnergy += 0.5 * m * (vw.Dot(vw) - xd.Dot(xd))
		}
		q := generic.NewFilter1[components.EOL]().Query(s.World.ECS)
		out.EOLVertices = ptr(q.Count())
		q.Close()
		out.SoftContact, e.Soft = ptr(e.Soft), 0
	}
	if c := s.Conformal; c != nil {
		out.Conformal = ptr(c.Inserted)
		sp, fl, co := c.Splits, c.Flips, c.Collapses
		if out.RemeshSplits != nil {
			sp, fl, co = sp+*out.RemeshSplits, fl+*out.RemeshFlips, co+*out.RemeshCollapses
		}
		out.RemeshSplits, out.RemeshFlips, out.RemeshCollapses = ptr(sp), ptr(fl), ptr(co)
		c.Inserted, c.Collapses, c.Splits, c.Flips, c.Dropped, c.Skipped, c.Unadapted = 0, 0, 0, 0, 0, 0, 0
	}
	if e := s.Model.Solver.EOL; e != nil {
		if a, ok := bendAngleAtFeature(s.World, st, s.Model.Solver.Thickness, 3*e.MinEdge); ok {
			out.BendAngle = ptr(a)
		}
	}
	out.MS = map[string]float64{}
	for _, t := range s.Scheduler.Timings() {
		out.MS[t.System] = float64(t.Elapsed.Microseconds()) / 1000
	}
	s.Scheduler.ResetTimings()
	return out
}

// maxPenetration returns the deepest any vertex lies inside any obstacle
// (m, 0 when none does; measured against the obstacle surface, not the
// contact layer) and the deepest any obstacle overlaps the cloth surface:
// the larger of the vertex depth and, for
// spheres, capsules and boxes, the deepest overlap of the obstacle and a
// cloth face (geom.ShapeTriangleDepth: the shortest translation separating
// them), which sees an obstacle's edge, corner or cap poking through a face
// between its vertices; for meshes, how far the mesh's vertices and edges
// stand out beyond a cloth face they cross. Faces are culled by bounding
// boxes.
func (s *Sim) maxPenetration() (vertex, surface float64) {
	st := s.State
	var faceBoxes []geom.AABB
	q := generic.NewFilter1[components.Obstacle]().Query(s.World.ECS)
	for q.Next() {
		o := q.Get()
		for i := range st.Mass {
			if d, _ := geom.SignedDistance(&o.Shape, o.Offset, vec(st.X, int32(i))); -d > vertex {
				vertex = -d
			}
		}
		ob, ok := geom.PenetrationBounds(&o.Shape, o.Offset)
		if !ok {
			continue
		}
		if faceBoxes == nil {
			faceBoxes = faceBounds(st.X, st.Faces)
		}
		for e := range faceBoxes {
			if !faceBoxes[e].Overlaps(&ob) {
				continue
			}
			f := st.Faces[3*e : 3*e+3]
			if d := geom.ShapeTriangleDepth(&o.Shape, o.Offset, vec(st.X, f[0]), vec(st.X, f[1]), vec(st.X, f[2])); d > surface {
				surface = d
			}
		}
	}
	return vertex, max(vertex, surface)
}

// faceBounds returns the bounding box of every face.
func faceBounds(x []float64, faces []int32) []geom.AABB {
	boxes := make([]geom.AABB, len(faces)/3)
	for e := range boxes {
		f := faces[3*e : 3*e+3]
		boxes[e] = geom.Bounds3(vec(x, f[0]), vec(x, f[1]), vec(x, f[2]))
	}
	return boxes
}

// selfIntersections counts the pairs of faces, over all cloth bodies, that
// share no vertex and intersect (geom.TrianglesIntersect, exact; touching
// counts), with candidates from a triangle BVH (geom.BVH.SelfPairs, closed
// boxes, so touching faces are candidates).
func selfIntersections(r geom.Runner, x []float64, faces []int32) int {
	var bvh geom.BVH
	bvh.Build(r, x, faces, 0)
	count := 0
	for _, p := range bvh.SelfPairs(nil) {
		if facesIntersect(x, faces, p) {
			count++
		}
	}
	return count
}

// facesIntersect reports whether the faces of pair p (indices into faces,
// 3 vertex indices into x each) intersect (geom.TrianglesIntersect).
func facesIntersect(x []float64, faces []int32, p geom.TriPair) bool {
	fa, fb := faces[3*p.A:3*p.A+3], faces[3*p.B:3*p.B+3]
	return geom.TrianglesIntersect(vec(x, fa[0]), vec(x, fa[1]), vec(x, fa[2]), vec(x, fb[0]), vec(x, fb[1]), vec(x, fb[2]))
}
