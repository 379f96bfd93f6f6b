//go:build !(amd64 || arm64) || purego

package lazy

import "runtime"

// goid returns the current goroutine's id, parsed from its stack header
// (platforms without the one-instruction form).
func goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	s := buf[:n]
	const prefix = "goroutine "
	if len(s) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range s[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
