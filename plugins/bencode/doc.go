// Package bencode implements bencode, BitTorrent's serialization format
// (BEP 3), in three layers:
//
//   - a token layer, Scanner, that splits input into tokens without
//     reflection;
//   - a value layer, Marshal and Unmarshal, Encoder and Decoder, in the
//     manner of encoding/json, with RawMessage for exact bytes (such as the
//     info dictionary an info-hash is computed from) and Value, for reading
//     input without a Go type at a fraction of the cost of an `any`;
//   - a b14fs codec, Codec, whose decoder turns bencode into JSON and whose
//     encoder turns JSON back into the same bencode.
//
// Input is checked strictly by default: integers and string lengths without
// leading zeros or "-0", dictionary keys in strictly ascending byte order,
// exactly one top-level value, nesting no deeper than DefaultMaxDepth. Every
// error names the byte offset where the input went wrong. DecodeOptions
// relaxes key order and trailing data (Lenient) and sets the depth limit.
//
// Hostile input cannot make the package allocate out of proportion to the
// input, overflow a length, or exhaust the goroutine stack: lengths are
// checked against the input before use, streams grow their buffers only with
// the bytes that arrive, and the token layer keeps an explicit stack.
package bencode
