package scenes

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/fabric"
)

// Fabric kinds (rods.fabrics[i].type).
const (
	FabricWoven = "woven"
	FabricKnit  = "knit"
)

// MaxFabricNodes bounds the nodes one fabric may generate (by its
// nodeEstimate, about 1.3 times the nodes a woven fabric builds), so that a
// mistyped count cannot allocate without limit; twice a strand's limit, so
// that each of the two denim layers of Sanchez-Banderas 2020's pocket
// (645k nodes in all) fits.
const MaxFabricNodes = 2 * MaxRodNodes

// Fabric is a yarn-level patch built from its pattern (Sanchez-Banderas et
// al. 2020 sec. 5): its yarns become strands named NAME/warpI, NAME/weftJ or
// NAME/courseJ, and the crossings of its pattern become persistent sliding
// contacts. Contacts with other fabrics and strands are found by proximity at
// load (rods.contact_distance), as the paper does for stacked layers.
type Fabric struct {
	Name string `json:"name"` // non-empty, unique among bodies, obstacles, strands and fabrics, no whitespace
	Type string `json:"type"` // "woven" or "knit"
	// Woven: the weave ("plain", "twill N/M", "basket N", "satin N[/STEP]"),
	// yarn counts, the distance between parallel yarns and the crimp.
	Weave   string  `json:"weave"`
	Warps   int     `json:"warps"`
	Wefts   int     `json:"wefts"`
	Spacing float64 `json:"spacing"`
	Crimp   float64 `json:"crimp"`
	// Knit: rows of stitch instructions (k, p, s; bottom row first) tiled
	// over Columns x Rows stitches of StitchWidth x StitchHeight.
	Pattern      []string `json:"pattern"`
	Columns      int      `json:"columns"`
	Rows         int      `json:"rows"`
	StitchWidth  float64  `json:"stitch_width"`
	StitchHeight float64  `json:"stitch_height"`

	YarnRadius  float64     `json:"yarn_radius"`  // m, > 0
	NodeSpacing float64     `json:"node_spacing"` // m, > 0: rod node spacing along the yarns
	Position    [3]float64  `json:"position"`     // m: where the patch's centre goes
	Orientation [3]float64  `json:"orientation"`  // degrees about x, then y, then z (the patch lies in its xy plane)
	Material    RodMaterial `json:"material"`
	// Friction is the Coulomb coefficient at the fabric's own crossings
	// (its yarns' friction on each other); nil: rods.friction, which also
	// holds between this fabric and other fabrics and strands.
	Friction *float64 `json:"friction"`
	// Cohesion (N) is added to the friction bound at the fabric's own
	// crossings: the force a crossing holds before it slides even where the
	// yarns press on each other with no normal force (Mohr-Coulomb:
	// |f| <= cohesion + mu N). It stands for the interlock of real woven
	// yarns, pressed together by the crimp they are woven with, which
	// straight model yarns crossing at a shared point do not have: without
	// it a hanging frictional weave slides apart. 0/absent: none.
	Cohesion float64 `json:"cohesion"`
	// ShearStiffness (J) is the stiffness k of the shear term at each of the
	// fabric's own crossings (rod.CrossingShear: 1/2 k (cos theta -
	// cos theta0)^2 on the angle theta between the crossing yarns, theta0
	// as they start; SB2020 sec. 4.4, after Cirio et al. 2014): the weave's
	// resistance to its yarns turning against each other. 0/absent: none.
	ShearStiffness float64     `json:"shear_stiffness"`
	Pins           []FabricPin `json:"pins"` // may be empty/absent
	// Stitches are the edges ("left", "right", "bottom", "top", in the
	// patch's own frame) along which the fabric is sewn to the layers it
	// lies on (SB2020 Fig. 5 and 6: the pocket and the tag are stitched on
	// their sides): the contacts found at load with the fabric's yarns
	// within one yarn spacing (a knit: one stitch) of such an edge neither
	// slide nor let go. May be empty/absent.
	Stitches []string `json:"stitches"`
	Fixed    bool     `json:"fixed"` // every yarn held in place
	// Relax starts the patch at rest in the geometry it is built with, the
	// contact nodes of its crossings included (systems.relaxRest; issue
	// 18: "rest lengths relaxed so the patch starts near equilibrium").
	// nil: true.
	Relax *bool          `json:"relax"`
	built *fabric.Fabric // the geometry, built when the scene is validated
}

