package jit

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/lazy"
)

// A tensor of the SPMD device enters the guard with its sharding: a
// program is compiled for its inputs' layouts, so an input marked with
// another sharding traces again.

// appendShardingKey appends x's sharding text ('s', length, text).
func appendShardingKey(key []byte, x *lazy.Tensor) []byte {
	s := x.Sharding().String()
	key = append(key, 's')
	key = appendVarint(key, int64(len(s)))
	return append(key, s...)
}

// shardingSep separates a tensor guard value from its sharding.
const shardingSep = " sharding="

// shardingSuffix is the sharding part of a tensor's guard description.
func shardingSuffix(x *lazy.Tensor) string {
	if !x.Device().IsSPMD() {
		return ""
	}
	s := x.Sharding().String()
	if s == "" {
		s = "{pending}"
	}
	return shardingSep + s
}

// shardingChange describes a guard difference that is only a tensor's
// sharding ("arg 0: sharding {devices=[4,1]0,1,2,3} -> {replicated}"), or
// returns "".
func shardingChange(old, cur guardItem) string {
	if old.kind != 't' || cur.kind != 't' {
		return ""
	}
	ob, os, ok1 := strings.Cut(old.value, shardingSep)
	cb, cs, ok2 := strings.Cut(cur.value, shardingSep)
	if !ok1 || !ok2 || ob != cb || os == cs {
		return ""
	}
	return fmt.Sprintf("%s: sharding %s -> %s", cur.path, os, cs)
}

// reshardEvents lists, for Explain, the layout changes the SPMD
// partitioner had to insert into the programs of a trace (ops it could not
// run on the layout their operands had).
func reshardEvents(run runner) []string {
	var progs []*bridge.Program
	switch r := run.(type) {
	case *bridge.Program:
		progs = append(progs, r)
	case *staged:
		for _, p := range r.progs {
			if p != nil {
				progs = append(progs, p)
			}
		}
	}
	var out []string
	for _, p := range progs {
		x := p.Executable()
		if x == nil {
			continue
		}
		for _, r := range x.Reshards() {
			out = append(out, fmt.Sprintf("spmd reshard in program %s: %s", p.Hash.String()[:16], r))
		}
	}
	return out
}
