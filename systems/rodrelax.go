package systems

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
	"github.com/loomsim/loom/solver/rodstep"
)

// restTol is the mismatch (relative stretch of a segment, or radians of a
// bend) below which a built strand counts as at rest and keeps its
// parametrization bit for bit.
const restTol = 1e-9

// relaxes says whether relaxRest relaxes strand s (and buildRods snaps its
// contact nodes within snapReachRelaxed).
func relaxes(s *model.Strand) bool { return s.Relax && !s.Fixed }

// relaxRest puts every strand with model.Strand.Relax (a fabric's yarns,
// unless the fabric sets relax false) at rest in the geometry it was built
// with, so that a fabric starts in equilibrium (issue 18: "rest lengths
// relaxed so the patch starts near equilibrium"). A yarn's evenly spaced
// nodes are at rest in its even parametrization, but the contact nodes of
// its pattern's crossings are inserted between them at the points where the
// two yarns' resampled polylines meet, off both chords: the segments beside
// such a node are stretched and its bend triples turn by other angles than
// the rest curve gives them. On a knit of 8 x 8 stitches loaded without
// gravity that is 15 N of stretch (30% strain at k_s = 50 N) and 0.7 N of
// bending force against 5 uN of weight per node, and its first step took 318
// Newton iterations. So each such strand's material coordinates become the
// arc lengths of its built polyline (every node, in order: SB2020 eq. 2's
// rest length du is then each segment's length) and its rest curve the
// turning angles of that polyline at those coordinates (rod.NewRestCurveAt);
// the anchors of its sliding contacts move with their nodes' u. Strands
// already at rest (within restTol: the straight and the plain woven ones)
// are left as they are, and so are fixed ones, held where they are built.
func relaxRest(w *ecs.World, rs *model.Rods, strands []ecs.Entity, rods []rodstep.Rod) error {
	type node struct {
		e ecs.Entity
		u float64
		x dense.Vec3
	}
	index := make(map[ecs.Entity]int, len(strands))
	for si, e := range strands {
		if relaxes(&rs.Strands[si]) {
			index[e] = si
		}
	}
	if len(index) == 0 {
		return nil
	}
	nodes := make([][]node, len(strands))
	q := generic.NewFilter2[components.Position, components.RodNode]().Query(w.ECS)
	for q.Next() {
		p, rn := q.Get()
		if si, ok := index[rn.Strand]; ok {
			nodes[si] = append(nodes[si], node{q.Entity(), rn.U, dense.Vec3(*p)})
		}
	}
	nodeMap := generic.NewMap1[components.RodNode](w.ECS)
	for si, ns := range nodes {
		if len(ns) < 2 {
			continue
		}
		slices.SortStableFunc(ns, func(a, b node) int { return cmp.Compare(a.u, b.u) })
		R := &rods[si]
		u := make([]float64, len(ns))
		pos := make([][3]float64, len(ns))
		atRest := true
		for k := range ns {
			pos[k] = ns[k].x
			if k == 0 {
				continue
			}
			l := ns[k].x.Sub(ns[k-1].x).Norm()
			if !(l > 0) {
				return fmt.Errorf("rods strand %s: two nodes at one point (arc lengths %v and %v)", rs.Strands[si].Name, ns[k-1].u, ns[k].u)
			}
			u[k] = u[k-1] + l
			atRest = atRest && math.Abs(l-(ns[k].u-ns[k-1].u)) <= restTol*l
		}
		theta := rod.RestTurningAngles(pos)
		for k := 1; atRest && k+1 < len(ns); k++ {
			rest := 0.0
			if R.Rest != nil {
				rest, _ = R.Rest.Angle(ns[k-1].u, ns[k].u, ns[k+1].u)
			}
			atRest = math.Abs(theta[k]-rest) <= restTol
		}
		if atRest {
			continue
		}
		R.Rest = nil
		if !rod.Straight(theta) {
			R.Rest = rod.NewRestCurveAt(u, theta)
		}
		R.Length = u[len(u)-1]
		for k, n := range ns {
			rn := nodeMap.Get(n.e)
			rn.U = u[k]
			if rn.AnchorKf > 0 {
				rn.AnchorU = u[k]
			}
		}
	}
	return nil
}