// FabricPin pins the yarn ends on one edge of a fabric.
type FabricPin struct {
	// Edge is "left" (x min), "right", "bottom" (y min) or "top", in the
	// patch's own frame: the end nodes of the yarns that end there (a knit's
	// bottom and top edges pin every node of its first or last course).
	Edge   string  `json:"edge"`
	Motion *Motion `json:"motion"` // nil: fixed in place
}

// build returns the fabric's geometry in its own frame, centred on the origin.
func (f *Fabric) build() (*fabric.Fabric, error) {
	var fb *fabric.Fabric
	var err error
	switch f.Type {
	case FabricWoven:
		w, werr := fabric.ParseWeave(f.Weave)
		if werr != nil {
			return nil, werr
		}
		fb, err = fabric.Woven(fabric.WovenParams{Weave: w, Warps: f.Warps, Wefts: f.Wefts, Spacing: f.Spacing,
			Radius: f.YarnRadius, Crimp: f.Crimp, NodeSpacing: f.NodeSpacing, Meet: true})
	case FabricKnit:
		fb, err = fabric.KnitFabric(fabric.KnitParams{Pattern: f.Pattern, Columns: f.Columns, Rows: f.Rows,
			Width: f.StitchWidth, Height: f.StitchHeight, Radius: f.YarnRadius, NodeSpacing: f.NodeSpacing, Meet: true})
	default:
		return nil, fmt.Errorf("type must be %q or %q, got %q", FabricWoven, FabricKnit, f.Type)
	}
	if err != nil {
		return nil, err
	}
	lo, hi := dense.Vec3{1e300, 1e300, 0}, dense.Vec3{-1e300, -1e300, 0}
	for _, y := range fb.Yarns {
		for _, p := range y {
			for k := range 2 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
		}
	}
	c := lo.Add(hi).Scale(0.5)
	R := dense.Mat3(rotationXYZ(f.Orientation))
	for _, y := range fb.Yarns {
		for k := range y {
			y[k] = R.MulVec(y[k].Sub(c)).Add(dense.Vec3(f.Position))
		}
	}
	return fb, nil
}

// knitContactNodes bounds a knit stitch's contact nodes: its crossings
// (3.6 a stitch on a 12 x 10 stockinette, about 4 inside a large patch)
// take two each.
const knitContactNodes = 8

// nodeEstimate is an upper bound on the nodes the fabric builds, from its
// counts alone (checked before building).
func (f *Fabric) nodeEstimate() float64 {
	if !(f.NodeSpacing > 0) {
		return 0
	}
	switch f.Type {
	case FabricWoven:
		// each yarn about its patch's side, with crimp at most doubling it
		return 2 * float64(f.Warps+f.Wefts) * float64(max(f.Warps, f.Wefts)) * f.Spacing / f.NodeSpacing
	case FabricKnit:
		// A loop is about 2 (width + 2 height) long, and a stitch has at
		// most about 4 crossings of 2 contact nodes each. A slipped stitch
		// lengthens the loop below it by 2 heights but has a float (about
		// a width) instead of its own loop, so slips only shorten a course.
		return float64(f.Columns) * float64(f.Rows) * (2*(f.StitchWidth+2*f.StitchHeight)/f.NodeSpacing + knitContactNodes)
	}
	return 0
}

