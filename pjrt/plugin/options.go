package plugin

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clientOptions parses XLAJIT_PLUGIN_OPTIONS ("name=value,...") into the
// named values of PJRT_Client_Create: true/false become bools, integers
// int64, other numbers float32 (the only float the C API has), the rest
// strings.
func clientOptions() (map[string]any, error) {
	return parseOptions(os.Getenv("XLAJIT_PLUGIN_OPTIONS"))
}

func parseOptions(s string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("pjrt/plugin: XLAJIT_PLUGIN_OPTIONS: %q is not name=value", kv)
		}
		switch {
		case v == "true" || v == "false":
			out[k] = v == "true"
		default:
			if i, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[k] = i
			} else if f, err := strconv.ParseFloat(v, 32); err == nil {
				out[k] = float32(f)
			} else {
				out[k] = v
			}
		}
	}
	return out, nil
}
