package s3fs

import "sync"

// openReads tracks an Fs's files open for reading, by key, so that
// removing an object first gives each of its open files a copy of its own
// (readFile.keepLocal): an open file reads on after a removal, as on a
// local disk.
type openReads struct {
	mu   sync.Mutex
	keys map[string]*keyReads
}

// keyReads are the open files of one key.
type keyReads struct {
	// lock is read-locked while a file of the key is being opened and
	// locked while the object is being removed, so that a file opened
	// while the object still exists gets its copy.
	lock  sync.RWMutex
	users int // goroutines holding or waiting for lock; guarded by openReads.mu
	files map[*readFile]struct{}
}

// acquire returns the keyReads of key, locked for a removal (remove) or
// read-locked for an open. release undoes it.
func (o *openReads) acquire(key string, remove bool) *keyReads {
	o.mu.Lock()
	k := o.keys[key]
	if k == nil {
		if o.keys == nil {
			o.keys = map[string]*keyReads{}
		}
		k = &keyReads{files: map[*readFile]struct{}{}}
		o.keys[key] = k
	}
	k.users++
	o.mu.Unlock()
	if remove {
		k.lock.Lock()
	} else {
		k.lock.RLock()
	}
	return k
}

// release unlocks k, acquired for key.
func (o *openReads) release(key string, k *keyReads, remove bool) {
	if remove {
		k.lock.Unlock()
	} else {
		k.lock.RUnlock()
	}
	o.mu.Lock()
	k.users--
	o.drop(key, k)
	o.mu.Unlock()
}

// add records r as open, under k, which the caller holds.
func (o *openReads) add(k *keyReads, r *readFile) {
	o.mu.Lock()
	k.files[r] = struct{}{}
	o.mu.Unlock()
}

// forget records that r is closed.
func (o *openReads) forget(r *readFile) {
	o.mu.Lock()
	if k := o.keys[r.key]; k != nil {
		delete(k.files, r)
		o.drop(r.key, k)
	}
	o.mu.Unlock()
}

// files returns the files open under k, which the caller holds locked.
func (o *openReads) files(k *keyReads) []*readFile {
	o.mu.Lock()
	defer o.mu.Unlock()
	files := make([]*readFile, 0, len(k.files))
	for r := range k.files {
		files = append(files, r)
	}
	return files
}

// drop forgets k once nothing uses it. o.mu is held.
func (o *openReads) drop(key string, k *keyReads) {
	if k.users == 0 && len(k.files) == 0 {
		delete(o.keys, key)
	}
}
