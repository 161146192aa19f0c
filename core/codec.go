// Package core defines the contract between b14fs and its codecs: the Codec
// interface, the optional capabilities a codec may add (found by type
// assertion, the way io/fs finds ReadDirFS), per-codec options, the Registry
// that names codecs, and the errors codecs report.
//
// core imports the standard library only.
package core

import "io"

// A Codec turns plain data into its encoded form and back, as streams.
//
// Every Codec makes encoders and decoders in both forms that chains need:
// pull (wrapping an io.Reader) and push (wrapping an io.Writer). Whoever
// opens a stream closes it:
//
//   - A pull stream's Close releases what the stream holds (buffers,
//     goroutines, a plugin's connection), whether or not it was read to the
//     end, as archive/zip's decompressors and zstd's Decoder do. Once it has
//     returned, nothing the stream started reads the underlying reader
//     again, so the caller may close or reuse it.
//   - A push stream's Close flushes whatever the codec still holds and
//     reports bad or truncated data. Once it has returned, nothing the
//     stream started writes into the underlying writer again.
//
// Neither Close closes the underlying reader or writer, as compress/gzip's
// do not. After Close, Read and Write return an error matching ErrClosed,
// and Close returns nil again.
//
// Errors about the data itself are *DataError values naming the codec and the
// byte offset, in the codec's input, where the data went wrong.
//
// A Codec value is immutable and safe for concurrent use; the streams it makes
// are not.
type Codec interface {
	// Name returns the name the codec is registered under, such as "base16384".
	Name() string

	// NewEncodeReader returns a reader whose content is the encoding of r's.
	// Close releases it; it does not close r.
	NewEncodeReader(r io.Reader) io.ReadCloser
	// NewDecodeReader returns a reader whose content is the decoding of r's.
	// Close releases it; it does not close r.
	NewDecodeReader(r io.Reader) io.ReadCloser
	// NewEncodeWriter returns a writer that encodes what is written to it
	// into w. Close flushes the tail; it does not close w.
	NewEncodeWriter(w io.Writer) io.WriteCloser
	// NewDecodeWriter returns a writer that decodes what is written to it
	// into w. Close flushes the tail and reports truncated input; it does not
	// close w.
	NewDecodeWriter(w io.Writer) io.WriteCloser
}

// A Configurable codec takes options. WithOptions returns a codec configured
// with opts (the receiver is unchanged). It returns an *OptionError for a key
// the codec does not know or a value it cannot use.
//
// A codec that does not implement Configurable takes no options; Configure
// rejects every option for it.
type Configurable interface {
	Codec
	WithOptions(opts Options) (Codec, error)
}

// Configure returns c configured with opts: c itself when opts is empty,
// c.WithOptions(opts) when c is Configurable, and an *OptionError otherwise.
func Configure(c Codec, opts Options) (Codec, error) {
	if len(opts) == 0 {
		return c, nil
	}
	if cc, ok := c.(Configurable); ok {
		return cc.WithOptions(opts)
	}
	return nil, &OptionError{Codec: c.Name(), Key: opts[0].Key, Value: opts[0].Value, Err: ErrUnknownOption}
}

// A Suffixer codec suggests a file name suffix for its encoded form, such as
// ".b14". The suffix includes the leading dot; "" suggests none (a plugin
// host's codecs are Suffixers whether or not their plugin suggests one).
type Suffixer interface {
	Codec
	Suffix() string
}

// A Texter is a codec whose encoded form can be text for people to read,
// copy and paste, such as base16384's UTF-8 form. Command lines set such
// text out as base64's does (its -w and -i): in lines, ending with a line
// break, and decoded skipping what is not part of the encoding. The codec's
// own defaults stay what its format defines; Text asks for the rest.
type Texter interface {
	Codec
	// WritesText reports whether the encoder, as configured, writes text:
	// false for a binary form, such as base16384's raw UTF-16BE.
	WritesText() bool
	// Text returns the codec set out for people as o says. When it writes
	// text, its encoder ends the text with a line break, unless the
	// codec's options said not to (base16384's newline=false). It returns an
	// *OptionError when o asks for what the codec's options contradict,
	// such as lines of a binary form.
	Text(o TextOptions) (Codec, error)
}

