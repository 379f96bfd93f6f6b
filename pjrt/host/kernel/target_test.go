package kernel

import (
	"slices"
	"strings"
	"testing"
)

func TestTargets(t *testing.T) {
	compile := func(c *OpCtx) (RunFn, error) { return nil, nil }
	RegisterTarget("test.target_b", compile)
	RegisterTarget("test.target_a", compile)
	if LookupTarget("test.target_a") == nil || LookupTarget("test.missing") != nil {
		t.Fatal("LookupTarget finds registered targets only")
	}
	names := TargetNames()
	if !slices.IsSorted(names) || !slices.Contains(names, "test.target_a") || !slices.Contains(names, "test.target_b") {
		t.Errorf("TargetNames() = %v, want both test targets, sorted", names)
	}
	mustPanic(t, "duplicate custom_call target test.target_a", func() { RegisterTarget("test.target_a", compile) })
}

func TestAlias(t *testing.T) {
	Register(Entry{Name: "test.original", Fresh: true, Compile: func(c *OpCtx) (RunFn, error) { return nil, nil }})
	a := Alias("test.alias", "test.original")
	if a.Name != "test.alias" || !a.Fresh || a.Compile == nil {
		t.Errorf("Alias = %+v, want the original entry under the alias name", a)
	}
	if Lookup("test.original").Name != "test.original" {
		t.Error("Alias changed the original entry")
	}
	mustPanic(t, "alias test.alias2 of unregistered op test.nothing", func() { Alias("test.alias2", "test.nothing") })
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("panic %v, want one containing %q", r, want)
		}
	}()
	f()
}
