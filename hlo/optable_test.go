package hlo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo/optable"
)

// TestOpTableCoversHlo checks that the op table is the whole op set: every
// op the parser, printer or type inference knows by name has a row, every
// row's builder exists, and every hand-written syntax is registered.
func TestOpTableCoversHlo(t *testing.T) {
	known := map[string]string{}
	for n := range formTable {
		known[n] = "formTable"
	}
	for n := range inherentAttrs {
		known[n] = "inherentAttrs"
	}
	for n := range inferRules {
		known[n] = "inferRules"
	}
	for n := range customOps {
		known[n] = "customOps"
	}
	for n := range customOpPrinters {
		known[n] = "customOpPrinters"
	}
	for n, where := range known {
		if _, ok := optable.Lookup(n); !ok {
			t.Errorf("%s is in %s but not in the op table (hlo/optable)", n, where)
		}
	}
	scope := reflect.TypeOf(&Scope{})
	for _, o := range optable.Ops() {
		if o.Builder != "" {
			if _, ok := scope.MethodByName(o.Builder); !ok {
				t.Errorf("%s: builder (*Scope).%s does not exist", o.Name, o.Builder)
			}
		}
		if o.HandSyntax != "" && (customOps[o.Name] == nil || customOpPrinters[o.Name] == nil) {
			t.Errorf("%s: hand-written syntax (%s) has no parser or printer in customOps/customOpPrinters", o.Name, o.HandSyntax)
		}
		if (o.Form != "" || o.HandSyntax != "") != (lookupForm(o.Name) != nil) {
			t.Errorf("%s: form registration disagrees with the table (run go generate ./hlo)", o.Name)
		}
		if (o.Infer != "") != HasInferenceRule(o.Name) {
			t.Errorf("%s: inference rule disagrees with the table (run go generate ./hlo)", o.Name)
		}
	}
}

var intOnly = map[string]bool{
	"stablehlo.and": true, "stablehlo.or": true, "stablehlo.xor": true, "stablehlo.not": true,
	"stablehlo.popcnt": true, "stablehlo.count_leading_zeros": true, "stablehlo.shift_left": true,
	"stablehlo.shift_right_arithmetic": true, "stablehlo.shift_right_logical": true,
}

// TestGeneratedBuilders calls every generated builder on operands of a type
// its op accepts and checks the op it adds.
func TestGeneratedBuilders(t *testing.T) {
	scope := reflect.TypeOf(&Scope{})
	n := 0
	for _, o := range optable.Ops() {
		if o.Params == "" {
			continue
		}
		n++
		m, _ := scope.MethodByName(o.Builder)
		b := NewBuilder("m")
		f := b.Func("main")
		args := []reflect.Value{reflect.ValueOf(f.Scope)}
		for i := range strings.Split(o.Params, ",") {
			dt := F32
			switch {
			case o.Name == "stablehlo.select" && i == 0:
				dt = Bool
			case intOnly[o.Name]:
				dt = I32
			}
			args = append(args, reflect.ValueOf(f.Arg(NewTensorType(dt, 2))))
		}
		v := m.Func.Call(args)[0].Interface().(*Value)
		f.Return(v)
		mod, err := b.Build()
		if err != nil {
			t.Errorf("%s: %v", o.Builder, err)
			continue
		}
		ops := mod.Func("main").Body.Blocks[0].Ops
		if len(ops) < 1 || ops[0].Name != o.Name {
			t.Errorf("%s added %v, want %s", o.Builder, ops, o.Name)
		}
	}
	if n < 40 {
		t.Errorf("only %d generated builders", n)
	}
}
