package optable

// IREE's test helper ops, read so that IREE's end-to-end test programs load
// (hlo/parse_iree.go has their syntax; the conformance runner lowers them).
var ireeOps = []Op{
	{Name: "arith.constant", HandSyntax: "parse_iree.go, print_iree.go", NoKernel: "an IREE test helper: the conformance runner lowers it to stablehlo.constant"},
	{Name: "util.unfoldable_constant", HandSyntax: "parse_iree.go, print_iree.go", NoKernel: "an IREE test helper: the conformance runner lowers it to stablehlo.constant"},
	{Name: "util.optimization_barrier", Form: "attrs [[ $$ : T:pairwise ]]", NoKernel: "an IREE test helper: the conformance runner replaces it by its operands"},
	{Name: "flow.tensor.dynamic_constant", Form: "attrs @value:elements -> r0", NoKernel: "an IREE test helper: the conformance runner lowers it to stablehlo.constant"},
	{Name: "tensor.cast", Form: "$ attrs : t0 to r0", NoKernel: "an IREE test helper: the conformance runner replaces it by its operand"},
	{Name: "iree_check.expect_true", Form: "( $ ) attrs : t0", Spelled: "check.expect_true"},
	{Name: "iree_check.expect_false", Form: "( $ ) attrs : t0", Spelled: "check.expect_false"},
	{Name: "iree_check.expect_all_true", Form: "( $ ) attrs : t0", Spelled: "check.expect_all_true"},
	{Name: "iree_check.expect_eq", Form: "( $ , $ ) attrs : T:alltypes", Spelled: "check.expect_eq"},
	{Name: "iree_check.expect_eq_const", Form: "( $ , @value:elements ) attrs : t0", Spelled: "check.expect_eq_const"},
	{Name: "iree_check.expect_almost_eq", Form: "( $ , $ [[ , atol @atol:f64 ]] [[ , rtol @rtol:f64 ]] ) attrs : T:alltypes", Spelled: "check.expect_almost_eq"},
	{Name: "iree_check.expect_almost_eq_const", Form: "( $ , @value:elements [[ , atol @atol:f64 ]] [[ , rtol @rtol:f64 ]] ) attrs : t0", Spelled: "check.expect_almost_eq_const"},
}
