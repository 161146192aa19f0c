package rpc

// SetTestHookPinned sets a function to run between the check of a pinned
// plugin's sum and the start of its process; the function it returns undoes
// it.
func SetTestHookPinned(f func(path string)) (undo func()) {
	testHookPinned = f
	return func() { testHookPinned = nil }
}

// WithFramesOnly has the host send data in frames on the stream's call, as
// to a plugin that offers no data connection.
func WithFramesOnly() HostOption {
	return func(h *Host) { h.framesOnly = true }
}

// DataAddress returns the data socket that the streams of codec, a plugin's
// codec, connect to: "" when its data flows in frames.
func DataAddress(codec any) string {
	return codec.(*remoteCodec).proc.dataAddr
}
