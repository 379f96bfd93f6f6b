//go:build !purego

#include "textflag.h"

// func fpCallers(pcs []uintptr) int
//
// Walks the frame pointer chain from the caller's frame, storing the
// return address of each frame: pcs[0] is where the caller's caller
// resumes. The function has no frame, so BP is still the caller's.
TEXT ·fpCallers(SB),NOSPLIT,$0-32
	MOVQ pcs_base+0(FP), DI
	MOVQ pcs_len+8(FP), CX
	MOVQ BP, SI
	XORQ AX, AX
loop:
	CMPQ AX, CX
	JGE done
	TESTQ SI, SI
	JEQ done
	MOVQ 8(SI), DX
	MOVQ DX, (DI)(AX*8)
	MOVQ 0(SI), SI
	INCQ AX
	JMP loop
done:
	MOVQ AX, ret+24(FP)
	RET
