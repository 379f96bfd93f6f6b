package host

import (
	"fmt"
	"strings"
)

// MaxCallDepth bounds the nesting of function calls a program may make:
// the longest chain of calls (func.call, composite, called functions) from
// the entry, a call inside k nested regions (loop bodies, branches)
// counting k+1. Each level of a running call takes stack (about 2 KiB, a
// region level as much again), and a Go stack that outgrows its limit (1
// GiB) ends the process; a deeper program fails to compile instead.
const MaxCallDepth = 1 << 18

// callDepthLimit is MaxCallDepth, lowered by tests.
var callDepthLimit = MaxCallDepth

// checkCalls rejects recursion (StableHLO functions may not call
// themselves, directly or not) and call chains deeper than MaxCallDepth,
// walking the call graph from the entry without recursion of its own.
func (p *Program) checkCalls(entry *funcPlan) error {
	const (
		unseen = iota
		open
		done
	)
	state := map[*funcPlan]int{}
	depth := map[*funcPlan]int{} // longest chain below a finished function
	stack := []callFrame{{fp: entry}}
	state[entry] = open
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		callees := p.calls[top.fp]
		if top.next < len(callees) {
			callee := callees[top.next].callee
			top.next++
			switch state[callee] {
			case open:
				return fmt.Errorf("host: recursive call of @%s (%s) is not supported", callee.fn.Name, cyclePath(stack, callee))
			case unseen:
				state[callee] = open
				stack = append(stack, callFrame{fp: callee})
			}
			continue
		}
		d := 0
		for _, c := range callees {
			d = max(d, depth[c.callee]+c.weight)
		}
		depth[top.fp] = d
		state[top.fp] = done
		stack = stack[:len(stack)-1]
	}
	if d := depth[entry]; d > callDepthLimit {
		return fmt.Errorf("host: @%s nests function calls %d deep, more than the %d the embedded device runs", entry.fn.Name, d, callDepthLimit)
	}
	return nil
}

// callEdge is one call of a function: the callee and the depth it adds
// (1, plus the regions the call is nested in).
type callEdge struct {
	callee *funcPlan
	weight int
}

// callFrame is a function on checkCalls' stack and its next callee.
type callFrame struct {
	fp   *funcPlan
	next int
}

// cyclePath names the functions of a call cycle through callee.
func cyclePath(stack []callFrame, callee *funcPlan) string {
	start := 0
	for i, f := range stack {
		if f.fp == callee {
			start = i
		}
	}
	var names []string
	for _, f := range stack[start:] {
		names = append(names, "@"+f.fp.fn.Name)
	}
	return strings.Join(append(names, "@"+callee.fn.Name), " -> ")
}
