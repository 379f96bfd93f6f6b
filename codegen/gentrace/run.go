package gentrace

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// OutEnv names the file Run writes its results to.
const OutEnv = "XLAJIT_GEN_OUT"

// Func is one function to trace, as the generator's temporary test lists
// it.
type Func struct {
	Name   string   // Go name of the function
	Pos    string   // file:line of its directive (for messages)
	Fn     any      // the function
	Shapes []string // one shape per parameter, in order ("f32[64,784]"; "" where Values gives one)
	// Values gives example values for parameters without a shape (a model
	// from its constructor); nil when every parameter has a shape.
	Values []any
}

// Result is the trace of one function, or why it failed.
type Result struct {
	Name      string
	Pos       string
	Err       string   `json:",omitempty"`
	Signature string   `json:",omitempty"` // reflect's String of the function type
	Graph     string   `json:",omitempty"` // fx graph without call sites (what gen embeds)
	GraphSite string   `json:",omitempty"` // fx graph with call sites (dumps)
	HLO       string   `json:",omitempty"`
	Hash      string   `json:",omitempty"`
	Captures  []string `json:",omitempty"`
	Guard     string   `json:",omitempty"` // arguments' signature of a trace with example values
	IR        string   `json:",omitempty"` // lazy IR of the device graph
	DOT       string   `json:",omitempty"` // the same in Graphviz form
}

// Run traces each function and writes the results, as JSON, to the file
// named by $XLAJIT_GEN_OUT. A failed trace is reported in its Result; the
// error is for failures of Run itself.
func Run(fns []Func) error {
	path := os.Getenv(OutEnv)
	if path == "" {
		return fmt.Errorf("gentrace: %s is not set (this program is run by xlajit gen)", OutEnv)
	}
	res := make([]Result, len(fns))
	for i, f := range fns {
		res[i] = Trace(f)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Trace traces one function on placeholders of its shapes.
func Trace(f Func) Result {
	r := Result{Name: f.Name, Pos: f.Pos}
	shapes := make([]lazy.Shape, len(f.Shapes))
	values := make([]any, len(f.Shapes))
	for i, s := range f.Shapes {
		if f.Values != nil && s == "" {
			values[i] = f.Values[i]
			continue
		}
		sh, err := ParseShape(s)
		if err != nil {
			r.Err = err.Error()
			return r
		}
		shapes[i], values[i] = sh, sh
	}
	var spec jit.AOTSpec
	var g *fx.Graph
	var err error
	if f.Values != nil {
		spec, g, err = jit.TraceAOTValues(f.Name, f.Fn, values...)
	} else {
		spec, g, err = jit.TraceAOT(f.Name, f.Fn, shapes...)
	}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Signature, r.Graph, r.HLO, r.Hash, r.Captures, r.Guard = spec.Signature, spec.Graph, spec.HLO, spec.Hash, spec.Captures, spec.Guard
	r.GraphSite = g.String()
	if spec.Hash != "" {
		if lg, err := deviceGraph(g); err == nil {
			r.IR, r.DOT = lg.String(), lg.Dot()
			// Lower here rather than keep the compiled module: that one may
			// come from the persistent cache, printed from its parsed text,
			// and generated files must not depend on a cache's contents.
			if h := lg.Hash.String(); h == spec.Hash {
				if m, err := lg.Lower("jit_" + h[:16]); err == nil {
					r.HLO = m.String()
				}
			}
		} else {
			r.IR = fmt.Sprintf("// %v\n", err)
		}
	} else {
		r.IR = spec.HLO
		r.DOT = fmt.Sprintf("digraph %q {\n  // %s has no single device graph\n}\n", f.Name, f.Name)
	}
	return r
}

// deviceGraph rebuilds the lazy IR of g on placeholders: the values of its
// outputs and mutations, pass-throughs left out (as bridge.Compile cuts it).
func deviceGraph(g *fx.Graph) (*lazy.Graph, error) {
	dev := lazy.DefaultDevice()
	var args, caps []*lazy.Tensor
	for _, n := range g.Placeholders() {
		t := lazy.NewPlaceholder(n.Shapes[0], dev)
		list := &args
		if n.Input == fx.Capture {
			list = &caps
		}
		for len(*list) <= n.Index {
			*list = append(*list, nil)
		}
		(*list)[n.Index] = t
	}
	in := fx.Interpreter{G: g}
	outs, muts, err := in.Run(args, caps)
	if err != nil {
		return nil, err
	}
	var roots []lazy.Value
	seen := map[lazy.Value]bool{}
	for _, t := range append(outs, muts...) {
		if !t.IsPending() {
			continue
		}
		if v := t.Value(); !seen[v] {
			seen[v] = true
			roots = append(roots, v)
		}
	}
	return lazy.CollectGraph(roots), nil
}
