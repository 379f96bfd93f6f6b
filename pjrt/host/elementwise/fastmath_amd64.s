//go:build amd64 && !purego

#include "textflag.h"

// AVX2 forms of exp32s, tanh32s and logistic32s (fastmath.go): the same
// float64 operations in the same order, four lanes at a time, without FMA
// contraction, so every result is bit-identical to the Go loop. Each
// routine handles n elements, n a positive multiple of 4.
//
// Constants come from ·fastConsts (fastmath_amd64.go), one float64 or
// int64 per 8 bytes, indexed as below.

#define C_ABS      0   // 0x7fff...: |x| mask
#define C_SIGN     8   // 0x8000...: sign mask
#define C_INVLN2N  16  // 8 / ln 2
#define C_MAGIC    24  // roundMagic + 2^20 (k biased to stay positive)
#define C_LN2N     32  // ln 2 / 8
#define C_ONE      40
#define C_HALF     48
#define C_SIXTH    56
#define C_24TH     64
#define C_120TH    72
#define C_TWO      80
#define C_20       88
#define C_200      96
#define C_M200     104
#define C_MASK31   112 // int64 expTableSize-1
#define C_MASK32   120 // int64 0xffffffff
#define C_EBIAS    128 // int64 1023 - 2^20/expTableSize

// EXPPARTS computes, for v in Y0 (float64 lanes), s = 2^m 2^(j/8) in Y3
// and p = e^r - 1 in Y4, as expm1 in fastmath.go. Uses Y1, Y2, Y5, Y6, Y7.
// Expects R9 = &fastConsts, R10 = &expTable.
#define EXPPARTS \
	VBROADCASTSD C_INVLN2N(R9), Y1; \
	VMULPD Y1, Y0, Y1; \
	VBROADCASTSD C_MAGIC(R9), Y2; \
	VADDPD Y2, Y1, Y1; \
	VSUBPD Y2, Y1, Y5; \
	VBROADCASTSD C_LN2N(R9), Y6; \
	VMULPD Y6, Y5, Y5; \
	VSUBPD Y5, Y0, Y5; \
	VBROADCASTSD C_MASK31(R9), Y6; \
	VPAND Y6, Y1, Y6; \
	VPCMPEQD Y7, Y7, Y7; \
	VGATHERQPD Y7, (R10)(Y6*8), Y3; \
	VBROADCASTSD C_MASK32(R9), Y6; \
	VPAND Y6, Y1, Y1; \
	VPSRLQ $3, Y1, Y1; \
	VBROADCASTSD C_EBIAS(R9), Y6; \
	VPADDQ Y6, Y1, Y1; \
	VPSLLQ $52, Y1, Y1; \
	VMULPD Y3, Y1, Y3; \
	VBROADCASTSD C_120TH(R9), Y4; \
	VMULPD Y4, Y5, Y4; \
	VBROADCASTSD C_24TH(R9), Y6; \
	VADDPD Y6, Y4, Y4; \
	VMULPD Y4, Y5, Y4; \
	VBROADCASTSD C_SIXTH(R9), Y6; \
	VADDPD Y6, Y4, Y4; \
	VMULPD Y4, Y5, Y4; \
	VBROADCASTSD C_HALF(R9), Y6; \
	VADDPD Y6, Y4, Y4; \
	VMULPD Y4, Y5, Y4; \
	VBROADCASTSD C_ONE(R9), Y6; \
	VADDPD Y6, Y4, Y4; \
	VMULPD Y4, Y5, Y4

// CLAMP200 limits Y0 to [-200, 200]; NaN stays NaN (VMINPD and VMAXPD
// return their second source, here the value, when either is NaN).
#define CLAMP200 \
	VBROADCASTSD C_200(R9), Y1; \
	VMINPD Y0, Y1, Y0; \
	VBROADCASTSD C_M200(R9), Y1; \
	VMAXPD Y0, Y1, Y0

// func exp32AVX2(d, a *float32, n int)
TEXT ·exp32AVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ ·fastConsts(SB), R9
	LEAQ ·expTable(SB), R10
exploop:
	VCVTPS2PD (SI), Y0
	CLAMP200
	EXPPARTS
	VMULPD Y4, Y3, Y4
	VADDPD Y4, Y3, Y0          // s + s*p
	VCVTPD2PSY Y0, X0
	VMOVUPS X0, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $4, CX
	JNZ exploop
	VZEROUPPER
	RET

// func tanh32AVX2(d, a *float32, n int)
TEXT ·tanh32AVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ ·fastConsts(SB), R9
	LEAQ ·expTable(SB), R10
tanhloop:
	VCVTPS2PD (SI), Y8         // x
	VBROADCASTSD C_ABS(R9), Y1
	VANDPD Y1, Y8, Y0
	VADDPD Y0, Y0, Y0          // v = 2|x|
	VBROADCASTSD C_20(R9), Y1
	VMINPD Y0, Y1, Y0          // min(20, v), NaN kept
	EXPPARTS
	VBROADCASTSD C_ONE(R9), Y6
	VSUBPD Y6, Y3, Y6          // s - 1
	VMULPD Y4, Y3, Y4          // s*p
	VADDPD Y4, Y6, Y4          // em
	VBROADCASTSD C_TWO(R9), Y6
	VADDPD Y6, Y4, Y6
	VDIVPD Y6, Y4, Y4          // em/(em+2)
	VBROADCASTSD C_ABS(R9), Y6
	VANDPD Y6, Y4, Y4
	VBROADCASTSD C_SIGN(R9), Y6
	VANDPD Y6, Y8, Y6
	VORPD Y6, Y4, Y4           // copysign
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $4, CX
	JNZ tanhloop
	VZEROUPPER
	RET

// func logistic32AVX2(d, a *float32, n int)
TEXT ·logistic32AVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ ·fastConsts(SB), R9
	LEAQ ·expTable(SB), R10
logloop:
	VCVTPS2PD (SI), Y0
	VBROADCASTSD C_SIGN(R9), Y1
	VXORPD Y1, Y0, Y0          // v = -x
	CLAMP200
	EXPPARTS
	VMULPD Y4, Y3, Y4
	VADDPD Y4, Y3, Y4          // e^-x
	VBROADCASTSD C_ONE(R9), Y6
	VADDPD Y6, Y4, Y4
	VDIVPD Y4, Y6, Y4          // 1 / (1 + e^-x)
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $4, CX
	JNZ logloop
	VZEROUPPER
	RET

