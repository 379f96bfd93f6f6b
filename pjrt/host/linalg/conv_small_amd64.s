//go:build amd64 && !purego

#include "textflag.h"

// Kernels of the small-channel convolutions (conv_small.go).

// ---- taps: 8 output channels x a strip of 3 vectors; accumulator of
// channel o, vector r is Z(3o+r); the strip's input vectors in Z24..Z26 ----

#define TAP_O(disp, zw, a0, a1, a2) \
	VBROADCASTSS disp(DX), zw; \
	VFMADD231PS Z24, zw, a0; \
	VFMADD231PS Z25, zw, a1; \
	VFMADD231PS Z26, zw, a2

#define STORE_O(a0, a1, a2) \
	VMOVUPS a0, K1, (R8); \
	VMOVUPS a1, K2, (R9); \
	VMOVUPS a2, K3, (R10); \
	DECQ R12; \
	JZ   tdone; \
	ADDQ R11, R8; \
	ADDQ R11, R9; \
	ADDQ R11, R10

// RELU_ONE stores Go's max(a, +0) at p+R14 under mask k: a > 0 ? a : +0,
// and a NaN with its sign cleared (what max computes as -min(-a, -0)).
#define RELU_ONE(a, k, p) \
	VMAXPS Z31, a, Z27; \
	VCMPPS $3, a, a, K4; \
	VPANDD Z30, a, K4, Z27; \
	VMOVUPS Z27, k, (p)(R14*1)

#define STORE_RELU_O(a0, a1, a2) \
	VMOVUPS a0, K1, (R8); \
	VMOVUPS a1, K2, (R9); \
	VMOVUPS a2, K3, (R10); \
	RELU_ONE(a0, K1, R8); \
	RELU_ONE(a1, K2, R9); \
	RELU_ONE(a2, K3, R10); \
	DECQ R12; \
	JZ   tdone; \
	ADDQ R11, R8; \
	ADDQ R11, R9; \
	ADDQ R11, R10

// BIAS_O adds channel o's bias (acc + bias: the accumulator is the first
// operand, as in the unfused add).
#define BIAS_O(disp, a0, a1, a2) \
	VBROADCASTSS disp(R13), Z27; \
	VADDPS Z27, a0, a0; \
	VADDPS Z27, a1, a1; \
	VADDPS Z27, a2, a2

// func convTaps8x3AVX512(taps int, off *int32, w, in *float32, st *tapStrip, out *float32, ostride, no int, bias, relu *float32)
// bias (8 values) is added to the sums when not nil; relu, when not nil,
// receives max(sum, +0) at the same offsets as out.
TEXT ·convTaps8x3AVX512(SB), NOSPLIT, $0-80
	MOVQ taps+0(FP), CX
	MOVQ off+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ in+24(FP), AX
	MOVQ st+32(FP), BX
	MOVQ 0(BX), R8
	LEAQ (AX)(R8*4), R8
	MOVQ 8(BX), R9
	LEAQ (AX)(R9*4), R9
	MOVQ 16(BX), R10
	LEAQ (AX)(R10*4), R10
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
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
	TESTQ CX, CX
	JE    tstore

tloop:
	MOVLQSX (SI), R11
	VMOVUPS (R8)(R11*4), Z24
	VMOVUPS (R9)(R11*4), Z25
	VMOVUPS (R10)(R11*4), Z26
	TAP_O(0, Z27, Z0, Z1, Z2)
	TAP_O(4, Z28, Z3, Z4, Z5)
	TAP_O(8, Z29, Z6, Z7, Z8)
	TAP_O(12, Z30, Z9, Z10, Z11)
	TAP_O(16, Z27, Z12, Z13, Z14)
	TAP_O(20, Z28, Z15, Z16, Z17)
	TAP_O(24, Z29, Z18, Z19, Z20)
	TAP_O(28, Z30, Z21, Z22, Z23)
	ADDQ $4, SI
	ADDQ $32, DX
	DECQ CX
	JNZ  tloop

tstore:
	MOVQ  bias+64(FP), R13
	TESTQ R13, R13
	JE    tmask
	BIAS_O(0, Z0, Z1, Z2)
	BIAS_O(4, Z3, Z4, Z5)
	BIAS_O(8, Z6, Z7, Z8)
	BIAS_O(12, Z9, Z10, Z11)
	BIAS_O(16, Z12, Z13, Z14)
	BIAS_O(20, Z15, Z16, Z17)
	BIAS_O(24, Z18, Z19, Z20)
	BIAS_O(28, Z21, Z22, Z23)

