package conform

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// IREE's test helpers are lowered to StableHLO before a case compiles, so
// that every device (the embedded one and any device behind the seam) sees
// StableHLO plus the checks:
//
//   - util.unfoldable_constant and arith.constant become stablehlo.constant
//     (a constant the compiler may not fold is, for execution, its value);
//   - util.optimization_barrier becomes stablehlo.optimization_barrier;
//   - flow.tensor.dynamic_constant becomes a stablehlo.constant of the
//     value's static type (the dynamic type only hides the shape from IREE's
//     compiler);
//   - tensor.cast, a change of static information only, is removed: its
//     uses take its operand, whose type must be compatible;
//   - scalar values (i32, f32, ... as IREE's functions and check.expect_true
//     use them) become rank-0 tensors.
//
// Types made static this way flow on: results declared with dynamic
// dimensions get the types inferred from their operands where StableHLO's
// inference rules give them. Every other op is left alone, so an op that
// no device supports still fails by name.

// lowerError is a lowering failure attributed to an op.
type lowerError struct {
	op  *hlo.Op
	msg string
}

func (e *lowerError) Error() string { return fmt.Sprintf("%s: %s: %s", e.op.Loc, e.op.Name, e.msg) }

// lowerTestHelpers lowers IREE's test helpers in every function of m.
func lowerTestHelpers(m *hlo.Module) error {
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		for _, a := range f.Args {
			a.Type = tensorize(a.Type)
		}
		for i, t := range f.ResultTypes {
			f.ResultTypes[i] = tensorize(t)
		}
		l := &lowerer{subst: map[*hlo.Value]*hlo.Value{}}
		if err := l.region(f.Body); err != nil {
			return err
		}
	}
	return nil
}

type lowerer struct {
	subst map[*hlo.Value]*hlo.Value // removed values and what replaces them
}

func (l *lowerer) region(r *hlo.Region) error {
	for _, b := range r.Blocks {
		for _, a := range b.Args {
			a.Type = tensorize(a.Type)
		}
		keep := b.Ops[:0]
		for _, op := range b.Ops {
			drop, err := l.op(op)
			if err != nil {
				return err
			}
			if !drop {
				keep = append(keep, op)
			}
		}
		b.Ops = keep
	}
	return nil
}

// op lowers one op; drop says it is removed (its results are substituted).
func (l *lowerer) op(op *hlo.Op) (bool, error) {
	for i, v := range op.Operands {
		if w, ok := l.subst[v]; ok {
			op.Operands[i] = w
		}
	}
	for _, r := range op.Regions {
		if err := l.region(r); err != nil {
			return false, err
		}
	}
	for _, v := range op.Results {
		v.Type = tensorize(v.Type)
	}
	switch op.Name {
	case "util.unfoldable_constant", "arith.constant":
		if err := lowerConstant(op); err != nil {
			return false, err
		}
	case "util.optimization_barrier":
		op.Name = "stablehlo.optimization_barrier"
	case "flow.tensor.dynamic_constant":
		d, ok := op.Attr("value").(*hlo.DenseElementsAttr)
		if !ok || len(op.Results) != 1 {
			return false, &lowerError{op, "needs a dense elements value and one result"}
		}
		if !hlo.TypesCompatible(d.Type, op.Results[0].Type) {
			return false, &lowerError{op, fmt.Sprintf("value of type %s does not fit the result type %s", d.Type, op.Results[0].Type)}
		}
		op.Name = "stablehlo.constant"
		op.Attrs = []hlo.NamedAttr{{Name: "value", Value: d}}
		op.Results[0].Type = d.Type
	case "tensor.cast":
		if len(op.Operands) != 1 || len(op.Results) != 1 {
			return false, &lowerError{op, "takes one operand and has one result"}
		}
		from, to := op.Operands[0].Type, op.Results[0].Type
		if _, ok := to.(*hlo.TensorType); !ok || !hlo.TypesCompatible(from, to) {
			return false, &lowerError{op, fmt.Sprintf("cannot cast %s to %s: the types are not compatible", from, to)}
		}
		l.subst[op.Results[0]] = op.Operands[0]
		return true, nil
	default:
		refine(op)
	}
	return false, nil
}

