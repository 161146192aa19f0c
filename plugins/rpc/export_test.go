package rpc

// SetTestHookPinned sets a function to run between the check of a pinned
// plugin's sum and the start of its process; the function it returns undoes
// it.
func SetTestHookPinned(f func(path string)) (undo func()) {
	testHookPinned = f
	return func() { testHookPinned = nil }
}
