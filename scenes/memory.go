package scenes

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Bytes per simulated point, measured as the peak resident set over load
// and two steps (VmHWM, 1 worker): drape at resolution 64, 128 and 256 with
// PCG (14.7-14.9 KB per vertex), with LDL^T at 64 and 128 (22.6-24.2 KB),
// rod-hang at 10^4 and 10^5 nodes (6.8-7.0 KB per node); a fabric per
// node of its nodeEstimate (2 workers, the lagged factorization): pocket
// with two 180 x 180 layers (518,400 estimated, 389,520 built) 11.1 KB,
// with 240 x 240 and 222 x 222 (854,880 estimated, 625,596 built)
// 11.5 KB. The estimate rounds them up.
const (
	bytesPerVertexPCG  = 16 << 10
	bytesPerVertexLDLT = 28 << 10
	bytesPerRodNode    = 8 << 10
	bytesPerFabricNode = 12 << 10
)

// MemoryEstimate returns the memory (bytes) the scene needs by the measured
// costs above, and the field of its largest part: cloth vertices (a
// remeshed body's at least as many as size_max asks for) and rod nodes
// (a fabric's by its nodeEstimate, an upper bound).
func (s *Scene) MemoryEstimate() (bytes float64, field string) {
	per := float64(bytesPerVertexPCG)
	if s.Solver.Linear == LinearLDLT {
		per = bytesPerVertexLDLT
	}
	largest := 0.0
	for bi := range s.Bodies {
		b := &s.Bodies[bi]
		nx, ny := b.Grid()
		n := float64(nx) * float64(ny)
		f := fmt.Sprintf("bodies[%d].resolution", bi)
		if r := b.Remesh; r != nil && r.SizeMax > 0 {
			if m := b.Size[0] * b.Size[1] / (math.Sqrt(3) / 4 * r.SizeMax * r.SizeMax) / 2; m > n {
				n, f = m, fmt.Sprintf("bodies[%d].remesh.size_max", bi)
			}
		}
		bytes += per * n
		if per*n > largest {
			largest, field = per*n, f
		}
	}
	if r := s.Rods; r != nil {
		for si := range r.Strands {
			m := bytesPerRodNode * float64(r.Strands[si].Nodes)
			bytes += m
			if m > largest {
				largest, field = m, fmt.Sprintf("rods.strands[%d].nodes", si)
			}
		}
		for fi := range r.Fabrics {
			m := bytesPerFabricNode * r.Fabrics[fi].nodeEstimate()
			bytes += m
			if m > largest {
				largest, field = m, fmt.Sprintf("rods.fabrics[%d]", fi)
			}
		}
	}
	return bytes, field
}

// memoryAvailable returns the memory this process may still use (bytes):
// the least of MemAvailable (/proc/meminfo), the cgroup's memory.max and
// GOMEMLIMIT; +Inf when none is known.
func memoryAvailable() float64 {
	avail := math.Inf(1)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemAvailable:" {
				if k, err := strconv.ParseFloat(f[1], 64); err == nil {
					avail = min(avail, 1024*k)
				}
			}
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if m, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil {
			avail = min(avail, m)
		}
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		avail = min(avail, float64(l))
	}
	return avail
}

// checkMemory fails a scene whose estimate exceeds the memory available,
// before any mesh is built.
func (s *Scene) checkMemory() error {
	need, field := s.MemoryEstimate()
	if avail := memoryAvailable(); need > avail {
		return &FieldError{Source: s.source, Field: field, Reason: fmt.Sprintf("the scene needs about %.1f GB by loom's estimate (16 KB per cloth vertex with PCG, 28 KB with LDL^T, 8 KB per rod node), more than the %.1f GB available; lower it", need/1e9, avail/1e9)}
	}
	return nil
}
