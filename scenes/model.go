package scenes

import (
	"fmt"

	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Model validates the scene and resolves it into the immutable model the
// systems simulate: typed settings with their defaults applied, the gravity
// field actually simulated (GravityVector), each body's mesh (BuildSheet,
// jittered in mode "lag-irregular"), resolved pin and node indices.
func (s *Scene) Model() (*model.Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := s.checkMemory(); err != nil {
		return nil, err
	}
	m := &model.Model{Name: s.Name, Dt: s.TimeStep, Steps: s.NumSteps(), StepsPerFrame: s.StepsPerFrame(), Gravity: dense.Vec3(s.GravityVector())}
	m.Solver = model.Solver{Tolerance: s.Solver.Tolerance, MaxIterations: s.Solver.MaxIterations,
		Thickness: s.Solver.Thickness, Friction: s.Solver.Friction}
	switch s.Solver.Mode {
	case ModeLagrangian, ModeNonConformal:
		m.Solver.Pipeline = model.Lagrangian
	case ModeRegular, ModeIrregular:
		m.Solver.Pipeline = model.LagrangianFixed
	case ModeEOL:
		m.Solver.Pipeline = model.EOL
	case ModeConformal:
		m.Solver.Pipeline = model.Conformal
	}
	if s.Solver.Linear == LinearLDLT {
		m.Solver.Linear = model.LDLT
	}
	// AMG is the default: on the 100x100 drape it needs 30 PCG iterations
	// per step against block-Jacobi's 670, and 2.8x less CPU time per step.
	m.Solver.Precond = model.AMG
	if s.Solver.Preconditioner == PrecondBlockJacobi {
		m.Solver.Precond = model.BlockJacobi
	}
	if s.Solver.ContactSolver == ContactFilter {
		m.Solver.Contact = model.ContactFilter
	}
	if e := s.Solver.EOL; e != nil {
		m.Solver.EOL = &model.EOLSettings{MinEdge: e.MinEdge, MinAngle: e.MinAngle, BorderAngle: e.BorderAngle,
			FlatAngle: e.FlatAngle, Reach: e.Reach, QPDomains: e.QPDomains}
		if e.QPDomains == 0 {
			m.Solver.EOL.QPDomains = DefaultQPDomains
		}
	}
	if sc := s.Solver.SelfContact; sc != nil {
		m.Solver.SelfContact = &model.SelfContact{Thickness: sc.Thickness, Friction: sc.Friction}
	}
	if s.developable() {
		m.Solver.Pipeline = model.Developable
	}
	remeshAll := m.Solver.Pipeline == model.EOL || m.Solver.Pipeline == model.Conformal
	for bi := range s.Bodies {
		b, err := s.bodyModel(bi, remeshAll)
		if err != nil {
			return nil, err
		}
		m.Bodies = append(m.Bodies, b)
	}
	for oi := range s.Obstacles {
		o := &s.Obstacles[oi]
		mo := model.Obstacle{Name: o.Name, Center: o.Center, Normal: o.Normal, Radius: o.Radius,
			HalfExtents: o.HalfExtents, A: o.A, B: o.B, Motion: motion(o.Motion)}
		switch o.Type {
		case Plane:
			mo.Kind = geom.Plane
		case Sphere:
			mo.Kind = geom.Sphere
		case Box:
			mo.Kind = geom.Box
		case Capsule:
			mo.Kind = geom.Capsule
		case Point:
			mo.Kind = geom.Point
		case Mesh:
			mo.Kind = geom.Mesh
			mesh, err := meshModel(o, fmt.Sprintf("obstacles[%d]", oi), s.assets())
			if err != nil {
				return nil, err
			}
			mo.Mesh = mesh
		default:
			return nil, fmt.Errorf("obstacles[%d].type: unknown obstacle type %q", oi, o.Type)
		}
		if mo.Kind == geom.Plane || mo.Kind == geom.Point {
			mo.Normal = mo.Normal.Scale(1 / mo.Normal.Norm())
		}
		if o.Orientation != ([3]float64{}) {
			mo.Rotated, mo.Rotation = true, dense.Mat3(rotationXYZ(o.Orientation))
		}
		mo.Pivot = pivot(o.Motion, geomCenter(mo))
		m.Obstacles = append(m.Obstacles, mo)
	}
	if r := s.Rods; r != nil {
		rm, err := rodsModel(r)
		if err != nil {
			return nil, err
		}
		m.Rods = rm
	}
	if w := s.Wind; w != nil {
		m.Wind = &model.Wind{Velocity: w.Velocity, Density: w.Density, Drag: w.Drag}
	}
	if err := s.checkPhysical(m); err != nil {
		return nil, err
	}
	return m, nil
}

// motion returns mo as a model.Motion, nil (not a typed nil) when absent.
func motion(mo *Motion) model.Motion {
	if mo == nil {
		return nil
	}
	return mo
}

// pivot returns mo's pivot, or def when it sets none.
func pivot(mo *Motion, def dense.Vec3) dense.Vec3 {
	if mo != nil && mo.Pivot != nil {
		return dense.Vec3(*mo.Pivot)
	}
	return def
}

// geomCenter is an obstacle's centre: a capsule's midpoint, else Center.
func geomCenter(o model.Obstacle) dense.Vec3 {
	if o.Kind == geom.Capsule {
		return o.A.Add(o.B).Scale(0.5)
	}
	return o.Center
}

func (s *Scene) bodyModel(bi int, remeshAll bool) (model.Body, error) {
	b := &s.Bodies[bi]
	sheet, err := BuildSheet(b)
	if err != nil {
		return model.Body{}, fmt.Errorf("bodies[%d]: %w", bi, err)
	}
	if s.Solver.Mode == ModeIrregular {
		if err := sheet.Jitter(b, 0.3, uint64(bi)); err != nil {
			return model.Body{}, fmt.Errorf("bodies[%d]: %w", bi, err)
		}
	}
	mat := b.Material
	mb := model.Body{Name: b.Name, NX: sheet.NX, NY: sheet.NY, Rest: sheet.Rest, Pos: sheet.Pos, Faces: sheet.Faces,
		FaceU: sheet.FaceU, Hinges: sheet.Hinges, HingeFaces: sheet.HingeFaces,
		Material: model.Material{Density: mat.Density, StretchStiffness: mat.StretchStiffness, ShearStiffness: mat.ShearStiffness,
			BendingStiffness: mat.BendingStiffness, MassDamping: mat.MassDamping, StiffnessDamping: mat.StiffnessDamping}}
	for pi, v := range sheet.Pinned {
		p := b.Pins[pi]
		mb.Pins = append(mb.Pins, model.Pin{Vertex: v, Motion: motion(p.Motion), Pivot: pivot(p.Motion, dense.Vec3(b.Position)), Release: p.Release})
	}
	switch r := b.Remesh; {
	case r != nil && s.Solver.Mode != ModeRegular && s.Solver.Mode != ModeIrregular:
		mb.Remesh = &model.Remesh{Every: r.Every, SizeMin: r.SizeMin, SizeMax: r.SizeMax, AspectMin: r.AspectMin,
			RefineAngle: r.RefineAngle, RefineCompression: r.RefineCompression, RefineVelocity: r.RefineVelocity, MaxFaces: MaxRemeshFaces}
	case remeshAll:
		mb.Remesh = &model.Remesh{MaxFaces: MaxRemeshFaces}
	}
	mb.Model, mb.Developable = developableModel(b)
	if l := b.StrainLimits; l != nil {
		mb.StrainLimits = &model.StrainLimits{Min: l.Min, Max: l.Max}
		if l.Method == StrainJacobi {
			mb.StrainLimits.Method = model.Jacobi
		}
	}
	return mb, nil
}

func rodsModel(r *Rods) (*model.Rods, error) {
	m := &model.Rods{EIL: r.EIL, Friction: r.Friction, PairFriction: r.PairFriction, ContactDistance: r.ContactDistance, ReleaseSteps: r.ReleaseSteps, ProjectBend: r.ProjectBend,
		DegenerateRestart: r.DegenerateRestart, PredictContacts: r.PredictContacts}
	switch r.Linear {
	case RodLinearDirect:
		m.Linear = model.RodDirect
	case RodLinearIterative:
		m.Linear = model.RodIterative
	case RodLinearLagged:
		m.Linear = model.RodLagged
	}
	index := map[string]int{}
	for si := range r.Strands {
		s := &r.Strands[si]
		index[s.Name] = si
		ms := model.Strand{Name: s.Name, Pos: s.NodePositions(), Length: s.Length(), Fixed: s.Fixed,
			RestCurved: len(s.Points) > 0, Radius: s.Radius,
			Material: model.RodMaterial{StretchStiffness: s.Material.StretchStiffness, BendingStiffness: s.Material.BendingStiffness,
				LinearDensity: s.Material.LinearDensity, Damping: s.Material.Damping}}
		for _, p := range s.Pins {
			ms.Pins = append(ms.Pins, model.RodPin{Node: s.PinNode(p.Node), Motion: motion(p.Motion), Pivot: pivot(p.Motion, dense.Vec3{})})
		}
		m.Strands = append(m.Strands, ms)
	}
	for _, e := range r.EdgeNodes {
		m.EdgeNodes = append(m.EdgeNodes, model.EdgeNode{Strand: index[e.Strand], U: e.U, A: e.A, B: e.B})
	}
	for fi := range r.Fabrics {
		if err := fabricStrands(m, fi, &r.Fabrics[fi]); err != nil {
			return nil, err
		}
	}
	return m, nil
}
