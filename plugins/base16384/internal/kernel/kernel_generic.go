package kernel

var (
	encode = EncodeGeneric
	decode = DecodeGeneric
)
