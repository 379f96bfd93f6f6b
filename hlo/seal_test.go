package hlo

import "testing"

// sealTestModule builds main(x, y) = reduce(exp(x + broadcast(c))) with
// a call of a helper function.
func sealTestModule(t *testing.T) *Module {
	t.Helper()
	b := NewBuilder("sealed")
	h := b.Func("helper")
	ha := h.Arg(NewTensorType(F32, 2, 3))
	h.Return(h.Exp(ha))
	f := b.Func("main")
	x := f.Arg(NewTensorType(F32, 2, 3))
	c := f.BroadcastInDim(f.ConstantScalar(F32, 2), []int64{2, 3}, nil)
	y := f.Call(h, f.Add(x, c))
	sum := f.Reduce(y, []*Value{f.ConstantScalar(F32, 0)}, []int64{1},
		func(s *Scope, a []*Value) []*Value { return []*Value{s.Add(a[0], a[1])} })
	f.Return(sum...)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A module as Finish left it is Built (and verifies); every kind of edit
// of its structure makes it unbuilt, so that the device verifies it again.
func TestBuiltSeesEdits(t *testing.T) {
	m := sealTestModule(t)
	if !m.Built() {
		t.Fatal("a finished module is not Built")
	}
	if err := Verify(m); err != nil {
		t.Fatalf("a finished module does not verify: %v", err)
	}
	body := func(m *Module) *Block { return m.Func("main").Body.Blocks[0] }
	edits := map[string]func(m *Module){
		"op removed":       func(m *Module) { b := body(m); b.Ops = append(b.Ops[:1:1], b.Ops[2:]...) },
		"op appended":      func(m *Module) { b := body(m); b.Ops = append(b.Ops, b.Ops[0]) },
		"ops swapped":      func(m *Module) { b := body(m); b.Ops[0], b.Ops[1] = b.Ops[1], b.Ops[0] },
		"operand replaced": func(m *Module) { op := body(m).Ops[2]; op.Operands[1] = op.Operands[0] },
		"result type":      func(m *Module) { body(m).Ops[1].Results[0].Type = NewTensorType(F32, 3, 2) },
		"attribute":        func(m *Module) { body(m).Ops[1].Attrs[0].Value = I64sAttr([]int64{1}) },
		"attributes":       func(m *Module) { op := body(m).Ops[1]; op.Attrs = op.Attrs[:0] },
		"op renamed":       func(m *Module) { body(m).Ops[2].Name = "stablehlo.subtract" },
		"region body": func(m *Module) {
			r := body(m).Ops[len(body(m).Ops)-2].Regions[0]
			r.Blocks[0].Ops = r.Blocks[0].Ops[1:]
		},
		"function result":   func(m *Module) { m.Func("main").ResultTypes[0] = NewTensorType(F32, 3) },
		"function argument": func(m *Module) { f := m.Func("helper"); f.Args[0] = &Value{Type: NewTensorType(F32, 2, 3)} },
		"function added":    func(m *Module) { m.Funcs = append(m.Funcs, m.Funcs[0]) },
		"callee":            func(m *Module) { m.Funcs[0].Name = "other" },
	}
	for name, edit := range edits {
		m := sealTestModule(t)
		edit(m)
		if m.Built() {
			t.Errorf("%s: the module still counts as built", name)
		}
	}
}
