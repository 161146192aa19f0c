//go:build purego || !gc || !amd64

package base16384

// encodeRaw is encodeRawGo (in assembly on amd64).
func encodeRaw(e *Encoding, dst, src []byte) (int, error) { return encodeRawGo(e, dst, src) }

// decodeRaw is decodeRawGo (in assembly on amd64).
func decodeRaw(e *Encoding, dst, src []byte) (int, error) { return decodeRawGo(e, dst, src) }

// encodeStd is encodeStdGo (in assembly on amd64).
func encodeStd(dst, src []byte) (int, error) { return encodeStdGo(dst, src) }

// decodeStd is decodeStdGo (in assembly on amd64).
func decodeStd(dst, src []byte) (int, error) { return decodeStdGo(dst, src) }

// appendEncode is appendEncodeGo (in assembly on amd64).
func appendEncode(e *Encoding, dst, src []byte) []byte { return appendEncodeGo(e, dst, src) }

// appendDecode is appendDecodeGo (in assembly on amd64).
func appendDecode(e *Encoding, dst, src []byte) ([]byte, error) { return appendDecodeGo(e, dst, src) }