func validateFabric(v *validator, f *Fabric, p string, names map[string]string) {
	validateName(v, p+".name", f.Name, names)
	v.positive(p+".yarn_radius", f.YarnRadius)
	v.positive(p+".node_spacing", f.NodeSpacing)
	m := &f.Material
	v.positive(p+".material.stretch_stiffness", m.StretchStiffness)
	v.nonNegative(p+".material.bending_stiffness", m.BendingStiffness)
	v.positive(p+".material.linear_density", m.LinearDensity)
	v.nonNegative(p+".material.damping", m.Damping)
	v.nonNegative(p+".cohesion", f.Cohesion)
	v.nonNegative(p+".shear_stiffness", f.ShearStiffness)
	if f.Friction != nil {
		v.nonNegative(p+".friction", *f.Friction)
	}
	for k, e := range f.Stitches {
		if !isEdge(e) {
			v.fail(fmt.Sprintf("%s.stitches[%d]", p, k), "must be left, right, bottom or top, got %q", e)
		}
	}
	for k, pin := range f.Pins {
		pp := fmt.Sprintf("%s.pins[%d]", p, k)
		if !isEdge(pin.Edge) {
			v.fail(pp+".edge", "must be left, right, bottom or top, got %q", pin.Edge)
		}
		if pin.Motion != nil {
			validateMotion(v, pin.Motion, pp+".motion")
			if pin.Motion.Rotates() && pin.Motion.Pivot == nil {
				v.fail(pp+".motion.pivot", "required when a fabric pin's motion rotates")
			}
		}
	}
	if n := f.nodeEstimate(); n > MaxFabricNodes {
		v.fail(p, "would build about %.0f nodes, over the limit of %d (fewer yarns or stitches, or a larger node_spacing)", n, MaxFabricNodes)
		return
	}
	if len(v.errs) > 0 {
		return
	}
	key := f.geometryKey()
	fb := v.geometries[key]
	if fb == nil {
		var err error
		if fb, err = f.build(); err != nil {
			v.fail(p, "%v", err)
			return
		}
	}
	f.built = fb
	v.built[key] = fb
}

// geometryKey names everything the fabric's geometry (build) depends on:
// fabrics with the same key build the same yarns and crossings.
func (f *Fabric) geometryKey() string {
	return fmt.Sprintf("%q %q %d %d %v %v %q %d %d %v %v %v %v %v %v", f.Type, f.Weave, f.Warps, f.Wefts, f.Spacing, f.Crimp,
		f.Pattern, f.Columns, f.Rows, f.StitchWidth, f.StitchHeight, f.YarnRadius, f.NodeSpacing, f.Position, f.Orientation)
}

// fabricStrands appends fabric fi's yarns to m as strands, with its pins and
// its pattern's crossings.
func fabricStrands(m *model.Rods, fi int, f *Fabric) error {
	mu := m.Friction
	if f.Friction != nil {
		mu = *f.Friction
	}
	fb := f.built
	if fb == nil {
		var err error
		if fb, err = f.build(); err != nil {
			return fmt.Errorf("rods.fabrics[%d]: %w", fi, err)
		}
	}
	first := len(m.Strands)
	R := dense.Mat3(rotationXYZ(f.Orientation))
	up := R.MulVec(dense.Vec3{0, 0, 1})
	mat := model.RodMaterial{StretchStiffness: f.Material.StretchStiffness, BendingStiffness: f.Material.BendingStiffness,
		LinearDensity: f.Material.LinearDensity, Damping: f.Material.Damping}
	stitched := stitchedIntervals(f, fb)
	for y, pts := range fb.Yarns {
		pos := make([][3]float64, len(pts))
		for k, p := range pts {
			pos[k] = p
		}
		st := model.Strand{Name: f.Name + "/" + fb.Names[y], Pos: pos, Length: fabric.ArcLength(pts), Material: mat,
			Fixed: f.Fixed, RestCurved: true, Relax: f.Relax == nil || *f.Relax, Radius: f.YarnRadius, Fabric: fi + 1, Stitched: stitched[y]}
		for _, pin := range f.Pins {
			for _, node := range fabricPinNodes(f, fb, y, pin.Edge) {
				st.Pins = append(st.Pins, model.RodPin{Node: node, Motion: motion(pin.Motion), Pivot: pivot(pin.Motion, dense.Vec3(f.Position))})
			}
		}
		m.Strands = append(m.Strands, st)
	}
	for _, c := range fb.Crossings {
		n := up
		if !c.Over {
			n = n.Scale(-1)
		}
		m.Crossings = append(m.Crossings, model.Crossing{A: first + c.A, B: first + c.B, UA: c.UA, UB: c.UB, Normal: n, Mu: mu, Cohesion: f.Cohesion, Shear: f.ShearStiffness, Persistent: f.Type == FabricWoven})
	}
	return nil
}