tmask:
	KMOVW 48(BX), K1
	KMOVW 56(BX), K2
	KMOVW 64(BX), K3
	MOVQ  out+40(FP), AX
	MOVQ  24(BX), R8
	LEAQ  (AX)(R8*4), R8
	MOVQ  32(BX), R9
	LEAQ  (AX)(R9*4), R9
	MOVQ  40(BX), R10
	LEAQ  (AX)(R10*4), R10
	MOVQ  ostride+48(FP), R11
	SHLQ  $2, R11
	MOVQ  no+56(FP), R12
	TESTQ R12, R12
	JE    tdone
	MOVQ  relu+72(FP), R14
	TESTQ R14, R14
	JNE   trelu
	STORE_O(Z0, Z1, Z2)
	STORE_O(Z3, Z4, Z5)
	STORE_O(Z6, Z7, Z8)
	STORE_O(Z9, Z10, Z11)
	STORE_O(Z12, Z13, Z14)
	STORE_O(Z15, Z16, Z17)
	STORE_O(Z18, Z19, Z20)
	STORE_O(Z21, Z22, Z23)
	JMP tdone

trelu:
	SUBQ  AX, R14
	VPXORD Z31, Z31, Z31
	MOVL  $0x7fffffff, R13
	VPBROADCASTD R13, Z30
	STORE_RELU_O(Z0, Z1, Z2)
	STORE_RELU_O(Z3, Z4, Z5)
	STORE_RELU_O(Z6, Z7, Z8)
	STORE_RELU_O(Z9, Z10, Z11)
	STORE_RELU_O(Z12, Z13, Z14)
	STORE_RELU_O(Z15, Z16, Z17)
	STORE_RELU_O(Z18, Z19, Z20)
	STORE_RELU_O(Z21, Z22, Z23)

tdone:
	VZEROUPPER
	RET

// ---- wgrad: 2 output channels x 9 taps; accumulator of channel o, tap t
// is Z(9o+t); gradients in Z18, Z19; input vectors in Z20, Z21 ----

#define WG_TAP(addr, zi, t0, t1) \
	VMOVUPS.Z addr, K1, zi; \
	VFMADD231PS zi, Z18, t0; \
	VFMADD231PS zi, Z19, t1

// func convWgrad2x9AVX512(acc *float32, nimg, oh, nxv int, mask uint64, gr *float32, gN, gH, gO int, in *float32, inN, inRow, dyRow int)
TEXT ·convWgrad2x9AVX512(SB), NOSPLIT, $0-104
	MOVQ acc+0(FP), AX
	VMOVUPS 0(AX), Z0
	VMOVUPS 64(AX), Z1
	VMOVUPS 128(AX), Z2
	VMOVUPS 192(AX), Z3
	VMOVUPS 256(AX), Z4
	VMOVUPS 320(AX), Z5
	VMOVUPS 384(AX), Z6
	VMOVUPS 448(AX), Z7
	VMOVUPS 512(AX), Z8
	VMOVUPS 576(AX), Z9
	VMOVUPS 640(AX), Z10
	VMOVUPS 704(AX), Z11
	VMOVUPS 768(AX), Z12
	VMOVUPS 832(AX), Z13
	VMOVUPS 896(AX), Z14
	VMOVUPS 960(AX), Z15
	VMOVUPS 1024(AX), Z16
	VMOVUPS 1088(AX), Z17
	MOVQ dyRow+96(FP), DX
	SHLQ $2, DX
	MOVQ gO+64(FP), R12
	SHLQ $2, R12
	MOVQ gr+40(FP), SI
	MOVQ in+72(FP), DI
	MOVQ nimg+8(FP), CX
	TESTQ CX, CX
	JE   wdone

wimg:
	MOVQ SI, R8
	MOVQ DI, R9
	MOVQ oh+16(FP), BX

wrow:
	MOVQ R8, R10
	MOVQ R9, R11
	MOVQ nxv+24(FP), R13

wvec:
	MOVQ  $0xffff, AX
	CMPQ  R13, $1
	JNE   wfull
	MOVQ  mask+32(FP), AX

wfull:
	KMOVW AX, K1
	VMOVUPS.Z (R10), K1, Z18
	VMOVUPS.Z (R10)(R12*1), K1, Z19
	WG_TAP((R11), Z20, Z0, Z9)
	WG_TAP(4(R11), Z21, Z1, Z10)
	WG_TAP(8(R11), Z20, Z2, Z11)
	WG_TAP((R11)(DX*1), Z21, Z3, Z12)
	WG_TAP(4(R11)(DX*1), Z20, Z4, Z13)
	WG_TAP(8(R11)(DX*1), Z21, Z5, Z14)
	WG_TAP((R11)(DX*2), Z20, Z6, Z15)
	WG_TAP(4(R11)(DX*2), Z21, Z7, Z16)
	WG_TAP(8(R11)(DX*2), Z20, Z8, Z17)
	ADDQ $64, R10
	ADDQ $64, R11
	DECQ R13
	JNZ  wvec

	MOVQ gH+56(FP), AX
	LEAQ (R8)(AX*4), R8
	MOVQ inRow+88(FP), AX
	LEAQ (R9)(AX*4), R9
	DECQ BX
	JNZ  wrow

	MOVQ gN+48(FP), AX
	LEAQ (SI)(AX*4), SI
	MOVQ inN+80(FP), AX
	LEAQ (DI)(AX*4), DI
	DECQ CX
	JNZ  wimg

