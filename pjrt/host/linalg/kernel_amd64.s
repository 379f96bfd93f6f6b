//go:build amd64 && !purego

#include "textflag.h"

// Micro-kernels: C[mr x nr] += A_panel * B_panel (see microKernel in
// gemm.go). A_panel holds k groups of mr values, B_panel k groups of nr
// values; c is row-major with row stride ldc elements. Accumulators live in
// vector registers for the whole k loop; each step loads one B row into
// registers, broadcasts each A value and issues one FMA per accumulator.

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv0() (eax, edx uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// ---- f32, AVX2+FMA, 6 x 16: accumulators Y4..Y15, B row in Y0,Y1 ----

#define S_ROW2(off, r0, r1, r2, r3) \
	VBROADCASTSS off(SI), Y2; \
	VBROADCASTSS off+4(SI), Y3; \
	VFMADD231PS Y0, Y2, r0; \
	VFMADD231PS Y1, Y2, r1; \
	VFMADD231PS Y0, Y3, r2; \
	VFMADD231PS Y1, Y3, r3

#define S6X16_STEP(aoff, boff) \
	VMOVUPS boff(DI), Y0; \
	VMOVUPS boff+32(DI), Y1; \
	S_ROW2(aoff, Y4, Y5, Y6, Y7); \
	S_ROW2(aoff+8, Y8, Y9, Y10, Y11); \
	S_ROW2(aoff+16, Y12, Y13, Y14, Y15)

#define Y_STORE2(r0, r1) \
	VADDPS (DX), r0, r0; \
	VMOVUPS r0, (DX); \
	VADDPS 32(DX), r1, r1; \
	VMOVUPS r1, 32(DX); \
	ADDQ R8, DX

// func sgemm6x16AVX2(k int, a, b, c *float32, ldc int)
TEXT ·sgemm6x16AVX2(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15
	CMPQ CX, $4
	JLT  s6x16tail

s6x16loop4:
	S6X16_STEP(0, 0)
	S6X16_STEP(24, 64)
	S6X16_STEP(48, 128)
	S6X16_STEP(72, 192)
	ADDQ $96, SI
	ADDQ $256, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  s6x16loop4

s6x16tail:
	TESTQ CX, CX
	JE    s6x16store

s6x16loop1:
	S6X16_STEP(0, 0)
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  s6x16loop1

s6x16store:
	Y_STORE2(Y4, Y5)
	Y_STORE2(Y6, Y7)
	Y_STORE2(Y8, Y9)
	Y_STORE2(Y10, Y11)
	Y_STORE2(Y12, Y13)
	Y_STORE2(Y14, Y15)
	VZEROUPPER
	RET

// ---- f64, AVX2+FMA, 6 x 8: accumulators Y4..Y15, B row in Y0,Y1 ----

#define D_ROW2(off, r0, r1, r2, r3) \
	VBROADCASTSD off(SI), Y2; \
	VBROADCASTSD off+8(SI), Y3; \
	VFMADD231PD Y0, Y2, r0; \
	VFMADD231PD Y1, Y2, r1; \
	VFMADD231PD Y0, Y3, r2; \
	VFMADD231PD Y1, Y3, r3

#define D6X8_STEP(aoff, boff) \
	VMOVUPD boff(DI), Y0; \
	VMOVUPD boff+32(DI), Y1; \
	D_ROW2(aoff, Y4, Y5, Y6, Y7); \
	D_ROW2(aoff+16, Y8, Y9, Y10, Y11); \
	D_ROW2(aoff+32, Y12, Y13, Y14, Y15)

#define YD_STORE2(r0, r1) \
	VADDPD (DX), r0, r0; \
	VMOVUPD r0, (DX); \
	VADDPD 32(DX), r1, r1; \
	VMOVUPD r1, 32(DX); \
	ADDQ R8, DX

// func dgemm6x8AVX2(k int, a, b, c *float64, ldc int)
TEXT ·dgemm6x8AVX2(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	CMPQ CX, $4
	JLT  d6x8tail

d6x8loop4:
	D6X8_STEP(0, 0)
	D6X8_STEP(48, 64)
	D6X8_STEP(96, 128)
	D6X8_STEP(144, 192)
	ADDQ $192, SI
	ADDQ $256, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  d6x8loop4

d6x8tail:
	TESTQ CX, CX
	JE    d6x8store

d6x8loop1:
	D6X8_STEP(0, 0)
	ADDQ $48, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  d6x8loop1

d6x8store:
	YD_STORE2(Y4, Y5)
	YD_STORE2(Y6, Y7)
	YD_STORE2(Y8, Y9)
	YD_STORE2(Y10, Y11)
	YD_STORE2(Y12, Y13)
	YD_STORE2(Y14, Y15)
	VZEROUPPER
	RET

// ---- f32, AVX-512, 12 x 32: accumulators Z8..Z31, B row in Z0,Z1 ----

#define SZ_ROW2(off, r0, r1, r2, r3) \
	VBROADCASTSS off(SI), Z2; \
	VBROADCASTSS off+4(SI), Z3; \
	VFMADD231PS Z0, Z2, r0; \
	VFMADD231PS Z1, Z2, r1; \
	VFMADD231PS Z0, Z3, r2; \
	VFMADD231PS Z1, Z3, r3

#define S12X32_STEP(aoff, boff) \
	VMOVUPS boff(DI), Z0; \
	VMOVUPS boff+64(DI), Z1; \
	SZ_ROW2(aoff, Z8, Z9, Z10, Z11); \
	SZ_ROW2(aoff+8, Z12, Z13, Z14, Z15); \
	SZ_ROW2(aoff+16, Z16, Z17, Z18, Z19); \
	SZ_ROW2(aoff+24, Z20, Z21, Z22, Z23); \
	SZ_ROW2(aoff+32, Z24, Z25, Z26, Z27); \
	SZ_ROW2(aoff+40, Z28, Z29, Z30, Z31)

#define Z_STORE2(r0, r1) \
	VADDPS (DX), r0, r0; \
	VMOVUPS r0, (DX); \
	VADDPS 64(DX), r1, r1; \
	VMOVUPS r1, 64(DX); \
	ADDQ R8, DX

// func sgemm12x32AVX512(k int, a, b, c *float32, ldc int)
TEXT ·sgemm12x32AVX512(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31
	CMPQ CX, $2
	JLT  s12x32tail

s12x32loop2:
	S12X32_STEP(0, 0)
	S12X32_STEP(48, 128)
	ADDQ $96, SI
	ADDQ $256, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JGE  s12x32loop2

s12x32tail:
	TESTQ CX, CX
	JE    s12x32store
	S12X32_STEP(0, 0)

s12x32store:
	Z_STORE2(Z8, Z9)
	Z_STORE2(Z10, Z11)
	Z_STORE2(Z12, Z13)
	Z_STORE2(Z14, Z15)
	Z_STORE2(Z16, Z17)
	Z_STORE2(Z18, Z19)
	Z_STORE2(Z20, Z21)
	Z_STORE2(Z22, Z23)
	Z_STORE2(Z24, Z25)
	Z_STORE2(Z26, Z27)
	Z_STORE2(Z28, Z29)
	Z_STORE2(Z30, Z31)
	VZEROUPPER
	RET

// ---- f64, AVX-512, 12 x 16: accumulators Z8..Z31, B row in Z0,Z1 ----

#define DZ_ROW2(off, r0, r1, r2, r3) \
	VBROADCASTSD off(SI), Z2; \
	VBROADCASTSD off+8(SI), Z3; \
	VFMADD231PD Z0, Z2, r0; \
	VFMADD231PD Z1, Z2, r1; \
	VFMADD231PD Z0, Z3, r2; \
	VFMADD231PD Z1, Z3, r3

#define D12X16_STEP(aoff, boff) \
	VMOVUPD boff(DI), Z0; \
	VMOVUPD boff+64(DI), Z1; \
	DZ_ROW2(aoff, Z8, Z9, Z10, Z11); \
	DZ_ROW2(aoff+16, Z12, Z13, Z14, Z15); \
	DZ_ROW2(aoff+32, Z16, Z17, Z18, Z19); \
	DZ_ROW2(aoff+48, Z20, Z21, Z22, Z23); \
	DZ_ROW2(aoff+64, Z24, Z25, Z26, Z27); \
	DZ_ROW2(aoff+80, Z28, Z29, Z30, Z31)

#define ZD_STORE2(r0, r1) \
	VADDPD (DX), r0, r0; \
	VMOVUPD r0, (DX); \
	VADDPD 64(DX), r1, r1; \
	VMOVUPD r1, 64(DX); \
	ADDQ R8, DX

// func dgemm12x16AVX512(k int, a, b, c *float64, ldc int)
TEXT ·dgemm12x16AVX512(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31
	CMPQ CX, $2
	JLT  d12x16tail

d12x16loop2:
	D12X16_STEP(0, 0)
	D12X16_STEP(96, 128)
	ADDQ $192, SI
	ADDQ $256, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JGE  d12x16loop2

d12x16tail:
	TESTQ CX, CX
	JE    d12x16store
	D12X16_STEP(0, 0)

d12x16store:
	ZD_STORE2(Z8, Z9)
	ZD_STORE2(Z10, Z11)
	ZD_STORE2(Z12, Z13)
	ZD_STORE2(Z14, Z15)
	ZD_STORE2(Z16, Z17)
	ZD_STORE2(Z18, Z19)
	ZD_STORE2(Z20, Z21)
	ZD_STORE2(Z22, Z23)
	ZD_STORE2(Z24, Z25)
	ZD_STORE2(Z26, Z27)
	ZD_STORE2(Z28, Z29)
	ZD_STORE2(Z30, Z31)
	VZEROUPPER
	RET
