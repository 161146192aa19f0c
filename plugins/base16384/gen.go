package base16384

//go:generate go run -C _asm . -raw -out ../raw_amd64.s
