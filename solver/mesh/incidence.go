package mesh

// Incidence is the vertex-face incidence of a triangle mesh in compressed
// rows (see the package doc): row r is Faces[Start[r]:Start[r+1]], the faces
// with a corner keyed r in increasing face order (a face with corners at k
// vertices keyed r is listed k times, corner order), and
// Next[Start[r]:Start[r+1]] the vertex after each of those corners, so that
// face Faces[s] holds the directed edge v->Next[s] from its corner's vertex
// v. The zero value is an empty incidence; Build reuses its storage.
type Incidence struct {
	Start []int32 // length rows+1
	Faces []int32 // length 3*len(faces)
	Next  []int32 // length 3*len(faces)
}

// Build makes in the incidence of faces, whose corners are vertices; with
// node nil the rows are the n vertices, else row node[v] gathers the
// corners at v (n nodes).
func (in *Incidence) Build(faces [][3]int32, node []int32, n int) {
	// Counting sort of the corners by row: start[r+2] counts row r's
	// corners, then, summed, start[r+1] is where row r begins and advances
	// over it as its corners are placed, ending where row r+1 begins.
	start := resize(in.Start, n+2)
	clear(start)
	if node == nil {
		for _, t := range faces {
			start[t[0]+2]++
			start[t[1]+2]++
			start[t[2]+2]++
		}
	} else {
		for _, t := range faces {
			start[node[t[0]]+2]++
			start[node[t[1]]+2]++
			start[node[t[2]]+2]++
		}
	}
	for r := 2; r < len(start); r++ {
		start[r] += start[r-1]
	}
	fs, nx := resize(in.Faces, 3*len(faces)), resize(in.Next, 3*len(faces))
	for f, t := range faces {
		for k := range 3 {
			r := t[k]
			if node != nil {
				r = node[r]
			}
			s := start[r+1]
			fs[s], nx[s] = int32(f), t[(k+1)%3]
			start[r+1]++
		}
	}
	in.Start, in.Faces, in.Next = start[:n+1], fs, nx
}

// Of returns the faces of row r.
func (in *Incidence) Of(r int) []int32 {
	return in.Faces[in.Start[r]:in.Start[r+1]]
}

// FaceWith returns the first face, in face order, that holds the directed
// edge a->b, or -1 (rows are vertices).
func (in *Incidence) FaceWith(a, b int32) int32 {
	for s := in.Start[a]; s < in.Start[a+1]; s++ {
		if in.Next[s] == b {
			return in.Faces[s]
		}
	}
	return -1
}

// HasEdge reports whether a face holds the directed edge a->b (rows are
// vertices). A face edge a->b is a border edge when !HasEdge(b, a).
func (in *Incidence) HasEdge(a, b int32) bool {
	for _, x := range in.Next[in.Start[a]:in.Start[a+1]] {
		if x == b {
			return true
		}
	}
	return false
}
