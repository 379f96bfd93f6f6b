package gentrace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

// ParseShape reads a shape in the form the fx and lazy printers use:
// an MLIR element type and static dimensions, "f32[64,784]", "i32[]",
// "ui8[3]", "bf16[2,2]", "i1[4]" (bool).
func ParseShape(s string) (lazy.Shape, error) {
	open := strings.IndexByte(s, '[')
	if open < 0 || !strings.HasSuffix(s, "]") {
		return lazy.Shape{}, fmt.Errorf("shape %q: want DTYPE[D0,D1,...], e.g. f32[64,784] (f32[] for a scalar)", s)
	}
	name := s[:open]
	dt, ok := hlo.DTypeByName(name)
	if !ok {
		return lazy.Shape{}, fmt.Errorf("shape %q: unknown element type %q (want one of %s)", s, name, dtypeList())
	}
	body := s[open+1 : len(s)-1]
	var dims []int64
	if strings.TrimSpace(body) != "" {
		for _, part := range strings.Split(body, ",") {
			d, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
			if err != nil || d < 0 {
				return lazy.Shape{}, fmt.Errorf("shape %q: dimension %q is not a non-negative integer (ahead-of-time traces have static shapes)", s, part)
			}
			dims = append(dims, d)
		}
	}
	sh, err := lazy.NewShapeE(dt, dims...)
	if err != nil {
		return lazy.Shape{}, fmt.Errorf("shape %q: %v", s, err)
	}
	return sh, nil
}

// dtypeList names the element types a directive may use.
func dtypeList() string {
	all := hlo.AllDTypes()
	names := make([]string, 0, len(all))
	for _, d := range all {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}
