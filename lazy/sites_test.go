package lazy

import (
	"runtime"
	"testing"
)

// TestSkipInSites: a registered package's functions (methods and generic
// instances too) are passed over by sites; its sub-packages, packages
// whose path merely starts alike and its external tests are not.
func TestSkipInSites(t *testing.T) {
	old := sitePkgs.Load()
	t.Cleanup(func() { sitePkgs.Store(old) })
	const pkg = "example.com/up"
	frame := func(fn string) runtime.Frame { return runtime.Frame{Function: fn, File: "/src/up/up.go"} }
	skipped := []string{pkg + ".F", pkg + ".(*T).M", pkg + ".G[...]", pkg + ".init.0"}
	kept := []string{pkg + "/sub.F", pkg + "per.F", pkg + "_test.TestF", "example.com/other.F"}
	for _, fn := range skipped {
		if internalFrame(frame(fn)) {
			t.Errorf("%s passed over before %s registered", fn, pkg)
		}
	}
	SkipInSites(pkg)
	SkipInSites(pkg) // once is enough
	if n := len(*sitePkgs.Load()); old != nil && n != len(*old)+1 || old == nil && n != 1 {
		t.Errorf("registering twice kept %d entries", n)
	}
	for _, fn := range skipped {
		if !internalFrame(frame(fn)) {
			t.Errorf("%s not passed over after %s registered", fn, pkg)
		}
	}
	for _, fn := range kept {
		if internalFrame(frame(fn)) {
			t.Errorf("%s passed over, but only %s is registered", fn, pkg)
		}
	}
}