// lowerConstant turns a constant helper into stablehlo.constant; a scalar
// value becomes a rank-0 dense value of its type.
func lowerConstant(op *hlo.Op) error {
	if len(op.Results) != 1 {
		return &lowerError{op, "has one result"}
	}
	t, ok := op.Results[0].Type.(*hlo.TensorType)
	if !ok {
		return &lowerError{op, fmt.Sprintf("values of type %s are not supported (tensors and integer or float scalars are)", op.Results[0].Type)}
	}
	a := op.Attr("value")
	switch v := a.(type) {
	case *hlo.DenseElementsAttr, hlo.OpaqueAttr:
	case hlo.IntAttr, hlo.FloatAttr, hlo.BoolAttr:
		if t.Rank() != 0 {
			return &lowerError{op, fmt.Sprintf("scalar value %s for type %s", hlo.AttrString(a), t)}
		}
		lit := hlo.NewLiteral(t.DType)
		switch v := v.(type) {
		case hlo.IntAttr:
			if !t.DType.IsInt() && !t.DType.IsBool() {
				return &lowerError{op, fmt.Sprintf("integer value for type %s", t)}
			}
			lit.SetInt(0, v.Value)
		case hlo.FloatAttr:
			if !t.DType.IsFloat() {
				return &lowerError{op, fmt.Sprintf("float value for type %s", t)}
			}
			lit.SetFloat(0, v.Value)
		case hlo.BoolAttr:
			if v {
				lit.SetInt(0, 1)
			}
		}
		a = &hlo.DenseElementsAttr{Type: t, Value: lit}
	default:
		return &lowerError{op, fmt.Sprintf("value %s is not a dense elements value or a scalar", hlo.AttrString(a))}
	}
	op.Name = "stablehlo.constant"
	op.Attrs = []hlo.NamedAttr{{Name: "value", Value: a}}
	return nil
}

// tensorize turns a scalar type (i32, f32, i1, ...) into the rank-0 tensor
// type of that element type; other types are returned unchanged.
func tensorize(t hlo.Type) hlo.Type {
	o, ok := t.(*hlo.OpaqueType)
	if !ok {
		return t
	}
	dt, ok := hlo.DTypeByName(o.Text)
	if !ok {
		return t
	}
	return hlo.NewTensorType(dt)
}

// refine gives the results of op that are declared with dynamic
// dimensions the more static types inferred from its operands.
func refine(op *hlo.Op) {
	dynamic := false
	for _, v := range op.Results {
		if t, ok := v.Type.(*hlo.TensorType); ok && !t.IsStatic() {
			dynamic = true
		}
	}
	if !dynamic || !hlo.HasInferenceRule(op.Name) {
		return
	}
	in := make([]hlo.Type, len(op.Operands))
	for i, v := range op.Operands {
		in[i] = v.Type
	}
	declared := make([]hlo.Type, len(op.Results))
	for i, v := range op.Results {
		declared[i] = v.Type
	}
	got, err := hlo.InferResultTypesFrom(op.Name, in, op.Attrs, op.Regions, declared)
	if err != nil || len(got) != len(op.Results) {
		return
	}
	for i, v := range op.Results {
		if t, ok := got[i].(*hlo.TensorType); ok && t.IsStatic() && hlo.TypesCompatible(v.Type, t) {
			v.Type = t
		}
	}
}

// refineTypes gives every op of m with dynamic result types the types
// inferred from its operands (after argument types were made static).
func refineTypes(m *hlo.Module) {
	for _, f := range m.Funcs {
		if f.Body != nil {
			f.Body.Walk(func(op *hlo.Op) bool {
				refine(op)
				return true
			})
		}
	}
}
