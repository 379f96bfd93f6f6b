package plugin

import (
	"path/filepath"
	"strings"
)

// specKind says what a PJRT_DEVICE value names.
type specKind int

const (
	specPath specKind = iota // a file
	specCUDA                 // NVIDIA GPU plugin
	specTPU                  // libtpu
	specName                 // a plugin name searched in the plugin directories
)

// parseSpec classifies a PJRT_DEVICE value; for specPath the value is made
// absolute, for specName it is lower-cased.
func parseSpec(spec string) (specKind, string) {
	s := strings.TrimSpace(spec)
	if strings.ContainsRune(s, '/') || strings.HasSuffix(s, ".so") || strings.Contains(s, ".so.") {
		if abs, err := filepath.Abs(s); err == nil {
			s = abs
		}
		return specPath, s
	}
	switch strings.ToUpper(s) {
	case "CUDA", "GPU":
		return specCUDA, "cuda"
	case "TPU":
		return specTPU, "tpu"
	}
	return specName, strings.ToLower(s)
}
