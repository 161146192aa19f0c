package base16384

import "math/bits"

// checksumInit starts the running checksum of the C CLI's -c option.
const checksumInit = 0x8E29C213

// checksum adds p to the running checksum sum the way the C CLI does: each
// byte's four 2-bit pairs go to bits 0-1, 8-9, 16-17 and 24-25 of a word that
// is added to the sum, which is then rotated left by 3 and inverted.
func checksum(sum uint32, p []byte) uint32 {
	for _, b := range p {
		x := uint32(b)
		sum += (x&0xC0)<<18 | (x&0x30)<<12 | (x&0x0C)<<6 | x&0x03
		sum = ^bits.RotateLeft32(sum, 3)
	}
	return sum
}
