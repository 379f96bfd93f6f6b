package hlo

import "unsafe"

// A module a Builder finished is verified as it is built: every op's
// result types come from the inference Verify runs, its operands are
// checked to be values of enclosing scopes, functions are checked to
// return, calls to match their callee, regions to end with their return.
// Verifying it again costs as much as building it. Finish therefore seals
// the module with a fingerprint of its structure: the identity of every
// function, block, op, operand, result, result type, attribute and
// region. Built reports whether the module still has that fingerprint, so
// that a compiler may skip Verify for it; a module edited since (an op
// added, removed or reordered, an operand, type, attribute or region
// replaced) is verified like a parsed one. Edits inside a type or an
// attribute's value (a dimension rewritten in place) are not seen: no pass
// makes them, and the device's kernels check their own operands.

type seal struct{ sum, count uint64 }

// Built reports whether m is exactly as a Builder finished it (see above).
func (m *Module) Built() bool {
	return m.sealed != nil && *m.sealed == sealOf(m)
}

// sealOf fingerprints m's structure.
func sealOf(m *Module) seal {
	h := fingerprint{sum: fnvOffset}
	h.ptr(unsafe.Pointer(m))
	h.str(m.Name)
	h.slice(unsafe.Pointer(unsafe.SliceData(m.Funcs)), len(m.Funcs))
	h.slice(unsafe.Pointer(unsafe.SliceData(m.Other)), len(m.Other))
	h.slice(unsafe.Pointer(unsafe.SliceData(m.Attrs)), len(m.Attrs))
	for _, f := range m.Funcs {
		h.n++
		h.ptr(unsafe.Pointer(f))
		h.str(f.Name)
		h.slice(unsafe.Pointer(unsafe.SliceData(f.Args)), len(f.Args))
		for _, a := range f.Args {
			h.ptr(unsafe.Pointer(a))
		}
		h.slice(unsafe.Pointer(unsafe.SliceData(f.ResultTypes)), len(f.ResultTypes))
		for _, t := range f.ResultTypes {
			h.iface(t)
		}
		h.region(f.Body)
	}
	return seal{h.sum, h.n}
}

// fingerprint mixes words (FNV-1a over 64-bit words), starting from
// fnvOffset; n counts the ops, blocks and functions it saw.
type fingerprint struct{ sum, n uint64 }

const fnvOffset = 14695981039346656037

func (h *fingerprint) word(x uint64) {
	h.sum = (h.sum ^ x) * 1099511628211
}

func (h *fingerprint) ptr(p unsafe.Pointer) { h.word(uint64(uintptr(p))) }

func (h *fingerprint) slice(p unsafe.Pointer, n int) {
	h.ptr(p)
	h.word(uint64(n))
}

func (h *fingerprint) str(s string) { h.slice(unsafe.Pointer(unsafe.StringData(s)), len(s)) }

// iface mixes an interface value's type and data words.
func (h *fingerprint) iface(x any) {
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&x))
	h.ptr(w[0])
	h.ptr(w[1])
}

func (h *fingerprint) region(r *Region) {
	h.ptr(unsafe.Pointer(r))
	if r == nil {
		return
	}
	h.slice(unsafe.Pointer(unsafe.SliceData(r.Blocks)), len(r.Blocks))
	for _, b := range r.Blocks {
		h.n++
		h.ptr(unsafe.Pointer(b))
		h.slice(unsafe.Pointer(unsafe.SliceData(b.Args)), len(b.Args))
		for _, a := range b.Args {
			h.ptr(unsafe.Pointer(a))
			h.iface(a.Type)
		}
		h.slice(unsafe.Pointer(unsafe.SliceData(b.Ops)), len(b.Ops))
		for _, op := range b.Ops {
			h.op(op)
		}
	}
}

func (h *fingerprint) op(op *Op) {
	h.n++
	h.ptr(unsafe.Pointer(op))
	h.str(op.Name)
	h.slice(unsafe.Pointer(unsafe.SliceData(op.Operands)), len(op.Operands))
	for _, v := range op.Operands {
		h.ptr(unsafe.Pointer(v))
	}
	h.slice(unsafe.Pointer(unsafe.SliceData(op.Results)), len(op.Results))
	for _, v := range op.Results {
		h.ptr(unsafe.Pointer(v))
		if v != nil {
			h.ptr(unsafe.Pointer(v.Def))
			h.word(uint64(v.Index))
			h.iface(v.Type)
		}
	}
	h.slice(unsafe.Pointer(unsafe.SliceData(op.Attrs)), len(op.Attrs))
	for _, a := range op.Attrs {
		h.str(a.Name)
		h.iface(a.Value)
	}
	h.slice(unsafe.Pointer(unsafe.SliceData(op.Regions)), len(op.Regions))
	for _, r := range op.Regions {
		h.region(r)
	}
}
