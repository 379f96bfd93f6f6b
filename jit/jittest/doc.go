// Package jittest makes assertions on jit and lazy statistics short in
// users' tests:
//
//	jittest.ExpectCompiles(t, 1, func() { step(x, y) })
//	jittest.ExpectNoRecompile(t, step, func() { for range 10 { step(x, y) } })
//	jittest.ExpectCounters(t, map[string]int64{"ExecuteCount": 3}, func() { ... })
//
// Place in the flow: a test helper beside package jit; it imports jit and
// lazy only.
package jittest
