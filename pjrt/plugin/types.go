package plugin

import "github.com/xlajit/xlajit/pjrt"

// Info describes a plugin file that was loaded (and, for Inspect, a client
// that was opened on it).
type Info struct {
	Path       string
	API        APIInfo
	Attributes map[string]string // PJRT_Plugin_Attributes (xla_version, stablehlo versions, ...)
	// Filled by Inspect:
	Platform        string
	PlatformVersion string
	Devices         []pjrt.Device
}

// Installation is one discovered plugin file and what loading it gave.
type Installation struct {
	Candidate
	Info *Info // nil when Err is set
	Err  error
}
