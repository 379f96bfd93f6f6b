%arg0 : f32[6] = placeholder[arg 0]
%capture0 : f32[6] = placeholder[capture 0]
%mul_1 : f32[6] = Mul(%arg0, %capture0)  # device 1
%gt_1 : i1[6] = Compare(%mul_1, %arg0, dir="GT")  # device 1
%nonzero_1 : i64[2,1] = NonZero(%gt_1)  # host
%cast_1 : f32[2,1] = Cast(%nonzero_1, dtype=dtype(f32))  # device 2
%constant_1 : f32[] = Constant(value=lit(f32[], [1.000000e+01]))  # device 2
%broadcast_1 : f32[2,1] = Broadcast(%constant_1, dims=[2, 1], bdims=[])  # device 2
%mul_2 : f32[2,1] = Mul(%cast_1, %broadcast_1)  # device 2
%exp_1 : f32[6] = Exp(%arg0)  # device 1
output(%mul_2, %exp_1; %capture0 <- %mul_1)

device 1 (%arg0, %capture0) -> %mul_1, %gt_1, %exp_1
%in0 : f32[6] = placeholder[arg 0]
%in1 : f32[6] = placeholder[arg 1]
%mul_1 : f32[6] = Mul(%in0, %in1)  # device 1
%gt_1 : i1[6] = Compare(%mul_1, %in0, dir="GT")  # device 1
%exp_1 : f32[6] = Exp(%in0)  # device 1
output(%mul_1, %gt_1, %exp_1)
host NonZero(%gt_1) -> %nonzero_1
device 2 (%nonzero_1) -> %mul_2
%in0 : i64[2,1] = placeholder[arg 0]
%cast_1 : f32[2,1] = Cast(%in0, dtype=dtype(f32))  # device 2
%constant_1 : f32[] = Constant(value=lit(f32[], [1.000000e+01]))  # device 2
%broadcast_1 : f32[2,1] = Broadcast(%constant_1, dims=[2, 1], bdims=[])  # device 2
%mul_2 : f32[2,1] = Mul(%cast_1, %broadcast_1)  # device 2
output(%mul_2)

split:
%arg0 : f32[6] = placeholder[arg 0]
%capture0 : f32[6] = placeholder[capture 0]
%partition_1 : (f32[6], i1[6], f32[6]) = subgraph(%arg0, %capture0)  # device 1
%nonzero_1 : i64[2,1] = NonZero(%partition_1#1)  # host
%partition_2 : f32[2,1] = subgraph(%nonzero_1)  # device 2
output(%partition_2, %partition_1#2; %capture0 <- %partition_1#0)
