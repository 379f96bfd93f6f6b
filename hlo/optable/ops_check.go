package optable

// StableHLO's check and interpreter dialects and func.
var checkOps = []Op{
	{Name: "check.expect_almost_eq", Form: "$ , $ [[ , tolerance = @tolerance:f64=0.0001 ]] attrs : T:alltypes", Inherent: "tolerance"},
	{Name: "check.expect_almost_eq_const", Form: "$ , @value:elements [[ , tolerance = @tolerance:f64=0.0001 ]] attrs", Inherent: "tolerance value"},
	{Name: "check.expect_close", Form: "$ , $ , max_ulp_difference = @max_ulp_difference:ui64 [[ , min_ulp_difference = @min_ulp_difference:ui64=0 ]] : attrs t0 , t1", Inherent: "max_ulp_difference min_ulp_difference"},
	{Name: "check.expect_eq", Form: "$ , $ attrs : T:alltypes"},
	{Name: "check.expect_eq_const", Form: "$ , @value:elements attrs", Inherent: "value"},
	{Name: "check.expect_serialized_eq", Form: "$ , probe_id = @probe_id:str [[ , iter = @iteration:ui32=0 ]] attrs : t0", Inherent: "iteration probe_id"},
	{Name: "func.call", Form: "@callee:symref ( $$ ) attrs : T:fn", Inherent: "arg_attrs callee no_inline res_attrs", Infer: "inferCall", Builder: "Call"},
	{Name: "func.func", Inherent: "arg_attrs function_type res_attrs sym_name sym_visibility", NoKernel: "a function, not an op: the executor compiles each function as a unit"},
	{Name: "func.return", Form: "attrs [[ $$ : T:operands ]]", NoKernel: "a terminator: the planner (pjrt/host/plan.go) takes its operands as the function's results"},
	{Name: "interpreter.print", Form: "$ attrs : t0"},
	{Name: "interpreter.probe", Form: "$ , probe_id = @probe_id:str attrs : T:same1", Inherent: "probe_id"},
	{Name: "interpreter.run_parallel", Inherent: "infeed programs"},
}
