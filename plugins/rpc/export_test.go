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

// Dir returns the host's private directory, "" before a plugin started.
func Dir(h *Host) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dir
}

// PID returns the process id of the running plugin of codec name, or 0.
func PID(h *Host, name string) int {
	for _, p := range h.plugins {
		if p.name != name {
			continue
		}
		if c := p.run.Load(); c != nil {
			if r := c.runner.Load(); r != nil && r.cmd.Process != nil {
				return r.cmd.Process.Pid
			}
		}
	}
	return 0
}
