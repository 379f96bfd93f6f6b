package hlo

// Printing of IREE's test helper ops (parse_iree.go). customOpPrinters is
// made by print_custom.go's init, which runs before this file's.
func init() {
	for _, n := range typedConstants {
		customOpPrinters[n] = printTypedConstant
		customOpFits[n] = typedConstantFits
	}
}

func typedConstantFits(op *Op) bool {
	if len(op.Operands) != 0 || len(op.Results) != 1 || len(op.Regions) != 0 || op.Results[0].Type == nil {
		return false
	}
	rt := op.Results[0].Type
	switch v := op.Attr("value").(type) {
	case *DenseElementsAttr:
		return TypesEqual(v.Type, rt)
	case IntAttr:
		t := scalarValueType(v.Type, "i64")
		return t != nil && t.String() == rt.String()
	case FloatAttr:
		t := scalarValueType(v.Type, "f64")
		return t != nil && t.String() == rt.String()
	case BoolAttr:
		return rt.String() == "i1"
	}
	return false
}

func printTypedConstant(pr *printer, op *Op) {
	var rest []NamedAttr
	for _, na := range op.Attrs {
		if na.Name != "value" {
			rest = append(rest, na)
		}
	}
	if len(rest) > 0 {
		pr.ws(" ")
		writeAttrDictBody(pr.b, rest)
	}
	pr.ws(" ")
	pr.ws(AttrString(op.Attr("value")))
}
