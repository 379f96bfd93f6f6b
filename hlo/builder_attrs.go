package hlo

// Attribute constructors used by the builder, in the forms the parser
// produces for the same source text.

// I64sAttr returns array<i64: xs...>.
func I64sAttr(xs []int64) *DenseArrayAttr {
	if len(xs) > 4 {
		return &DenseArrayAttr{DType: I64, Ints: append([]int64{}, xs...)}
	}
	// The attribute and its elements in one allocation.
	c := &struct {
		a  DenseArrayAttr
		xs [4]int64
	}{}
	c.a = DenseArrayAttr{DType: I64, Ints: c.xs[:len(xs):len(xs)]}
	copy(c.a.Ints, xs)
	return &c.a
}

// BoolsAttr returns array<i1: xs...>.
func BoolsAttr(xs []bool) *DenseArrayAttr {
	ints := make([]int64, len(xs))
	for i, x := range xs {
		if x {
			ints[i] = 1
		}
	}
	return &DenseArrayAttr{DType: Bool, Ints: ints}
}

// I64Attr returns `v : i64`.
func I64Attr(v int64) IntAttr { return IntAttr{Value: v} }

// I32Attr returns `v : i32`.
func I32Attr(v int64) IntAttr { return IntAttr{Value: v, Type: scalarAttrType(I32)} }

// scalarAttrType is the type tag of a scalar attribute (`: i32`): nil for
// the MLIR defaults i64 and f64, otherwise a rank-0 tensor of the scalar
// type, the convention the parser uses too.
func scalarAttrType(dt DType) Type {
	if dt == I64 || dt == F64 {
		return nil
	}
	return NewTensorType(dt)
}

// I64ElementsAttr returns dense<...> : tensor<rows x cols x i64> for a list
// of rows (padding, replica groups, source-target pairs).
func I64ElementsAttr(rows [][]int64, cols int) *DenseElementsAttr {
	l := NewLiteral(I64, int64(len(rows)), int64(cols))
	xs := l.I64()
	for i, r := range rows {
		copy(xs[i*cols:(i+1)*cols], r)
	}
	return &DenseElementsAttr{Type: l.Type(), Value: l}
}

// PairsAttr returns an [n, 2] i64 elements attribute.
func PairsAttr(ps [][2]int64) *DenseElementsAttr {
	rows := make([][]int64, len(ps))
	for i, p := range ps {
		rows[i] = []int64{p[0], p[1]}
	}
	return I64ElementsAttr(rows, 2)
}

// EnumOf returns #stablehlo<kind value>.
func EnumOf(kind, value string) EnumAttr {
	return EnumAttr{Dialect: "stablehlo", Kind: kind, Value: value}
}

// PrecisionAttr returns precision_config's value for lhs and rhs.
func PrecisionAttr(lhs, rhs Precision) ArrayAttr {
	return ArrayAttr{EnumOf("precision", string(lhs)), EnumOf("precision", string(rhs))}
}
