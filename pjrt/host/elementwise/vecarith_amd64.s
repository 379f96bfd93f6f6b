//go:build amd64 && !purego

#include "textflag.h"

// Vector forms of the float add, subtract, multiply, divide, maximum and
// minimum loops (arith.go): func(d, a, b *T, bytes int), bytes a positive
// multiple of the register width (32 or 64). Add, subtract, multiply and
// divide are the IEEE operations the Go loops compute; maximum and minimum
// repeat the instruction sequence the Go compiler emits for max and min,
// so NaN payloads and zero signs match too.

#define ARGS \
	MOVQ d+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ bytes+24(FP), CX; \
	XORQ AX, AX

// BIN defines a plain binary op: d = a OP b.
#define BIN(NAME, MOV, INSN, R0, W) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	ARGS; \
loop: \
	MOV (SI)(AX*1), R0; \
	INSN (DX)(AX*1), R0, R0; \
	MOV R0, (DI)(AX*1); \
	ADDQ $W, AX; \
	CMPQ AX, CX; \
	JLT loop; \
	VZEROUPPER; \
	RET

BIN(·addF32AVX512, VMOVUPS, VADDPS, Z0, 64)
BIN(·subF32AVX512, VMOVUPS, VSUBPS, Z0, 64)
BIN(·mulF32AVX512, VMOVUPS, VMULPS, Z0, 64)
BIN(·divF32AVX512, VMOVUPS, VDIVPS, Z0, 64)
BIN(·addF64AVX512, VMOVUPD, VADDPD, Z0, 64)
BIN(·subF64AVX512, VMOVUPD, VSUBPD, Z0, 64)
BIN(·mulF64AVX512, VMOVUPD, VMULPD, Z0, 64)
BIN(·divF64AVX512, VMOVUPD, VDIVPD, Z0, 64)
BIN(·addF32AVX2, VMOVUPS, VADDPS, Y0, 32)
BIN(·subF32AVX2, VMOVUPS, VSUBPS, Y0, 32)
BIN(·mulF32AVX2, VMOVUPS, VMULPS, Y0, 32)
BIN(·divF32AVX2, VMOVUPS, VDIVPS, Y0, 32)
BIN(·addF64AVX2, VMOVUPD, VADDPD, Y0, 32)
BIN(·subF64AVX2, VMOVUPD, VSUBPD, Y0, 32)
BIN(·mulF64AVX2, VMOVUPD, VMULPD, Y0, 32)
BIN(·divF64AVX2, VMOVUPD, VDIVPD, Y0, 32)

// MIN: d = Go's min(x = a, y = b) as the compiler builds it on amd64,
// m = MINPS(x, y); d = MINPS(m, x) | m (MINPS(u, v) is u < v ? u : v), so
// NaN payloads and zero signs come out as the Go loop's. MAX negates the
// operands and the result of the same sequence (Go's max is -min(-x, -y)).
// SIGN is a register holding the sign bits; OR a bitwise or.
#define MIN(INSN, OR, R0, R1, R2, R3) \
	INSN R1, R0, R2; \
	INSN R0, R2, R3; \
	OR R2, R3, R3

#define MINLOOP(NAME, MOV, INSN, OR, R0, R1, R2, R3, W) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	ARGS; \
loop: \
	MOV (SI)(AX*1), R0; \
	MOV (DX)(AX*1), R1; \
	MIN(INSN, OR, R0, R1, R2, R3); \
	MOV R3, (DI)(AX*1); \
	ADDQ $W, AX; \
	CMPQ AX, CX; \
	JLT loop; \
	VZEROUPPER; \
	RET

#define MAXLOOP(NAME, MOV, INSN, OR, XOR, BCAST, SIGNBITS, R0, R1, R2, R3, RS, W) \
TEXT NAME(SB), NOSPLIT, $0-32; \
	ARGS; \
	MOVQ $SIGNBITS, R8; \
	MOVQ R8, X15; \
	BCAST X15, RS; \
loop: \
	MOV (SI)(AX*1), R0; \
	MOV (DX)(AX*1), R1; \
	XOR RS, R0, R0; \
	XOR RS, R1, R1; \
	MIN(INSN, OR, R0, R1, R2, R3); \
	XOR RS, R3, R3; \
	MOV R3, (DI)(AX*1); \
	ADDQ $W, AX; \
	CMPQ AX, CX; \
	JLT loop; \
	VZEROUPPER; \
	XORPS X15, X15; \
	RET

MINLOOP(·minF32AVX512, VMOVUPS, VMINPS, VPORD, Z0, Z1, Z2, Z3, 64)
MINLOOP(·minF64AVX512, VMOVUPD, VMINPD, VPORQ, Z0, Z1, Z2, Z3, 64)
MINLOOP(·minF32AVX2, VMOVUPS, VMINPS, VORPS, Y0, Y1, Y2, Y3, 32)
MINLOOP(·minF64AVX2, VMOVUPD, VMINPD, VORPD, Y0, Y1, Y2, Y3, 32)
MAXLOOP(·maxF32AVX512, VMOVUPS, VMINPS, VPORD, VPXORD, VPBROADCASTD, 0x80000000, Z0, Z1, Z2, Z3, Z4, 64)
MAXLOOP(·maxF64AVX512, VMOVUPD, VMINPD, VPORQ, VPXORQ, VPBROADCASTQ, 0x8000000000000000, Z0, Z1, Z2, Z3, Z4, 64)
MAXLOOP(·maxF32AVX2, VMOVUPS, VMINPS, VORPS, VXORPS, VPBROADCASTD, 0x80000000, Y0, Y1, Y2, Y3, Y4, 32)
MAXLOOP(·maxF64AVX2, VMOVUPD, VMINPD, VORPD, VXORPD, VPBROADCASTQ, 0x8000000000000000, Y0, Y1, Y2, Y3, Y4, 32)