// isEdge says whether e names an edge of a patch.
func isEdge(e string) bool {
	return e == "left" || e == "right" || e == "bottom" || e == "top"
}

// stitchWidth is how far in from a stitched edge the fabric is sewn: one
// yarn spacing of a weave, one stitch of a knit.
func (f *Fabric) stitchWidth(edge string) float64 {
	switch {
	case f.Type == FabricWoven:
		return f.Spacing
	case edge == "left" || edge == "right":
		return f.StitchWidth
	}
	return f.StitchHeight
}

// stitchedIntervals returns the arc-length intervals of the yarns of fb
// (placed by f) that lie within f.stitchWidth of one of f's stitched
// edges, per yarn: the parts of each polyline segment inside the band
// (clipped linearly), merged where they touch.
func stitchedIntervals(f *Fabric, fb *fabric.Fabric) [][][2]float64 {
	out := make([][][2]float64, len(fb.Yarns))
	if len(f.Stitches) == 0 {
		return out
	}
	// The patch's own frame: R^T (p - position), centred on the origin.
	Rt := dense.Mat3(rotationXYZ(f.Orientation)).T()
	local := func(p dense.Vec3) dense.Vec3 { return Rt.MulVec(p.Sub(dense.Vec3(f.Position))) }
	lo, hi := dense.Vec3{math.Inf(1), math.Inf(1)}, dense.Vec3{math.Inf(-1), math.Inf(-1)}
	for _, y := range fb.Yarns {
		for _, p := range y {
			l := local(p)
			for k := range 2 {
				lo[k], hi[k] = min(lo[k], l[k]), max(hi[k], l[k])
			}
		}
	}
	for yi, y := range fb.Yarns {
		var iv [][2]float64
		u := 0.0
		for k := 0; k+1 < len(y); k++ {
			a, b := local(y[k]), local(y[k+1])
			l := y[k+1].Sub(y[k]).Norm()
			// The band of an edge is where g(x) = s (x[axis] - x0) <= w.
			for _, e := range f.Stitches {
				axis, sign, x0 := 0, 1.0, lo[0]
				switch e {
				case "right":
					sign, x0 = -1, hi[0]
				case "bottom":
					axis, x0 = 1, lo[1]
				case "top":
					axis, sign, x0 = 1, -1, hi[1]
				}
				w := f.stitchWidth(e)
				ga, gb := sign*(a[axis]-x0)-w, sign*(b[axis]-x0)-w
				switch {
				case ga <= 0 && gb <= 0:
					iv = append(iv, [2]float64{u, u + l})
				case ga <= 0:
					iv = append(iv, [2]float64{u, u + l*ga/(ga-gb)})
				case gb <= 0:
					iv = append(iv, [2]float64{u + l*ga/(ga-gb), u + l})
				}
			}
			u += l
		}
		slices.SortFunc(iv, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
		merged := iv[:0]
		for _, v := range iv {
			if n := len(merged); n > 0 && v[0] <= merged[n-1][1] {
				merged[n-1][1] = max(merged[n-1][1], v[1])
				continue
			}
			merged = append(merged, v)
		}
		out[yi] = merged
	}
	return out
}

// fabricPinNodes returns the nodes of yarn y that a pin on edge pins.
func fabricPinNodes(f *Fabric, fb *fabric.Fabric, y int, edge string) []int {
	last := len(fb.Yarns[y]) - 1
	if f.Type == FabricWoven {
		warp := y < f.Warps
		switch {
		case warp && edge == "bottom", !warp && edge == "left":
			return []int{0}
		case warp && edge == "top", !warp && edge == "right":
			return []int{last}
		}
		return nil
	}
	switch {
	case edge == "left":
		return []int{0}
	case edge == "right":
		return []int{last}
	case edge == "bottom" && y == 0, edge == "top" && y == len(fb.Yarns)-1:
		all := make([]int, last+1)
		for k := range all {
			all[k] = k
		}
		return all
	}
	return nil
}
