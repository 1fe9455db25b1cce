module github.com/loomsim/loom

go 1.26

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/mlange-42/arche v0.15.3
	github.com/qmuntal/gltf v0.28.0
	github.com/schollz/progressbar/v3 v3.19.1
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/term v0.44.0 // indirect
	golang.org/x/tools v0.30.0 // indirect
)
