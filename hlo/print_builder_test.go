package hlo

import "testing"

// TestPrintBuilderRoundTrip prints the builder's every-op module (see
// buildEveryOp in builder_test.go), parses it back and checks that the
// text is a fixed point and every op kept its name, types and attributes:
// lazy's persistent cache stores modules as printed text.
func TestPrintBuilderRoundTrip(t *testing.T) {
	b := NewBuilder("every")
	buildEveryOp(b)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	text := m.String()
	m2, err := ParseModule("every.mlir", []byte(text))
	if err != nil {
		t.Fatalf("printed builder module does not parse: %v\n%s", err, excerpt(text, err))
	}
	if again := m2.String(); again != text {
		t.Fatalf("not a fixed point:\n%s", firstDiff(text, again))
	}
	var ops1, ops2 []*Op
	m.Func("main").Body.Walk(func(op *Op) bool { ops1 = append(ops1, op); return true })
	m2.Func("main").Body.Walk(func(op *Op) bool { ops2 = append(ops2, op); return true })
	if len(ops1) != len(ops2) {
		t.Fatalf("%d ops built, %d parsed back", len(ops1), len(ops2))
	}
	for i := range ops1 {
		a, b := ops1[i], ops2[i]
		if a.Name != b.Name || len(a.Results) != len(b.Results) || len(a.Operands) != len(b.Operands) {
			t.Errorf("op %d: built %s, parsed %s", i, OpString(a), OpString(b))
			continue
		}
		for k := range a.Results {
			if !TypesEqual(a.Results[k].Type, b.Results[k].Type) {
				t.Errorf("%s result %d: %s vs %s", a.Name, k, a.Results[k].Type, b.Results[k].Type)
			}
		}
		for _, na := range a.Attrs {
			got := b.Attr(na.Name)
			if got == nil {
				if _, isDefault := formDefault(a.Name, na); !isDefault {
					t.Errorf("%s: attribute %s lost", a.Name, na.Name)
				}
				continue
			}
			if AttrString(got) != AttrString(na.Value) {
				t.Errorf("%s: %s = %s, parsed back as %s", a.Name, na.Name, AttrString(na.Value), AttrString(got))
			}
		}
	}
}

// formDefault reports whether a pretty form elides the attribute because
// it has its default value.
func formDefault(op string, na NamedAttr) (string, bool) {
	f := lookupForm(op)
	if f == nil {
		return "", false
	}
	if d, ok := f.defaults[na.Name]; ok && AttrString(na.Value) == d {
		return d, true
	}
	var walk func(es []felem) bool
	walk = func(es []felem) bool {
		for _, e := range es {
			if e.kind == fAttr && e.attr == na.Name && e.def != "" && attrIsDefault(e, na.Value) {
				return true
			}
			if e.kind == fGroup && (walk(e.group) || walk(e.alt)) {
				return true
			}
		}
		return false
	}
	return "", walk(f.elems)
}
