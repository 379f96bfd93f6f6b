//go:build !purego

#include "textflag.h"

// Eight 2x2 windows per iteration. A row segment is loaded as L (windows
// 0-3) and H (windows 4-7); VSHUFPS picks the even elements (the windows'
// left column, $0x88) and the odd ones (right column, $0xDD) in the lane
// order 0 1 4 5 | 2 3 6 7. VUNPCKLPS/VUNPCKHPS of two vectors in that
// order give a row's elements back in order, and VPERMQ $0xD8 maps between
// that order and the natural one (both ways).
#define LOADWIN \
	VMOVUPS (SI), Y0; \
	VMOVUPS 32(SI), Y1; \
	VMOVUPS (DI), Y2; \
	VMOVUPS 32(DI), Y3; \
	VSHUFPS $0x88, Y1, Y0, Y4; \
	VSHUFPS $0xDD, Y1, Y0, Y5; \
	VSHUFPS $0x88, Y3, Y2, Y6; \
	VSHUFPS $0xDD, Y3, Y2, Y7

// One step of the choice among a (Y4), b (Y5), c (Y6), d (Y7): Y12 =
// !keep(current, cand) by predicate pred (CMPN compares (current, cand),
// CMPS (cand, current)), then the current value (Y8) and the one-hot
// choices so far, Y9 (a), Y10 (b) and Y11 (c), follow.
#define CMPN(pred, cand) VCMPPS pred, cand, Y8, Y12
#define CMPS(pred, cand) VCMPPS pred, Y8, cand, Y12
#define DROP \
	VANDNPS Y9, Y12, Y9; \
	VANDNPS Y10, Y12, Y10; \
	VANDNPS Y11, Y12, Y11

// dst = sel ? Y14 (init + source) : Y15 (init).
#define PICK(sel, dst) \
	VXORPS Y15, Y14, dst; \
	VANDPS sel, dst, dst; \
	VXORPS Y15, dst, dst

#define SELHEAD \
	LOADWIN; \
	VMOVUPS (R10), Y14; \
	VPERMQ $0xD8, Y14, Y14; \
	VADDPS Y14, Y15, Y14; \
	VMOVAPS Y4, Y8; \
	VPCMPEQD Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11

#define SELTAIL \
	PICK(Y9, Y0); \
	PICK(Y10, Y1); \
	PICK(Y11, Y2); \
	PICK(Y12, Y3); \
	VUNPCKLPS Y1, Y0, Y4; \
	VUNPCKHPS Y1, Y0, Y5; \
	VUNPCKLPS Y3, Y2, Y6; \
	VUNPCKHPS Y3, Y2, Y7; \
	VMOVUPS Y4, (R8); \
	VMOVUPS Y5, 32(R8); \
	VMOVUPS Y6, (R9); \
	VMOVUPS Y7, 32(R9); \
	ADDQ $64, SI; \
	ADDQ $64, DI; \
	ADDQ $64, R8; \
	ADDQ $64, R9; \
	ADDQ $32, R10

// Predicates: $0x19 is NGE_UQ (!(x >= y), true for NaNs), $0x1A NGT_UQ.

