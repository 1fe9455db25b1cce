package loom

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
)

// segmentDistance is the distance from p to segment a-b (written here, not
// shared with solver/geom, so that it checks it).
func segmentDistance(p, a, b [3]float64) float64 {
	var ab, ap [3]float64
	var abab, apab float64
	for k := range 3 {
		ab[k], ap[k] = b[k]-a[k], p[k]-a[k]
		abab += ab[k] * ab[k]
		apab += ap[k] * ab[k]
	}
	t := 0.0
	if abab > 0 {
		t = min(max(apab/abab, 0), 1)
	}
	var d2 float64
	for k := range 3 {
		d := ap[k] - t*ab[k]
		d2 += d * d
	}
	return math.Sqrt(d2)
}

// rotate turns v by unit quaternion q = {x, y, z, w}.
func rotate(q [4]float64, v [3]float64) [3]float64 {
	// v' = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z).
	u := [3]float64{q[0], q[1], q[2]}
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	uv := cross(u, v)
	uuv := cross(u, uv)
	return [3]float64{v[0] + 2*(q[3]*uv[0]+uuv[0]), v[1] + 2*(q[3]*uv[1]+uuv[1]), v[2] + 2*(q[3]*uv[2]+uuv[2])}
}

// TestCapeFollowsCharacter drives the character from outside for 1 s: the
// collar rides on it (each attached vertex keeps its position in the
// character's frame) and the buffers are consistent (unit normals, indices
// in range).
func TestCapeFollowsCharacter(t *testing.T) {
	s, b, ch := loadCape(t, 12, Options{Workers: 2})
	defer s.Close()
	collar := topRow(t, s, b)
	n, _ := s.VertexCount(b)
	pos := make([]float32, 3*n)
	s.Positions(b, pos)
	p0, q0 := walk(0, s.Dt())
	if got, _, _ := s.ObstaclePose(ch); got != p0 {
		t.Fatalf("initial character centre %v, want %v", got, p0)
	}
	_ = q0
	local := make([][3]float64, len(collar)) // in the character's frame (initially unturned)
	for k, v := range collar {
		for d := range 3 {
			local[k][d] = float64(pos[3*v+d]) - p0[d]
		}
	}
	const frames = 120
	for i := 1; i <= frames; i++ {
		p, q := walk(i, s.Dt())
		if err := s.SetObstaclePose(ch, p, q); err != nil {
			t.Fatal(err)
		}
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	p, q := walk(frames, s.Dt())
	gp, gq, _ := s.ObstaclePose(ch)
	for d := range 3 {
		if math.Abs(gp[d]-p[d]) > 1e-12 || math.Abs(math.Abs(gq[d])-math.Abs(q[d])) > 1e-12 {
			t.Fatalf("character pose %v %v, set %v %v", gp, gq, p, q)
		}
	}
	s.Positions(b, pos)
	for k, v := range collar {
		want := rotate(q, local[k])
		for d := range 3 {
			if e := math.Abs(float64(pos[3*v+d]) - (p[d] + want[d])); e > 1e-5 {
				t.Fatalf("collar vertex %d at %v, want %v (error %g)", v, pos[3*v:3*v+3], want, e)
			}
		}
	}
	nrm := make([]float32, 3*n)
	if _, err := s.Normals(b, nrm); err != nil {
		t.Fatal(err)
	}
	for v := range n {
		l := math.Sqrt(float64(nrm[3*v]*nrm[3*v] + nrm[3*v+1]*nrm[3*v+1] + nrm[3*v+2]*nrm[3*v+2]))
		if math.Abs(l-1) > 1e-5 {
			t.Fatalf("normal %d has length %g", v, l)
		}
	}
	nt, _ := s.TriangleCount(b)
	tri := make([]uint32, 3*nt)
	if _, err := s.Triangles(b, tri); err != nil {
		t.Fatal(err)
	}
	for _, i := range tri {
		if int(i) >= n {
			t.Fatalf("triangle index %d >= %d vertices", i, n)
		}
	}
	st := s.Stats()
	if st.Step != frames || st.Vertices != n || st.Faces != nt {
		t.Errorf("stats %+v", st)
	}
}

// TestObstacleVelocityFromPoses: the velocity and angular velocity the
// contacts see are the finite differences of the poses set, and
// SetObstacleVelocity lands where its velocities say.
func TestObstacleVelocityFromPoses(t *testing.T) {
	s, _, ch := loadCape(t, 6, Options{Workers: 1})
	defer s.Close()
	h := s.Dt()
	sl, _ := s.obstacle(ch)
	p0, _, _ := s.ObstaclePose(ch)
	a := 0.1
	q := [4]float64{0, 0, math.Sin(a / 2), math.Cos(a / 2)}
	p1 := [3]float64{p0[0] + 0.01, p0[1] - 0.02, p0[2] + 0.005}
	if err := s.SetObstaclePose(ch, p1, q); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	o := s.acc.Obstacle(sl.ent)
	wantV := dense.Vec3{0.01 / h, -0.02 / h, 0.005 / h}
	wantW := dense.Vec3{0, 0, a / h}
	if o.Vel.Sub(wantV).Norm() > 1e-9*wantV.Norm() || o.Omega.Sub(wantW).Norm() > 1e-9*wantW.Norm() {
		t.Fatalf("obstacle velocity %v omega %v, want %v %v", o.Vel, o.Omega, wantV, wantW)
	}
	// Not set again: it rests.
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if o := s.acc.Obstacle(sl.ent); o.Vel.Norm() != 0 || o.Omega.Norm() != 0 {
		t.Fatalf("obstacle left alone moves at %v %v", o.Vel, o.Omega)
	}
	v, w := [3]float64{0.3, 0, -0.1}, [3]float64{0, 0, 2}
	if err := s.SetObstacleVelocity(ch, v, w); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	p2, q2, _ := s.ObstaclePose(ch)
	for d := range 3 {
		if math.Abs(p2[d]-(p1[d]+h*v[d])) > 1e-12 {
			t.Fatalf("after SetObstacleVelocity the centre is at %v, want %v + h %v", p2, p1, v)
		}
	}
	if got := 2 * math.Atan2(q2[2], q2[3]); math.Abs(got-(a+h*2)) > 1e-12 {
		t.Fatalf("after SetObstacleVelocity the character is turned %g rad, want %g", got, a+h*2)
	}
	if o := s.acc.Obstacle(sl.ent); math.Abs(o.Omega[2]-2) > 1e-9 || math.Abs(o.Vel[0]-0.3) > 1e-9 {
		t.Fatalf("obstacle velocity %v omega %v, want %v %v", o.Vel, o.Omega, v, w)
	}
}

// TestBadInput: every misuse is an error naming it, never a panic.
func TestBadInput(t *testing.T) {
	s, b, ch := loadCape(t, 6, Options{Workers: 1})
	defer s.Close()
	other, ob, _ := loadCape(t, 6, Options{Workers: 1})
	defer other.Close()
	ground, _ := s.Obstacle("ground")
	nan := math.NaN()
	check := func(what string, err, want error, mention string) {
		t.Helper()
		if !errors.Is(err, want) || !strings.Contains(err.Error(), mention) {
			t.Errorf("%s: got %v, want %v mentioning %q", what, err, want, mention)
		}
	}
	_, err := s.Positions(ob, make([]float32, 1000))
	check("another Sim's body", err, ErrStaleHandle, "body handle")
	_, err = s.Positions(b, make([]float32, 5))
	check("short positions", err, ErrBufferTooSmall, "positions of \"cape\" need 72 values, got 5")
	_, err = s.Normals(b, nil)
	check("short normals", err, ErrBufferTooSmall, "normals")
	_, err = s.Triangles(b, make([]uint32, 3))
	check("short triangles", err, ErrBufferTooSmall, "triangles")
	check("NaN position", s.SetObstaclePose(ch, [3]float64{nan, 0, 0}, [4]float64{0, 0, 0, 1}), ErrInvalidValue, "not finite")
	check("zero quaternion", s.SetObstaclePose(ch, [3]float64{}, [4]float64{}), ErrInvalidValue, "zero quaternion")
	check("Inf velocity", s.SetObstacleVelocity(ch, [3]float64{math.Inf(1), 0, 0}, [3]float64{}), ErrInvalidValue, "not finite")
	check("turning a plane", s.SetObstaclePose(ground, [3]float64{}, [4]float64{1, 0, 0, 1}), ErrInvalidValue, "plane")
	check("vertex out of range", s.Pin(b, 24), ErrInvalidValue, "vertex 24 of body \"cape\": out of range [0, 24)")
	check("unpin a free vertex", s.Unpin(b, 0), ErrInvalidValue, "not pinned")
	_, err = s.AddObstacle(scenes.Obstacle{Name: "ball", Type: scenes.Sphere, Radius: -1})
	check("bad obstacle", err, ErrInvalidValue, "radius")
	_, err = s.AddObstacle(scenes.Obstacle{Name: "ground", Type: scenes.Plane, Normal: [3]float64{0, 0, 1}})
	check("duplicate name", err, ErrInvalidValue, "exists")
	if err := s.RemoveObstacle(ground); err != nil {
		t.Fatal(err)
	}
	check("removed obstacle", s.SetObstaclePose(ground, [3]float64{}, [4]float64{0, 0, 0, 1}), ErrStaleHandle, "obstacle handle")
	check("removed twice", s.RemoveObstacle(ground), ErrStaleHandle, "obstacle handle")
	// Its slot reused: the old handle stays stale.
	ball, err := s.AddObstacle(scenes.Obstacle{Name: "ball", Type: scenes.Sphere, Center: [3]float64{0, 2, 0}, Radius: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if uint32(ball) != uint32(ground) || ball == Obstacle(ground) {
		t.Fatalf("slot not reused with a new generation: %#x after %#x", ball, ground)
	}
	check("stale after reuse", s.SetObstacleVelocity(ground, [3]float64{}, [3]float64{}), ErrStaleHandle, "obstacle handle")
	check("zero handle", s.SetObstacleVelocity(0, [3]float64{}, [3]float64{}), ErrStaleHandle, "obstacle handle")
	_, err = LoadBytes([]byte(`{"name": "x", "dt": 0.01, "colour": 3}`), Options{})
	if err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown field: got %v", err)
	}
	_, err = Load("no-such-scene.json", Options{})
	if err == nil {
		t.Error("missing file loaded")
	}
	if _, err := LoadScene(nil, Options{}); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("nil scene: %v", err)
	}
	other.Close()
	_, err = other.Positions(ob, make([]float32, 1000))
	check("closed Sim", err, ErrClosed, "closed")
	check("step closed Sim", other.Step(), ErrClosed, "closed")
}

// TestAddRemoveObstacle: a sphere added under a falling sheet catches it;
// removed, it lets the sheet fall.
func TestAddRemoveObstacle(t *testing.T) {
	sc := CapeScene(8)
	sc.Bodies[0].Orientation = [3]float64{}
	sc.Bodies[0].Position = [3]float64{0, 3, 1.2}
	s, err := LoadScene(sc, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ball, err := s.AddObstacle(scenes.Obstacle{Name: "ball", Type: scenes.Sphere, Center: [3]float64{0, 3, 0.8}, Radius: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Body("cape")
	n, _ := s.VertexCount(b)
	pos := make([]float32, 3*n)
	lowest := func() float64 {
		s.Positions(b, pos)
		z := math.Inf(1)
		for v := range n {
			z = min(z, float64(pos[3*v+2]))
		}
		return z
	}
	for range 120 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	// Draped over the ball: its highest point is near the ball's top (1.1
	// m; the grid has no vertex right above the centre), no vertex is
	// inside it, and the sheet rests on it: the obstacle fail-safe keeps
	// the ball out of the faces too, so the surface's closest point to the
	// centre (sampled on each face, 1/200 of an edge apart) lies the contact
	// thickness (5 mm) off the ball, not more. (A vertex's height says
	// little: a tilted face of this coarse grid that touches the ball near
	// its top lifts its upper vertex a centimetre or two above it.)
	s.Positions(b, pos)
	top, inside := math.Inf(-1), 0.0
	centre := [3]float64{0, 3, 0.8}
	at := func(v uint32) [3]float64 {
		return [3]float64{float64(pos[3*v]), float64(pos[3*v+1]), float64(pos[3*v+2])}
	}
	for v := range n {
		x := at(uint32(v))
		top = max(top, x[2])
		inside = max(inside, 0.3-segmentDistance(x, centre, centre))
	}
	nt, _ := s.TriangleCount(b)
	tri := make([]uint32, 3*nt)
	if _, err := s.Triangles(b, tri); err != nil {
		t.Fatal(err)
	}
	closest := math.Inf(1)
	const k = 200
	for f := range nt {
		p, q, r := at(tri[3*f]), at(tri[3*f+1]), at(tri[3*f+2])
		for i := 0; i <= k; i++ {
			for j := 0; i+j <= k; j++ {
				a, c := float64(i)/k, float64(j)/k
				var x [3]float64
				for d := range 3 {
					x[d] = (1-a-c)*p[d] + a*q[d] + c*r[d]
				}
				closest = min(closest, segmentDistance(x, centre, centre))
			}
		}
	}
	if top < 1.08 || inside > 1e-4 || closest < 0.3-1e-4 || closest > 0.3+0.005+0.001 {
		t.Fatalf("the sheet's top is at z = %g (want near the ball's top, 1.1), a vertex %g m inside, its surface %g m from the centre (want the radius 0.3 + the 5 mm thickness)", top, inside, closest)
	}
	if err := s.RemoveObstacle(ball); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if z := lowest(); z > 0.6 {
		t.Fatalf("after removing the ball the sheet's lowest point is at %g: it did not fall", z)
	}
}

// TestPinUnpin: a pinned vertex of a falling sheet stays exactly where it
// was while the rest falls; unpinned, it falls too.
func TestPinUnpin(t *testing.T) {
	sc := CapeScene(6)
	sc.Bodies[0].Orientation = [3]float64{}
	sc.Bodies[0].Position[1] = -0.6 // clear of the character
	s, err := LoadScene(sc, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, _ := s.Body("cape")
	n, _ := s.VertexCount(b)
	pos := make([]float32, 3*n)
	s.Positions(b, pos)
	const v = 0 // a corner
	before := [3]float32(pos[3*v : 3*v+3])
	top0, _ := s.Topology(b)
	if err := s.Pin(b, v); err != nil {
		t.Fatal(err)
	}
	if top1, _ := s.Topology(b); top1 == top0 {
		t.Error("pinning did not change the topology counter")
	}
	for range 30 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	s.Positions(b, pos)
	if got := [3]float32(pos[3*v : 3*v+3]); got != before {
		t.Fatalf("pinned vertex moved from %v to %v", before, got)
	}
	if far := pos[3*(n-1)+2]; far > before[2]-0.01 {
		t.Fatalf("the far corner did not fall: z %g", far)
	}
	if err := s.Unpin(b, v); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	s.Positions(b, pos)
	if pos[3*v+2] >= before[2]-0.05 {
		t.Fatalf("unpinned vertex did not fall: z %g -> %g", before[2], pos[3*v+2])
	}
}

// TestDrivenMatchesScripted: the character moved from outside, pose by
// pose, gives the cape the trajectory it gets when the scene's own motion
// script moves it the same way (walking at 1.2 m/s, turning at 0.3 rad/s):
// the contacts see the same obstacle velocities. The two differ only by
// the rounding of the poses.
func TestDrivenMatchesScripted(t *testing.T) {
	const omega = 0.3 // rad/s
	run := func(scripted bool) []dense.Vec3 {
		sc := CapeScene(10)
		if scripted {
			sc.Obstacles[0].Motion = &scenes.Motion{Velocity: &[3]float64{0, 1.2, 0}, AngularVelocity: &[3]float64{0, 0, omega * 180 / math.Pi}}
		}
		s, err := LoadScene(sc, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		b, _ := s.Body("cape")
		ch, _ := s.Obstacle("character")
		for _, v := range topRow(t, s, b) {
			if err := s.Attach(b, v, ch); err != nil {
				t.Fatal(err)
			}
		}
		for i := 1; i <= 120; i++ {
			if !scripted {
				tt := float64(i) * s.Dt()
				a := omega * tt
				if err := s.SetObstaclePose(ch, [3]float64{0, 1.2 * tt, 0.8}, [4]float64{0, 0, math.Sin(a / 2), math.Cos(a / 2)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return s.acc.AppendPositions(0, nil)
	}
	driven, scripted := run(false), run(true)
	worst := 0.0
	for k := range driven {
		worst = max(worst, driven[k].Sub(scripted[k]).Norm())
	}
	if worst > 1e-5 {
		t.Fatalf("driven and scripted capes differ by up to %g m", worst)
	}
	t.Logf("driven and scripted capes differ by up to %g m after 1 s", worst)
}

// TestNoAllocsPerStep: a steady-state frame of a game loop (set the
// character's pose, step, read positions, normals and triangles) on a
// Lagrangian scene allocates nothing.
func TestNoAllocsPerStep(t *testing.T) {
	s, b, ch := loadCape(t, 16, Options{Workers: 2})
	defer s.Close()
	n, _ := s.VertexCount(b)
	nt, _ := s.TriangleCount(b)
	pos, nrm, tri := make([]float32, 3*n), make([]float32, 3*n), make([]uint32, 3*nt)
	i := 0
	frame := func() {
		i++
		p, q := walk(i, s.Dt())
		if err := s.SetObstaclePose(ch, p, q); err != nil {
			t.Fatal(err)
		}
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		s.Positions(b, pos)
		s.Normals(b, nrm)
		s.Triangles(b, tri)
	}
	for range 30 {
		frame()
	}
	if a := testing.AllocsPerRun(30, frame); a != 0 {
		t.Errorf("%g allocations per frame, want 0", a)
	}
}

// TestStrandPositions: a strand's buffer holds its nodes in order along it
// (the engine's polyline), as float32.
func TestStrandPositions(t *testing.T) {
	s, err := Load("rod-hang", Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 10 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	strands := s.Strands()
	if len(strands) == 0 {
		t.Fatal("rod-hang has no strands")
	}
	for r, h := range strands {
		n, err := s.StrandNodeCount(h)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]float32, 3*n)
		if k, err := s.StrandPositions(h, buf); err != nil || k != n {
			t.Fatalf("strand %d: %d nodes, %v", r, k, err)
		}
		for k, x := range s.sim.Rods.Step.Polyline(r) {
			for d := range 3 {
				if buf[3*k+d] != float32(x[d]) {
					t.Fatalf("strand %d node %d: %v, polyline %v", r, k, buf[3*k:3*k+3], x)
				}
			}
		}
		if _, err := s.StrandPositions(h, buf[:3*n-1]); !errors.Is(err, ErrBufferTooSmall) {
			t.Errorf("short strand buffer: %v", err)
		}
	}
	if _, err := s.StrandPositions(Strand(pack(s.serial, len(strands))), nil); !errors.Is(err, ErrStaleHandle) {
		t.Errorf("strand out of range: %v", err)
	}
	if _, err := s.Strand("no-such-strand"); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("unknown strand: %v", err)
	}
}

// TestNormalsAreaWeighted: after the cape has swung for 40 frames, each
// vertex normal is the normalized sum of its faces' cross products
// (x1-x0) x (x2-x0), recomputed here from Positions and Triangles.
func TestNormalsAreaWeighted(t *testing.T) {
	s, b, ch := loadCape(t, 12, Options{Workers: 1})
	defer s.Close()
	for i := range 40 {
		p, q := walk(i+1, s.Dt())
		if err := s.SetObstaclePose(ch, p, q); err != nil {
			t.Fatal(err)
		}
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	n, _ := s.VertexCount(b)
	nt, _ := s.TriangleCount(b)
	pos, nrm, tri := make([]float32, 3*n), make([]float32, 3*n), make([]uint32, 3*nt)
	s.Positions(b, pos)
	s.Normals(b, nrm)
	s.Triangles(b, tri)
	sum := make([][3]float64, n)
	for f := 0; f < len(tri); f += 3 {
		var x [3][3]float64
		for k := range 3 {
			for d := range 3 {
				x[k][d] = float64(pos[3*tri[f+k]+uint32(d)])
			}
		}
		u := [3]float64{x[1][0] - x[0][0], x[1][1] - x[0][1], x[1][2] - x[0][2]}
		w := [3]float64{x[2][0] - x[0][0], x[2][1] - x[0][1], x[2][2] - x[0][2]}
		c := [3]float64{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}
		for k := range 3 {
			for d := range 3 {
				sum[tri[f+k]][d] += c[d]
			}
		}
	}
	bent := 0
	for v := range n {
		l := math.Sqrt(sum[v][0]*sum[v][0] + sum[v][1]*sum[v][1] + sum[v][2]*sum[v][2])
		for d := range 3 {
			if e := math.Abs(float64(nrm[3*v+d]) - sum[v][d]/l); e > 1e-4 {
				t.Fatalf("vertex %d: normal %v, want %v", v, nrm[3*v:3*v+3], [3]float64{sum[v][0] / l, sum[v][1] / l, sum[v][2] / l})
			}
		}
		if math.Abs(sum[v][1]/l) < 0.99 {
			bent++
		}
	}
	if bent == 0 {
		t.Fatal("every normal is along y: the cape has not moved, the test checks nothing")
	}
}
