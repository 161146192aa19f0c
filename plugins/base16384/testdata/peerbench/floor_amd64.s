#include "textflag.h"

// func floorTo(dst, src []byte) (int, error)
TEXT ·floorTo(SB), NOSPLIT, $0-72
	XORL AX, AX
	MOVQ AX, ret+48(FP)
	MOVQ AX, ret1_itable+56(FP)
	MOVQ AX, ret1_data+64(FP)
	RET

// func floorMethod(e *base16384.Encoding, dst, src []byte) (int, error)
TEXT ·floorMethod(SB), NOSPLIT, $0-80
	XORL AX, AX
	MOVQ AX, ret+56(FP)
	MOVQ AX, ret1_itable+64(FP)
	MOVQ AX, ret1_data+72(FP)
	RET

// func floorAppendDecode(e *base16384.Encoding, dst, src []byte) ([]byte, error)
TEXT ·floorAppendDecode(SB), NOSPLIT, $0-96
	MOVQ dst_base+8(FP), AX
	MOVQ dst_len+16(FP), BX
	MOVQ dst_cap+24(FP), CX
	MOVQ AX, ret_base+56(FP)
	MOVQ BX, ret_len+64(FP)
	MOVQ CX, ret_cap+72(FP)
	XORL AX, AX
	MOVQ AX, ret1_itable+80(FP)
	MOVQ AX, ret1_data+88(FP)
	RET

// func floorAppendEncode(e *base16384.Encoding, dst, src []byte) []byte
TEXT ·floorAppendEncode(SB), NOSPLIT, $0-80
	MOVQ dst_base+8(FP), AX
	MOVQ dst_len+16(FP), BX
	MOVQ dst_cap+24(FP), CX
	MOVQ AX, ret_base+56(FP)
	MOVQ BX, ret_len+64(FP)
	MOVQ CX, ret_cap+72(FP)
	RET