// TextOptions say how a Texter sets its text out.
type TextOptions struct {
	// Wrap, when WrapSet, breaks the encoder's text into lines of Wrap
	// characters (0: one line), whatever the codec's options said;
	// without WrapSet the lines stay as they said.
	Wrap    int
	WrapSet bool
	// SkipGarbage makes the decoder skip what is not part of the
	// encoding, as base64 -i does.
	SkipGarbage bool
}

// A BlockCodec's encoded stream may be an optional header followed by
// fixed-size blocks, each of which decodes on its own to a fixed number of
// plain bytes (the last block may be shorter). This lets sizes and offsets map
// between the plain and the encoded form in O(1), so a filesystem can report
// decoded sizes and read at any offset without decoding a whole file: a
// decoder started at the first byte of any block decodes the rest of the
// stream.
//
// Whether a stream has blocks is said at run time, one way: by an error
// matching ErrNoLayout. Layout returns one for a stored stream whose blocks
// are not where their sizes say, and WriteLayout for a codec whose own
// streams have no fixed blocks (such as text broken into lines); callers
// then treat the streams as any codec's, decoded from their start and
// written whole.
//
// What a filesystem needs to know to change such a stream in place is
// declared, never found out by experiment: the header the codec writes, its
// form, and whether its blocks are encoded independently (Layout). The
// conformance suite in core/codectest checks every declaration against real
// encodings.
type BlockCodec interface {
	Codec
	// Layout inspects a stored encoded stream of the given size (reading
	// only the few bytes it needs, such as a header and the tail) and
	// returns how it maps to plain data. It returns an error matching
	// ErrNoLayout when the stream, which may well decode, has no blocks
	// where their sizes say, and a *DataError when it cannot be a valid
	// encoding.
	Layout(r io.ReaderAt, size int64) (Layout, error)
	// WriteLayout returns the layout of the streams this codec writes, with
	// Size 0: the header it writes first, its block sizes, its form, and
	// whether its blocks are independent. Layout returns the same, with the
	// decoded size, for every stream the codec writes. When those streams
	// have no fixed blocks, WriteLayout returns an error matching
	// ErrNoLayout instead (Layout may still find blocks in a stream that
	// has them).
	WriteLayout() (Layout, error)
	// EncodedLen returns the encoded size of n plain bytes, without any
	// header the codec may write.
	EncodedLen(n int64) int64
}

// Layout describes how an encoded stream of a BlockCodec maps to plain data.
type Layout struct {
	Header       int64 // bytes before the first block (such as a byte order mark)
	PlainBlock   int   // plain bytes in each full block
	EncodedBlock int   // encoded bytes in each full block
	Size         int64 // the decoded size of the whole stream

	// Form names the variant of the encoding, such as base16384's
	// "utf16be" or "utf8+bom". Streams of one form have the same header and
	// block sizes, so blocks encoded by any codec value of that form fit
	// into any stream of that form. Options that change the bytes written
	// change the form.
	Form string
	// Independent reports that each block's encoding depends on its own
	// plain bytes alone (and on its being the last block or not), so that
	// the tail of a stream can be re-encoded without the blocks before it:
	// appended to or rewritten in place. A running checksum makes blocks
	// dependent.
	Independent bool
}

// EncodedOffset returns the offset in the encoded stream of the block that
// holds plain offset off, and the offset of that block's first plain byte.
func (l Layout) EncodedOffset(off int64) (encoded, plain int64) {
	block := off / int64(l.PlainBlock)
	return l.Header + block*int64(l.EncodedBlock), block * int64(l.PlainBlock)
}

// A FormDecoder is a BlockCodec whose decoders can be started at a block
// of a stream past its header, in the stream's form (Layout.Form), rather
// than telling the form from the first bytes they read: in a damaged
// stream those may look like another form's, which would then decode into
// wrong data where decoding the stream from its start fails.
type FormDecoder interface {
	// NewFormDecodeReader returns a decoder of r, the blocks of a stream
	// of the given form from a block boundary on. It returns an error for
	// a form the codec does not write.
	NewFormDecodeReader(r io.Reader, form string) (io.ReadCloser, error)
}

// A ReaderResetter is a pull stream that can be reused on a new source,
// keeping its buffers, like gzip.Reader's Reset.
type ReaderResetter interface {
	Reset(r io.Reader)
}

// A WriterResetter is a push stream that can be reused on a new destination,
// keeping its buffers, like gzip.Writer's Reset.
type WriterResetter interface {
	Reset(w io.Writer)
}
