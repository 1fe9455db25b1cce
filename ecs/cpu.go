package ecs

import (
	"fmt"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// CPUInfo describes the processor as cpuid reports it. Core counts are left
// out on purpose: inside virtual machines cpuid reports the host's.
type CPUInfo struct {
	Model    string
	L1Data   int // bytes, -1 if unknown
	L2       int // bytes, -1 if unknown
	Features []string
}

// CPU returns the processor description used by `loom bench`.
func CPU() CPUInfo {
	c := cpuid.CPU
	var feats []string
	for _, f := range []cpuid.FeatureID{cpuid.SSE2, cpuid.SSE4, cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.AVX512F, cpuid.ASIMD, cpuid.SVE} {
		if c.Supports(f) {
			feats = append(feats, f.String())
		}
	}
	return CPUInfo{Model: strings.TrimSpace(c.BrandName), L1Data: c.Cache.L1D, L2: c.Cache.L2, Features: feats}
}

// String formats the description on one line.
func (c CPUInfo) String() string {
	return fmt.Sprintf("%s, L1d %s, L2 %s, %s", c.Model, kib(c.L1Data), kib(c.L2), strings.Join(c.Features, " "))
}

func kib(b int) string {
	if b <= 0 {
		return "?"
	}
	return fmt.Sprintf("%d KiB", b/1024)
}
