package jit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// TestErrorSiteIsTheCallersLine: an error lazy raises inside the jit's own
// code (here computing pending arguments that live on two devices) names
// the line that called the compiled function, not a line of package jit.
func TestErrorSiteIsTheCallersLine(t *testing.T) {
	devA := lazy.DevicesOf(host.NewClient(1))[0]
	devB := lazy.DevicesOf(host.NewClient(1))[0]
	x := lazy.FullOn(devA, lazy.F32, 1, 2).AddScalar(1)
	y := lazy.FullOn(devB, lazy.F32, 1, 2).AddScalar(1)
	f := jit.Compile(func(a, b *lazy.Tensor) (*lazy.Tensor, error) { return a, nil })
	_, err := f(x, y)
	var le *lazy.Error
	if !errors.As(err, &le) || !strings.HasPrefix(le.Site, "jit/site_test.go:") {
		t.Fatalf("error %v (site %q), want a *lazy.Error at jit/site_test.go", err, siteOf(le))
	}
}

func siteOf(e *lazy.Error) string {
	if e == nil {
		return ""
	}
	return e.Site
}
