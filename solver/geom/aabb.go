package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// AABB is an axis-aligned bounding box [Lo, Hi] for the broad phase: boxes
// prune pairs before the exact tests, so they must only skip pairs that
// cannot meet. The methods return new boxes; the empty box (EmptyAABB) is
// the identity of Grow and Union.
type AABB struct{ Lo, Hi dense.Vec3 }

// EmptyAABB returns the empty box (Lo = +Inf, Hi = -Inf).
func EmptyAABB() AABB {
	return AABB{Lo: dense.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, Hi: dense.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
}

// Bounds3 returns the bounding box of points a, b and c (a triangle's).
func Bounds3(a, b, c dense.Vec3) AABB {
	return AABB{
		Lo: dense.Vec3{min(a[0], b[0], c[0]), min(a[1], b[1], c[1]), min(a[2], b[2], c[2])},
		Hi: dense.Vec3{max(a[0], b[0], c[0]), max(a[1], b[1], c[1]), max(a[2], b[2], c[2])},
	}
}

// Grow returns b extended to hold point p.
func (b AABB) Grow(p dense.Vec3) AABB {
	for k := range 3 {
		b.Lo[k], b.Hi[k] = min(b.Lo[k], p[k]), max(b.Hi[k], p[k])
	}
	return b
}

// Union returns the smallest box holding b and c.
func (b AABB) Union(c AABB) AABB {
	b.Include(&c)
	return b
}

// Include grows b, in place, to the smallest box holding b and c: Union
// without copying the boxes, for loops over many.
func (b *AABB) Include(c *AABB) {
	for k := range 3 {
		b.Lo[k], b.Hi[k] = min(b.Lo[k], c.Lo[k]), max(b.Hi[k], c.Hi[k])
	}
}

// Pad returns b grown by d on every side.
func (b AABB) Pad(d float64) AABB {
	for k := range 3 {
		b.Lo[k], b.Hi[k] = b.Lo[k]-d, b.Hi[k]+d
	}
	return b
}

// Overlaps reports whether the closed boxes b and c intersect.
func (b *AABB) Overlaps(c *AABB) bool {
	for k := range 3 {
		if b.Lo[k] > c.Hi[k] || c.Lo[k] > b.Hi[k] {
			return false
		}
	}
	return true
}

// Apart reports whether c is more than margin away from b along some axis.
// It is written as that rejection so that NaN coordinates are never apart:
// the exact tests decide on them.
func (b *AABB) Apart(c *AABB, margin float64) bool {
	return c.Lo[0] > b.Hi[0]+margin || c.Hi[0] < b.Lo[0]-margin ||
		c.Lo[1] > b.Hi[1]+margin || c.Hi[1] < b.Lo[1]-margin ||
		c.Lo[2] > b.Hi[2]+margin || c.Hi[2] < b.Lo[2]-margin
}