wdone:
	MOVQ acc+0(FP), AX
	VMOVUPS Z0, 0(AX)
	VMOVUPS Z1, 64(AX)
	VMOVUPS Z2, 128(AX)
	VMOVUPS Z3, 192(AX)
	VMOVUPS Z4, 256(AX)
	VMOVUPS Z5, 320(AX)
	VMOVUPS Z6, 384(AX)
	VMOVUPS Z7, 448(AX)
	VMOVUPS Z8, 512(AX)
	VMOVUPS Z9, 576(AX)
	VMOVUPS Z10, 640(AX)
	VMOVUPS Z11, 704(AX)
	VMOVUPS Z12, 768(AX)
	VMOVUPS Z13, 832(AX)
	VMOVUPS Z14, 896(AX)
	VMOVUPS Z15, 960(AX)
	VMOVUPS Z16, 1024(AX)
	VMOVUPS Z17, 1088(AX)
	VZEROUPPER
	RET

// func padPlaneAVX512(dst, src *float32, n, h, w, lH, wp, first int, mask uint64)
// Zeroes dst[0:n], then copies h rows of w elements from src (rows lH
// apart) to dst from first on (rows wp apart); mask covers the w%16 last
// elements of a row.
TEXT ·padPlaneAVX512(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ n+16(FP), CX
	VPXORD Z0, Z0, Z0
	MOVQ DI, AX

pzloop:
	CMPQ CX, $16
	JL   pztail
	VMOVUPS Z0, (AX)
	ADDQ $64, AX
	SUBQ $16, CX
	JMP  pzloop

pztail:
	TESTQ CX, CX
	JE    pcopy
	MOVQ  $1, DX
	SHLQ  CX, DX
	DECQ  DX
	KMOVW DX, K1
	VMOVUPS Z0, K1, (AX)

pcopy:
	MOVQ  src+8(FP), SI
	MOVQ  first+56(FP), AX
	LEAQ  (DI)(AX*4), DI
	MOVQ  h+24(FP), BX
	MOVQ  lH+40(FP), R8
	SHLQ  $2, R8
	MOVQ  wp+48(FP), R9
	SHLQ  $2, R9
	MOVQ  mask+64(FP), DX
	KMOVW DX, K2
	MOVQ  w+32(FP), R10
	SHRQ  $4, R10

prloop:
	TESTQ BX, BX
	JE    pdone
	MOVQ  SI, R11
	MOVQ  DI, R12
	MOVQ  R10, CX

pvloop:
	TESTQ CX, CX
	JE    pvtail
	VMOVUPS (R11), Z1
	VMOVUPS Z1, (R12)
	ADDQ  $64, R11
	ADDQ  $64, R12
	DECQ  CX
	JMP   pvloop

pvtail:
	VMOVUPS.Z (R11), K2, Z1
	VMOVUPS Z1, K2, (R12)
	ADDQ  R8, SI
	ADDQ  R9, DI
	DECQ  BX
	JMP   prloop

pdone:
	VZEROUPPER
	RET

// ---- wgrad, two output-gradient rows at a time (row stride equal to the
// tap row stride): rows y and y+1 read input rows y..y+3, each loaded
// once; gradients of row y in Z18, Z19, of row y+1 in Z22, Z23 ----

#define WG2_TOP(addr, zi, t0, t1) \
	VMOVUPS.Z addr, K1, zi; \
	VFMADD231PS zi, Z18, t0; \
	VFMADD231PS zi, Z19, t1

#define WG2_BOTH(addr, zi, t0, t1, u0, u1) \
	VMOVUPS.Z addr, K1, zi; \
	VFMADD231PS zi, Z18, t0; \
	VFMADD231PS zi, Z19, t1; \
	VFMADD231PS zi, Z22, u0; \
	VFMADD231PS zi, Z23, u1

#define WG2_BOT(addr, zi, u0, u1) \
	VMOVUPS.Z addr, K1, zi; \
	VFMADD231PS zi, Z22, u0; \
	VFMADD231PS zi, Z23, u1

// func convWgrad2x9R2AVX512(acc *float32, nimg, pairs, nxv int, mask uint64, gr *float32, gN, gH, gO int, in *float32, inN, inRow, dyRow int)
TEXT ·convWgrad2x9R2AVX512(SB), NOSPLIT, $0-104
	MOVQ acc+0(FP), AX
	VMOVUPS 0(AX), Z0
	VMOVUPS 64(AX), Z1
	VMOVUPS 128(AX), Z2
	VMOVUPS 192(AX), Z3
	VMOVUPS 256(AX), Z4
	VMOVUPS 320(AX), Z5
	VMOVUPS 384(AX), Z6
	VMOVUPS 448(AX), Z7
	VMOVUPS 512(AX), Z8
	VMOVUPS 576(AX), Z9
	VMOVUPS 640(AX), Z10
	VMOVUPS 704(AX), Z11
	VMOVUPS 768(AX), Z12
	VMOVUPS 832(AX), Z13
	VMOVUPS 896(AX), Z14
	VMOVUPS 960(AX), Z15
	VMOVUPS 1024(AX), Z16
	VMOVUPS 1088(AX), Z17
	MOVQ dyRow+96(FP), DX
	SHLQ $2, DX
	MOVQ gO+64(FP), R12
	SHLQ $2, R12
	MOVQ gr+40(FP), SI
	MOVQ in+72(FP), DI
	MOVQ nimg+8(FP), CX
	TESTQ CX, CX
	JE   w2done

w2img:
	MOVQ SI, R8
	MOVQ DI, R9
	MOVQ pairs+16(FP), BX

w2row:
	MOVQ R8, R10
	MOVQ R9, R11
	MOVQ nxv+24(FP), R13

w2vec:
	MOVQ  $0xffff, AX
	CMPQ  R13, $1
	JNE   w2full
	MOVQ  mask+32(FP), AX

w2full:
	KMOVW AX, K1
	MOVQ  gH+56(FP), R14
	LEAQ  (R10)(R14*4), R14
	LEAQ  (R11)(DX*2), AX
	VMOVUPS.Z (R10), K1, Z18
	VMOVUPS.Z (R10)(R12*1), K1, Z19
	VMOVUPS.Z (R14), K1, Z22
	VMOVUPS.Z (R14)(R12*1), K1, Z23
	// input row y: taps ki=0 of row y
	WG2_TOP((R11), Z20, Z0, Z9)
	WG2_TOP(4(R11), Z21, Z1, Z10)
	WG2_TOP(8(R11), Z20, Z2, Z11)
	// input row y+1: ki=1 of row y, ki=0 of row y+1
	WG2_BOTH((R11)(DX*1), Z21, Z3, Z12, Z0, Z9)
	WG2_BOTH(4(R11)(DX*1), Z20, Z4, Z13, Z1, Z10)
	WG2_BOTH(8(R11)(DX*1), Z21, Z5, Z14, Z2, Z11)
	// input row y+2: ki=2 of row y, ki=1 of row y+1
	WG2_BOTH((AX), Z20, Z6, Z15, Z3, Z12)
	WG2_BOTH(4(AX), Z21, Z7, Z16, Z4, Z13)
	WG2_BOTH(8(AX), Z20, Z8, Z17, Z5, Z14)
	// input row y+3: ki=2 of row y+1
	WG2_BOT((AX)(DX*1), Z21, Z6, Z15)
	WG2_BOT(4(AX)(DX*1), Z20, Z7, Z16)
	WG2_BOT(8(AX)(DX*1), Z21, Z8, Z17)
	ADDQ $64, R10
	ADDQ $64, R11
	DECQ R13
	JNZ  w2vec

	MOVQ gH+56(FP), AX
	LEAQ (R8)(AX*8), R8
	MOVQ inRow+88(FP), AX
	LEAQ (R9)(AX*8), R9
	DECQ BX
	JNZ  w2row

	MOVQ gN+48(FP), AX
	LEAQ (SI)(AX*4), SI
	MOVQ inN+80(FP), AX
	LEAQ (DI)(AX*4), DI
	DECQ CX
	JNZ  w2img

w2done:
	MOVQ acc+0(FP), AX
	VMOVUPS Z0, 0(AX)
	VMOVUPS Z1, 64(AX)
	VMOVUPS Z2, 128(AX)
	VMOVUPS Z3, 192(AX)
	VMOVUPS Z4, 256(AX)
	VMOVUPS Z5, 320(AX)
	VMOVUPS Z6, 384(AX)
	VMOVUPS Z7, 448(AX)
	VMOVUPS Z8, 512(AX)
	VMOVUPS Z9, 576(AX)
	VMOVUPS Z10, 640(AX)
	VMOVUPS Z11, 704(AX)
	VMOVUPS Z12, 768(AX)
	VMOVUPS Z13, 832(AX)
	VMOVUPS Z14, 896(AX)
	VMOVUPS Z15, 960(AX)
	VMOVUPS Z16, 1024(AX)
	VMOVUPS Z17, 1088(AX)
	VZEROUPPER
	RET
