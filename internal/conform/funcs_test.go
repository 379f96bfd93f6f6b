package conform

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// randomModule writes a module of random functions in the shapes real files
// use (visibilities, argument and result attributes, attribute
// dictionaries, strings and comments holding braces or `func.func`,
// declarations without a body, an optional module wrapper) and returns it
// with the names of its functions in order.
func randomModule(r *rand.Rand) (string, []string) {
	var b strings.Builder
	wrap := r.IntN(2) == 0
	if wrap {
		b.WriteString("module @m attributes {mhlo.note = \"} func.func {\"} {\n")
	}
	var names []string
	for i, n := 0, r.IntN(5); i < n; i++ {
		name := fmt.Sprintf("f%d", i)
		if r.IntN(4) == 0 {
			name = fmt.Sprintf("\"q.%d\"", i)
		}
		names = append(names, strings.Trim(name, "\""))
		vis := []string{"", "public ", "private "}[r.IntN(3)]
		if r.IntN(3) == 0 {
			b.WriteString("// func.func @commented() { }\n")
		}
		arg := "%a: tensor<2xf32>"
		if r.IntN(2) == 0 {
			arg += " {jax.arg_info = \"x{\", mhlo.sharding = \"}\"}"
		}
		res := "tensor<2xf32>"
		if r.IntN(2) == 0 {
			res = "(tensor<2xf32> {jax.result_info = \"}\"})"
		}
		fmt.Fprintf(&b, "func.func %s@%s(%s) -> %s", vis, name, arg, res)
		if vis == "private " && r.IntN(3) == 0 {
			b.WriteString("\n") // a declaration
			continue
		}
		if r.IntN(2) == 0 {
			b.WriteString(" attributes {x = {y = 1 : i64}}")
		}
		b.WriteString(" {\n")
		if r.IntN(2) == 0 {
			b.WriteString("  %c = stablehlo.constant dense<1.0> : tensor<2xf32> // } func.func\n")
			b.WriteString("  %s = stablehlo.add %a, %c : tensor<2xf32>\n  return %s : tensor<2xf32>\n}\n")
		} else {
			b.WriteString("  %r = \"stablehlo.reduce\"(%a, %a) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    \"stablehlo.return\"(%x) : (tensor<f32>) -> ()\n  }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n")
		}
	}
	if wrap {
		b.WriteString("}\n")
	}
	return b.String(), names
}

// funcItems finds the functions the parser finds, and blanking one leaves
// a text that parses to the others, on 500 random modules.
func TestFuncItemsMatchParser(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for trial := 0; trial < 500; trial++ {
		text, names := randomModule(r)
		m, err := hlo.ParseModule("r.mlir", []byte(text))
		if err != nil {
			t.Fatalf("generated module does not parse: %v\n%s", err, text)
		}
		if len(m.Funcs) != len(names) {
			t.Fatalf("parser found %d functions, want %d", len(m.Funcs), len(names))
		}
		items := funcItems(text)
		if len(items) != len(names) {
			t.Fatalf("funcItems found %d functions, want %d:\n%s", len(items), len(names), text)
		}
		for i, it := range items {
			f := m.Funcs[i]
			if it.name != f.Name || it.hasBody != (f.Body != nil) || it.line+1 != f.Loc.Line {
				t.Fatalf("item %d: %+v, parser: @%s body %v line %d\n%s", i, it, f.Name, f.Body != nil, f.Loc.Line, text)
			}
			if it.public() != (f.Body != nil && f.Visibility != "private") {
				t.Fatalf("item %d public=%v, visibility %q", i, it.public(), f.Visibility)
			}
			rest, err := hlo.ParseModule("r.mlir", []byte(blank(text, it.start, it.end)))
			if err != nil {
				t.Fatalf("blanking @%s: %v\n%s", it.name, err, blank(text, it.start, it.end))
			}
			if len(rest.Funcs) != len(names)-1 || rest.Func(it.name) != nil {
				t.Fatalf("blanking @%s left %d functions", it.name, len(rest.Funcs))
			}
		}
	}
}

func TestTestFuncs(t *testing.T) {
	items := func(src string) []funcItem { return funcItems(src) }
	for _, c := range []struct {
		src  string
		want string // names, or "-" when the part has an entry
	}{
		{"func.func @only() { return }", "-"},
		{"func.func @a() { return }\nfunc.func @main() { return }", "-"},
		{"func.func @a() { return }\nfunc.func private @h() { return }\nfunc.func public @b() { return }", "a b"},
		{"func.func @__init() { return }\nfunc.func @a$b() { return }\nfunc.func @c() { return }", "c"},
		{"func.func private @x() { return }\nfunc.func private @y() { return }", "-"},
	} {
		fns, ok := testFuncs(items(c.src))
		var got []string
		for _, f := range fns {
			got = append(got, f.name)
		}
		g := strings.Join(got, " ")
		if !ok {
			g = "-"
		}
		if g != c.want {
			t.Errorf("%q: %q, want %q", c.src, g, c.want)
		}
	}
}

// FuzzFuncItems: any text scans without panicking, into ordered,
// non-overlapping ranges of the text.
func FuzzFuncItems(f *testing.F) {
	r := rand.New(rand.NewPCG(4, 4))
	for range 8 {
		text, _ := randomModule(r)
		f.Add(text)
	}
	f.Add("func.func @f(\"}\" {")
	f.Add("module { func.func private @d(%a: i32) } func.func")
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, it := range funcItems(text) {
			if it.start < prev || it.end < it.start || it.end > len(text) {
				t.Fatalf("item %+v after %d in a text of %d bytes", it, prev, len(text))
			}
			prev = it.end
			_ = blank(text, it.start, it.end)
		}
	})
}
