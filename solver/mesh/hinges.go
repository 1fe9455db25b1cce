package mesh

import "slices"

// Hinges returns one hinge (a, b, c, d) per interior edge of faces (see
// HingesWithFaces).
func Hinges(faces [][3]int32, nverts int) [][4]int32 {
	h, _ := HingesWithFaces(faces, nverts)
	return h
}

// HingesWithFaces returns the hinges of faces, whose corners are vertices
// 0 to nverts-1, and per hinge its two faces (see HingeBuilder.Append for
// which and in what order).
func HingesWithFaces(faces [][3]int32, nverts int) ([][4]int32, [][2]int32) {
	var hb HingeBuilder
	return hb.Append(nil, nil, faces, nverts)
}

// HingeBuilder finds the hinges of triangle meshes (HingesWithFaces) with
// storage that it reuses from one mesh to the next.
type HingeBuilder struct {
	inc Incidence
}

// Append appends the hinges of faces, whose corners are vertices 0 to
// nverts-1, to hinges and their face pairs to hingeFaces, and returns the
// extended slices: for each face f and each of its edges a->b with a <= b in
// turn, a hinge (a, b, c, d) when a face g holds the edge b->a (when several
// do, the last in face order), c being f's third vertex and d g's (as the
// sum of g's vertices less a and b), with the face pair (f, g).
func (hb *HingeBuilder) Append(hinges [][4]int32, hingeFaces [][2]int32, faces [][3]int32, nverts int) ([][4]int32, [][2]int32) {
	hb.inc.Build(faces, nil, nverts)
	start, fs, next := hb.inc.Start, hb.inc.Faces, hb.inc.Next
	// A closed manifold mesh has 3/2 hinges per face; a sheet a few less.
	hinges, hingeFaces = slices.Grow(hinges, 3*len(faces)/2), slices.Grow(hingeFaces, 3*len(faces)/2)
	for fi, f := range faces {
		for e := range 3 {
			a, b := f[e], f[(e+1)%3]
			if a > b {
				continue // emitted from the other face (if interior)
			}
			// The last face, in face order, that holds b->a.
			for s := start[b+1] - 1; s >= start[b]; s-- {
				if next[s] != a {
					continue
				}
				g := fs[s]
				d := faces[g][0] + faces[g][1] + faces[g][2] - a - b
				hinges = append(hinges, [4]int32{a, b, f[(e+2)%3], d})
				hingeFaces = append(hingeFaces, [2]int32{int32(fi), g})
				break
			}
		}
	}
	return hinges, hingeFaces
}
