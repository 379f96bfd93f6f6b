//go:build !purego

#include "textflag.h"

// Go's min and max for floats, eight lanes at a time and bit for bit: the
// compiler computes min(a, b) as t | MINSS(t, a) with t = MINSS(a, b) (a
// NaN comes out as the OR of both operands' bits) and max(x, y) as
// -min(-x, -y).

// func min32AVX2(d, a, b *float32, n int)   (n a positive multiple of 8)
TEXT ·min32AVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VMINPS Y1, Y0, Y2
	VMINPS Y0, Y2, Y3
	VORPS Y3, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func max32AVX2(d, a, b *float32, n int)   (n a positive multiple of 8)
TEXT ·max32AVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	VPCMPEQD Y7, Y7, Y7
	VPSLLD $31, Y7, Y7
loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VXORPS Y7, Y0, Y0
	VXORPS Y7, Y1, Y1
	VMINPS Y1, Y0, Y2
	VMINPS Y0, Y2, Y3
	VORPS Y3, Y2, Y2
	VXORPS Y7, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET
