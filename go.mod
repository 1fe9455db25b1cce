module github.com/loomsim/loom

go 1.26

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/mlange-42/arche v0.15.3
	github.com/schollz/progressbar/v3 v3.19.1
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/qmuntal/gltf v0.28.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/term v0.44.0 // indirect
	golang.org/x/tools v0.30.0 // indirect
)
