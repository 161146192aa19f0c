package rpc

// SetTestHookPinned sets a function to run between the check of a pinned
// plugin's sum and the start of its process; the function it returns undoes
// it.
func SetTestHookPinned(f func(path string)) (undo func()) {
	testHookPinned = f
	return func() { testHookPinned = nil }
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