// func select2x2GE(v0, v1, d0, d1, src *float32, n int, init float32)
// keep(cur, cand) = cur >= cand
TEXT ·select2x2GE(SB), NOSPLIT, $0-52
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSS init+48(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	SELHEAD
	CMPN($0x19, Y5)
	VBLENDVPS Y12, Y5, Y8, Y8
	DROP
	VMOVAPS Y12, Y10
	CMPN($0x19, Y6)
	VBLENDVPS Y12, Y6, Y8, Y8
	DROP
	VMOVAPS Y12, Y11
	CMPN($0x19, Y7)
	DROP
	SELTAIL
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// func select2x2GT(v0, v1, d0, d1, src *float32, n int, init float32)
// keep(cur, cand) = cur > cand
TEXT ·select2x2GT(SB), NOSPLIT, $0-52
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSS init+48(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	SELHEAD
	CMPN($0x1A, Y5)
	VBLENDVPS Y12, Y5, Y8, Y8
	DROP
	VMOVAPS Y12, Y10
	CMPN($0x1A, Y6)
	VBLENDVPS Y12, Y6, Y8, Y8
	DROP
	VMOVAPS Y12, Y11
	CMPN($0x1A, Y7)
	DROP
	SELTAIL
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// func select2x2LE(v0, v1, d0, d1, src *float32, n int, init float32)
// keep(cur, cand) = cur <= cand = cand >= cur
TEXT ·select2x2LE(SB), NOSPLIT, $0-52
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSS init+48(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	SELHEAD
	CMPS($0x19, Y5)
	VBLENDVPS Y12, Y5, Y8, Y8
	DROP
	VMOVAPS Y12, Y10
	CMPS($0x19, Y6)
	VBLENDVPS Y12, Y6, Y8, Y8
	DROP
	VMOVAPS Y12, Y11
	CMPS($0x19, Y7)
	DROP
	SELTAIL
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// func select2x2LT(v0, v1, d0, d1, src *float32, n int, init float32)
// keep(cur, cand) = cur < cand = cand > cur
TEXT ·select2x2LT(SB), NOSPLIT, $0-52
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSS init+48(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	SELHEAD
	CMPS($0x1A, Y5)
	VBLENDVPS Y12, Y5, Y8, Y8
	DROP
	VMOVAPS Y12, Y10
	CMPS($0x1A, Y6)
	VBLENDVPS Y12, Y6, Y8, Y8
	DROP
	VMOVAPS Y12, Y11
	CMPS($0x1A, Y7)
	DROP
	SELTAIL
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// PyTorch's pooling rule: Y12 = cand > current (pred $0x1E, GT_OQ) or
// cand < current ($0x11, LT_OQ), or cand is NaN ($0x03, UNORD_Q with
// itself): the choice moves to cand. Y13 is scratch.
#define CMPNAN(pred, cand) \
	VCMPPS pred, Y8, cand, Y12; \
	VCMPPS $0x03, cand, cand, Y13; \
	VORPS Y13, Y12, Y12

#define SELNANBODY(pred) \
	SELHEAD; \
	CMPNAN(pred, Y5); \
	VBLENDVPS Y12, Y5, Y8, Y8; \
	DROP; \
	VMOVAPS Y12, Y10; \
	CMPNAN(pred, Y6); \
	VBLENDVPS Y12, Y6, Y8, Y8; \
	DROP; \
	VMOVAPS Y12, Y11; \
	CMPNAN(pred, Y7); \
	DROP; \
	SELTAIL

// func select2x2MaxNaN(v0, v1, d0, d1, src *float32, n int, init float32)
// keep(cur, cand) = !(cand > cur || cand != cand)
TEXT ·select2x2MaxNaN(SB), NOSPLIT, $0-52
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSS init+48(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	SELNANBODY($0x1E)
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// func select2x2MinNaN(v0, v1, d0, d1, src *float32, n int, init float32)
// keep(cur, cand) = !(cand < cur || cand != cand)
TEXT ·select2x2MinNaN(SB), NOSPLIT, $0-52
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSS init+48(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	SELNANBODY($0x11)
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// GOMAX(x, y, t): t = Go's max(x, y) for floats, bit for bit: the
// compiler computes it as -min(-x, -y) with min(a, b) = m | MINSS(m, a),
// m = MINSS(a, b) (a NaN comes out as the OR of both operands' bits).
// Y11 holds the sign mask; Y12 and Y13 are scratch.
#define GOMAX(x, y, t) \
	VXORPS Y11, x, Y12; \
	VXORPS Y11, y, Y13; \
	VMINPS Y13, Y12, t; \
	VMINPS Y12, t, Y13; \
	VORPS Y13, t, t; \
	VXORPS Y11, t, t

// func reduce2x2Max(v0, v1, dst *float32, n int, init float32)
// dst[i] = max(max(max(max(init, a), b), c), d) per window, as Go's max.
TEXT ·reduce2x2Max(SB), NOSPLIT, $0-36
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ dst+16(FP), R8
	MOVQ n+24(FP), CX
	VBROADCASTSS init+32(FP), Y15
	VPCMPEQD Y11, Y11, Y11
	VPSLLD $31, Y11, Y11
	SHRQ $3, CX
	JZ done
loop:
	LOADWIN
	GOMAX(Y15, Y4, Y8)
	GOMAX(Y8, Y5, Y9)
	GOMAX(Y9, Y6, Y8)
	GOMAX(Y8, Y7, Y9)
	VPERMQ $0xD8, Y9, Y9
	VMOVUPS Y9, (R8)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $32, R8
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// func reduce2x2Add(v0, v1, dst *float32, n int, init float32)
// dst[i] = (((init + a) + b) + c) + d per window.
TEXT ·reduce2x2Add(SB), NOSPLIT, $0-36
	MOVQ v0+0(FP), SI
	MOVQ v1+8(FP), DI
	MOVQ dst+16(FP), R8
	MOVQ n+24(FP), CX
	VBROADCASTSS init+32(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	LOADWIN
	VADDPS Y4, Y15, Y8
	VADDPS Y5, Y8, Y8
	VADDPS Y6, Y8, Y8
	VADDPS Y7, Y8, Y8
	VPERMQ $0xD8, Y8, Y8
	VMOVUPS Y8, (R8)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $32, R8
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// Whole chunks of window rows: each row's windows eight at a time, the
// last eight again when ow is not a multiple of 8 (windows do not share
// elements, so a window done twice gives the same results), with no return
// to Go between rows. A row of 4 to 7 windows runs as eight reaching into
// the next window row (see spill), so the caller leaves the last row of
// its chunk out.

#define MAXBODY \
	LOADWIN; \
	GOMAX(Y15, Y4, Y8); \
	GOMAX(Y8, Y5, Y9); \
	GOMAX(Y9, Y6, Y8); \
	GOMAX(Y8, Y7, Y9); \
	VPERMQ $0xD8, Y9, Y9; \
	VMOVUPS Y9, (R8)

// func reduce2x2MaxRows(in, out *float32, rows, w, ow int, init float32)
// Rows of windows: row r reads in rows 2r and 2r+1 (w elements each) and
// writes out[r*ow:(r+1)*ow].
TEXT ·reduce2x2MaxRows(SB), NOSPLIT, $0-44
	MOVQ in+0(FP), AX
	MOVQ out+8(FP), BX
	MOVQ rows+16(FP), DX
	MOVQ w+24(FP), R11
	SHLQ $2, R11
	MOVQ ow+32(FP), R12
	VBROADCASTSS init+40(FP), Y15
	VPCMPEQD Y11, Y11, Y11
	VPSLLD $31, Y11, Y11
	TESTQ DX, DX
	JZ   mrdone
mrrow:
	MOVQ AX, SI
	LEAQ (AX)(R11*1), DI
	MOVQ BX, R8
	MOVQ R12, CX
	SHRQ $3, CX
	JZ   mrspill
mrloop:
	MAXBODY
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  mrloop
	MOVQ R12, CX
	ANDQ $7, CX
	JZ   mrnext
	// The last eight windows: from window ow-8.
	LEAQ -8(R12), CX
	LEAQ (AX)(CX*8), SI
	LEAQ (SI)(R11*1), DI
	LEAQ (BX)(CX*4), R8
	MAXBODY
	JMP  mrnext
mrspill:
	// 4 <= ow < 8: eight windows, the last ones reaching into the next
	// window row (which the next iteration writes again).
	MAXBODY
mrnext:
	LEAQ (AX)(R11*2), AX
	LEAQ (BX)(R12*4), BX
	DECQ DX
	JNZ  mrrow
mrdone:
	VZEROUPPER
	RET

#define SELGEBODY \
	SELHEAD; \
	CMPN($0x19, Y5); \
	VBLENDVPS Y12, Y5, Y8, Y8; \
	DROP; \
	VMOVAPS Y12, Y10; \
	CMPN($0x19, Y6); \
	VBLENDVPS Y12, Y6, Y8, Y8; \
	DROP; \
	VMOVAPS Y12, Y11; \
	CMPN($0x19, Y7); \
	DROP; \
	SELTAIL

// SELROWS is the body of a Rows function: rows of windows as the
// single-row kernel whose window body is BODY (row r reads operand rows 2r
// and 2r+1, writes out rows 2r and 2r+1, w elements each, and reads
// src[r*ow:(r+1)*ow]; a row's last ow%8 windows go again with the last 8),
// once the arguments are loaded (AX operand, BX out, R13 src, DX rows, R11
// w*4, R12 ow, Y15 init).
#define SELROWS(BODY) \
	TESTQ DX, DX; \
	JZ   srdone; \
srrow: \
	MOVQ AX, SI; \
	LEAQ (AX)(R11*1), DI; \
	MOVQ BX, R8; \
	LEAQ (BX)(R11*1), R9; \
	MOVQ R13, R10; \
	MOVQ R12, CX; \
	SHRQ $3, CX; \
	JZ   srspill; \
srloop: \
	BODY; \
	DECQ CX; \
	JNZ  srloop; \
	MOVQ R12, CX; \
	ANDQ $7, CX; \
	JZ   srnext; \
	LEAQ -8(R12), CX; \
	LEAQ (AX)(CX*8), SI; \
	LEAQ (SI)(R11*1), DI; \
	LEAQ (BX)(CX*8), R8; \
	LEAQ (R8)(R11*1), R9; \
	LEAQ (R13)(CX*4), R10; \
	BODY; \
	JMP  srnext; \
srspill: \
	BODY; \
srnext: \
	LEAQ (AX)(R11*2), AX; \
	LEAQ (BX)(R11*2), BX; \
	LEAQ (R13)(R12*4), R13; \
	DECQ DX; \
	JNZ  srrow; \
srdone: \
	VZEROUPPER; \
	RET

#define SELNANMAXBODY SELNANBODY($0x1E)

// func select2x2GERows(operand, out, src *float32, rows, w, ow int, init float32)
// Rows of windows as select2x2GE (SELROWS).
TEXT ·select2x2GERows(SB), NOSPLIT, $0-52
	MOVQ operand+0(FP), AX
	MOVQ out+8(FP), BX
	MOVQ src+16(FP), R13
	MOVQ rows+24(FP), DX
	MOVQ w+32(FP), R11
	SHLQ $2, R11
	MOVQ ow+40(FP), R12
	VBROADCASTSS init+48(FP), Y15
	SELROWS(SELGEBODY)

// func select2x2MaxNaNRows(operand, out, src *float32, rows, w, ow int, init float32)
// Rows of windows as select2x2MaxNaN (SELROWS).
TEXT ·select2x2MaxNaNRows(SB), NOSPLIT, $0-52
	MOVQ operand+0(FP), AX
	MOVQ out+8(FP), BX
	MOVQ src+16(FP), R13
	MOVQ rows+24(FP), DX
	MOVQ w+32(FP), R11
	SHLQ $2, R11
	MOVQ ow+40(FP), R12
	VBROADCASTSS init+48(FP), Y15
	SELROWS(SELNANMAXBODY)

// func maskGT0AVX2(out, a *float32, n int, c float32)
// out[i] = a[i] > 0 ? out[i] : c for i < n (n a multiple of 8); GT_OQ is
// false for NaNs, as the FLOAT comparison.
TEXT ·maskGT0AVX2(SB), NOSPLIT, $0-28
	MOVQ out+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS c+24(FP), Y15
	VXORPS Y14, Y14, Y14
	SHRQ $3, CX
	JZ   mkdone
mkloop:
	VMOVUPS (SI), Y0
	VCMPPS $0x1E, Y14, Y0, Y1
	VMOVUPS (DI), Y2
	VBLENDVPS Y1, Y2, Y15, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  mkloop
mkdone:
	VZEROUPPER
	RET

// func maskLE0AVX2(out, a *float32, n int, c float32)
// out[i] = a[i] <= 0 ? c : out[i] for i < n (n a multiple of 8); LE_OQ is
// false for NaNs, as the FLOAT comparison.
TEXT ·maskLE0AVX2(SB), NOSPLIT, $0-28
	MOVQ out+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS c+24(FP), Y15
	VXORPS Y14, Y14, Y14
	SHRQ $3, CX
	JZ   mldone
mlloop:
	VMOVUPS (SI), Y0
	VCMPPS $0x12, Y14, Y0, Y1
	VMOVUPS (DI), Y2
	VBLENDVPS Y1, Y15, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  mlloop
mldone:
	VZEROUPPER
	RET
