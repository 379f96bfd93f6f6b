package jit

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// Aliasing is part of the guard: a traced graph is only right for the
// aliasing it was traced with. When the same tensor is passed in two
// argument positions, the later position encodes as a reference to the
// first; when an argument is a tensor that a mutating entry of the
// function captured (a closure variable it reads or writes), the key ends
// with the pair. Aliasing matters only when something is written, so only
// captures of entries that mutate are compared.

// aliasLinearMax is the number of tensors up to which repeated tensors are
// found by scanning; longer argument lists use a map.
const aliasLinearMax = 16

// addTensor appends x to the walker's tensors and returns the position of
// its first occurrence among those before it, or -1.
func (w *walker) addTensor(x *lazy.Tensor) (first int) {
	first = -1
	if len(w.tensors) < aliasLinearMax {
		for i, t := range w.tensors {
			if t == x {
				first = i
				break
			}
		}
	} else {
		if w.seen == nil {
			w.seen = map[*lazy.Tensor]int{}
		}
		if len(w.seen) == 0 {
			for i, t := range w.tensors {
				if _, ok := w.seen[t]; !ok {
					w.seen[t] = i
				}
			}
		}
		if i, ok := w.seen[x]; ok {
			first = i
		} else {
			w.seen[x] = len(w.tensors)
		}
	}
	w.tensors = append(w.tensors, x)
	return first
}

// appendAliasKey appends the guard key of an argument that repeats the
// tensor at position first.
func appendAliasKey(key []byte, first int) []byte {
	return appendVarint(append(key, 'A'), int64(first))
}

// capSet is the set of tensors captured by the mutating entries of one
// function; an index never changes once given.
type capSet struct {
	list  []*lazy.Tensor
	index map[*lazy.Tensor]int
}

// with returns the set plus caps (s unchanged; nil s is empty).
func (s *capSet) with(caps []*lazy.Tensor) *capSet {
	n := &capSet{index: map[*lazy.Tensor]int{}}
	if s != nil {
		n.list = append(n.list, s.list...)
		for k, v := range s.index {
			n.index[k] = v
		}
	}
	for _, c := range caps {
		if _, ok := n.index[c]; !ok {
			n.index[c] = len(n.list)
			n.list = append(n.list, c)
		}
	}
	return n
}

// size is the number of tensors in s (nil: none).
func (s *capSet) size() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}

// appendCaptureAliasesUpTo appends, for each argument tensor that is one
// of the first n of the function's known written captures cs, the pair
// (argument, capture): the key cs gave when it held n (the set only
// grows).
func appendCaptureAliasesUpTo(key []byte, cs *capSet, n int, tensors []*lazy.Tensor) []byte {
	if cs == nil {
		return key
	}
	for i, t := range tensors {
		if k, ok := cs.index[t]; ok && k < n {
			key = appendVarint(appendVarint(append(key, 'C'), int64(i)), int64(k))
		}
	}
	return key
}

// keyWith ends w's key with the capture aliases of cs (the function's
// written captures as loaded by the caller): the arguments among them.
func (w *walker) keyWith(cs *capSet) {
	w.key, w.nCaps = appendCaptureAliasesUpTo(w.key[:w.baseLen], cs, cs.size(), w.tensors), cs.size()
}

// findEarlier finds the entry of a call's signature stored while fewer
// written captures were known (cs, the set the call's key w.key marks,
// has grown since): its key marks the arguments among the first n of
// them only. It serves the call when its graph reads and writes none of
// the arguments marked since through a closure (for it, such an argument
// was an input like any other), and it is stored under the call's key
// too. (Without this a call pattern A, B, A traced A twice when B's trace
// made one of A's arguments a known written capture.)
//
// The key for n changes only past an argument's capture index, so the n
// from 0 to cs.size()-1 fall in at most one run per argument capture,
// plus one, each with one key: a miss costs a lookup per run, not per
// written capture (a model's whole parameter list, when its optimizer
// writes them through a closure).
func (s *fnState) findEarlier(w *walker, cs *capSet) *entry {
	var buf [8]int
	ks := buf[:0] // the capture indexes of the arguments, ascending
	for _, t := range w.tensors {
		if k, ok := cs.index[t]; ok && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	for i, hi := len(ks), cs.size()-1; i >= 0 && hi >= 0; i-- {
		lo := 0 // the run [lo, hi] of n with one key
		if i > 0 {
			lo = ks[i-1] + 1
		}
		if lo > hi {
			continue
		}
		key := appendCaptureAliasesUpTo(w.key[:w.baseLen:w.baseLen], cs, hi, w.tensors)
		s.mu.RLock()
		e := s.entries[string(key)]
		s.mu.RUnlock()
		if e != nil && lo <= e.keyCaps && e.keyCaps <= hi && !capturesMarkedSince(e.captures, cs, e.keyCaps, w.tensors) {
			s.mu.Lock()
			if _, ok := s.entries[string(w.key)]; !ok {
				s.entries[string(w.key)] = e
				s.rekeyed++
			}
			s.mu.Unlock()
			s.last.Store(e)
			return e
		}
		hi = lo - 1
	}
	return nil
}

// capturesMarkedSince reports whether an argument tensor of args that is
// one of the captures of cs after its first n is among caps.
func capturesMarkedSince(caps []*lazy.Tensor, cs *capSet, n int, args []*lazy.Tensor) bool {
	for _, t := range args {
		if k, ok := cs.index[t]; ok && k >= n && slices.Contains(caps, t) {
			return true
		}
	}
	return false
}

// aliasNotes describes the aliasing of an argument list for Explain: "arg
// 0 and arg 1 are the same tensor", "arg 0 is a tensor the function
// captures".
func aliasNotes(args []reflect.Value, caps *capSet) []string {
	paths := map[*lazy.Tensor]string{}
	var notes []string
	visit := func(path string, x *lazy.Tensor) {
		if first, ok := paths[x]; ok {
			notes = append(notes, fmt.Sprintf("%s and %s are the same tensor", first, path))
			return
		}
		paths[x] = path
		if caps != nil {
			if k, ok := caps.index[x]; ok {
				notes = append(notes, fmt.Sprintf("%s is the function's captured tensor %d", path, k))
			}
		}
	}
	for i, a := range args {
		walkTensors(argPath(i), a, 0, visit)
	}
	return notes
}

// walkTensors calls visit for every non-nil tensor in v, with its path.
func walkTensors(path string, v reflect.Value, depth int, visit func(string, *lazy.Tensor)) {
	if depth > maxArgDepth {
		return
	}
	t := v.Type()
	if t == tensorPtrType {
		if !v.IsNil() {
			visit(path, (*lazy.Tensor)(v.UnsafePointer()))
		}
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkTensors(IndexPath(path, i), v.Index(i), depth+1, visit)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkTensors(path, v.Elem(), depth+1, visit)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			walkTensors(FieldPath(path, t.Field(i)), v.Field(i), depth+1, visit)
		}
	}
}

// notesDiff says how the aliasing of a new signature differs from the
// last traced one.
func notesDiff(old, cur []string) string {
	had := map[string]bool{}
	for _, n := range old {
		had[n] = true
	}
	has := map[string]bool{}
	var out []string
	for _, n := range cur {
		has[n] = true
		if !had[n] {
			out = append(out, n)
		}
	}
	for _, n := range old {
		if !has[n] {
			out = append(out, "no longer: "+n)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
