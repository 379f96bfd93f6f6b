package kernel

import (
	"sort"
	"sync"
)

// custom_call targets: stablehlo.custom_call (package control) compiles
// each op through the entry registered for its call_target_name, so a
// family declares the targets it implements next to its own ops (the check
// family its check.* targets) without control importing it.

var (
	targetMu sync.Mutex
	targets  = map[string]CompileFn{}
)

// RegisterTarget adds the compile function of a custom_call target. A
// second registration of one name is a programming error.
func RegisterTarget(name string, compile CompileFn) {
	targetMu.Lock()
	defer targetMu.Unlock()
	if _, dup := targets[name]; dup {
		panic("kernel: duplicate custom_call target " + name)
	}
	targets[name] = compile
}

// LookupTarget returns the compile function of a custom_call target (nil
// if none is registered).
func LookupTarget(name string) CompileFn {
	targetMu.Lock()
	defer targetMu.Unlock()
	return targets[name]
}

// TargetNames lists the registered custom_call targets, sorted.
func TargetNames() []string { return sortedKeys(&targetMu, targets) }

// sortedKeys lists the names of a table guarded by mu.
func sortedKeys[V any](mu *sync.Mutex, m map[string]V) []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
