package kernel

//go:generate go run -C ../../_asm . -out ../internal/kernel/kernel_amd64.s -stubs ../internal/kernel/stubs_amd64.go -pkg kernel
