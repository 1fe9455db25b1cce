package export

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

// viewerPage is the browser viewer: one self-contained HTML page (its
// script inline, nothing from the network) that fetches frames.json and
// stats.jsonl from the server that served it, plays the frames with orbit
// controls and a timeline, and plots a chosen stats field.
//
//go:embed viewer.html
var viewerPage []byte

// Viewer returns the handler behind loom view: the page at /, the frames at
// /frames.json ({"frames": [{"time", "meshes": [{"name", "role", "pos"
// (x, y, z flat), "faces" (flat, 0-based), "lines"}]}]}) and the run's
// stats.jsonl as given.
func Viewer(frames []Frame, stats []byte) http.Handler {
	type mesh struct {
		Name  string    `json:"name"`
		Role  string    `json:"role"`
		Pos   []float32 `json:"pos"`
		Faces []int32   `json:"faces"`
		Lines [][]int32 `json:"lines"`
	}
	type frame struct {
		Time   float64 `json:"time"`
		Meshes []mesh  `json:"meshes"`
	}
	out := struct {
		Frames []frame `json:"frames"`
	}{}
	for _, f := range frames {
		fr := frame{Time: f.Time, Meshes: []mesh{}}
		for _, m := range f.Meshes {
			jm := mesh{Name: m.Name, Role: m.Role, Pos: make([]float32, 0, 3*len(m.Pos)), Faces: make([]int32, 0, 3*len(m.Faces)), Lines: m.Lines}
			for _, p := range m.Pos {
				jm.Pos = append(jm.Pos, float32(p[0]), float32(p[1]), float32(p[2]))
			}
			for _, t := range m.Faces {
				jm.Faces = append(jm.Faces, t[:]...)
			}
			fr.Meshes = append(fr.Meshes, jm)
		}
		out.Frames = append(out.Frames, fr)
	}
	framesJSON, err := json.Marshal(out)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(viewerPage)
	})
	mux.HandleFunc("GET /frames.json", func(w http.ResponseWriter, r *http.Request) {
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(framesJSON)
	})
	mux.HandleFunc("GET /stats.jsonl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write(stats)
	})
	return mux
}
