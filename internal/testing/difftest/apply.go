//go:build unix

package difftest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"
)

// A Result is what an operation returned on one side.
type Result struct {
	N    int64  // the byte count, offset or size the operation returned
	Data []byte // the bytes a read returned
	Err  string // the error's class (see Class), or "" for none
	Msg  string // the error's message
}

// same reports whether r and o are equal results of an operation of the
// given kind (see the package documentation).
func (r Result) same(o Result, kind Kind) bool {
	if kind == KindRead || kind == KindReadAt {
		r, o = r.lenient(), o.lenient()
	}
	return r.N == o.N && bytes.Equal(r.Data, o.Data) && r.Err == o.Err
}

// lenient returns r with io.EOF after n > 0 bytes taken as no error.
func (r Result) lenient() Result {
	if r.N > 0 && r.Err == classEOF {
		r.Err, r.Msg = "", ""
	}
	return r
}

func (r Result) describe(kind Kind) string {
	var s string
	switch kind {
	case KindRead, KindReadAt, KindWrite, KindWriteAt:
		s = fmt.Sprintf("n=%d ", r.N)
	case KindSeek:
		s = fmt.Sprintf("offset=%d ", r.N)
	case KindFstat, KindStat, KindReadFile:
		s = fmt.Sprintf("size=%d ", r.N)
	case KindLinks:
		s = fmt.Sprintf("links=%d ", r.N)
	}
	if r.Err == "" {
		return s + "ok"
	}
	return fmt.Sprintf("%serror %s (%s)", s, r.Err, r.Msg)
}

// dataDiff describes where a and b first differ, or returns "" when they
// are equal.
func dataDiff(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-8)
	return fmt.Sprintf("data differ at byte %d; from byte %d, a: %q, b: %q", i, from, around(a, from), around(b, from))
}

func around(p []byte, from int) []byte { return p[min(from, len(p)):min(from+40, len(p))] }

const classEOF = "EOF"

// errnoNames are the classes of the errnos the operations can return that
// no fs error matches.
var errnoNames = map[syscall.Errno]string{
	syscall.EBADF: "EBADF", syscall.EISDIR: "EISDIR", syscall.ENOTDIR: "ENOTDIR",
	syscall.EIO: "EIO", syscall.EFBIG: "EFBIG", syscall.ENOSPC: "ENOSPC",
	syscall.EROFS: "EROFS", syscall.EXDEV: "EXDEV", syscall.EBUSY: "EBUSY",
	syscall.ESPIPE: "ESPIPE", syscall.ENAMETOOLONG: "ENAMETOOLONG",
}

// Class returns the class by which the harness compares err: "" for nil;
// "EOF" for io.EOF; "ErrNotExist", "ErrExist", "ErrPermission", "ErrClosed"
// and "ErrInvalid" for errors matching those of io/fs (and for
// syscall.EINVAL), tested in that order; the name of any other
// syscall.Errno, such as "EBADF"; and "other" for anything else, so that
// two such errors are equal whatever their messages. An FS whose errors
// are none of these where a system call's would be (such as a read on a
// file opened write-only, EBADF) should map them, as Afero's mapErr can.
func Class(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return ""
	case errors.Is(err, io.EOF):
		return classEOF
	case errors.Is(err, fs.ErrNotExist):
		return "ErrNotExist"
	case errors.Is(err, fs.ErrExist):
		return "ErrExist"
	case errors.Is(err, fs.ErrPermission):
		return "ErrPermission"
	case errors.Is(err, fs.ErrClosed):
		return "ErrClosed"
	case errors.Is(err, fs.ErrInvalid), errors.Is(err, syscall.EINVAL):
		return "ErrInvalid"
	case errors.As(err, &errno):
		if name, ok := errnoNames[errno]; ok {
			return name
		}
		return fmt.Sprintf("errno %d", errno)
	}
	return "other"
}

func errResult(err error) Result {
	if err == nil {
		return Result{}
	}
	return Result{Err: Class(err), Msg: err.Error()}
}

// errNoFile is the result of an operation on a slot whose open failed,
// which the generator's model took to succeed.
var errNoFile = errors.New("difftest: no open descriptor in this slot")

// local applies operations to an FS in this process.
type local struct {
	fs    FS
	files map[int]File
}

func newLocal(fsys FS) *local { return &local{fs: fsys, files: map[int]File{}} }

// apply applies op. An open into a slot in use closes the descriptor
// there first, which happens only after the model took an open to fail
// that succeeded.
func (l *local) apply(op Op) Result {
	if !op.Kind.onSlot() {
		return l.byName(op)
	}
	f := l.files[op.Slot]
	if op.Kind == KindOpen {
		if f != nil {
			f.Close()
			delete(l.files, op.Slot)
		}
		f, err := l.fs.OpenFile(op.Name, op.Flag, 0o644)
		if err == nil {
			l.files[op.Slot] = f
		}
		return errResult(err)
	}
	if f == nil {
		return errResult(errNoFile)
	}
	switch op.Kind {
	case KindClose:
		delete(l.files, op.Slot)
		return errResult(f.Close())
	case KindRead, KindReadAt:
		p := make([]byte, op.Len)
		var n int
		var err error
		if op.Kind == KindRead {
			n, err = f.Read(p)
		} else {
			n, err = f.ReadAt(p, op.Off)
		}
		r := errResult(err)
		r.N, r.Data = int64(n), p[:max(0, min(n, len(p)))]
		return r
	case KindWrite, KindWriteAt:
		var n int
		var err error
		if op.Kind == KindWrite {
			n, err = f.Write(op.Data())
		} else {
			n, err = f.WriteAt(op.Data(), op.Off)
		}
		r := errResult(err)
		r.N = int64(n)
		return r
	case KindFtruncate:
		return errResult(f.Truncate(op.Off))
	case KindFsync:
		return errResult(f.Sync())
	case KindFstat:
		return sized(f.Stat())
	case KindSeek:
		return sized(f.Seek(op.Off, op.Whence))
	}
	return errResult(fmt.Errorf("difftest: unknown operation %q", op.Kind))
}

func (l *local) byName(op Op) Result {
	switch op.Kind {
	case KindTruncate:
		return errResult(l.fs.Truncate(op.Name, op.Off))
	case KindRename:
		return errResult(l.fs.Rename(op.Name, op.To))
	case KindRemove:
		return errResult(l.fs.Remove(op.Name))
	case KindStat:
		return sized(l.fs.Stat(op.Name))
	case KindReadFile:
		data, err := l.fs.ReadFile(op.Name)
		r := errResult(err)
		r.N, r.Data = int64(len(data)), data
		return r
	case KindLink, KindLinks:
		ln, ok := l.fs.(Linker)
		if !ok {
			return errResult(fmt.Errorf("difftest: %v on %T, which has no hard links", op.Kind, l.fs))
		}
		if op.Kind == KindLink {
			return errResult(ln.Link(op.Name, op.To))
		}
		return sized(ln.Links(op.Name))
	}
	return errResult(fmt.Errorf("difftest: unknown operation %q", op.Kind))
}

func sized(n int64, err error) Result {
	r := errResult(err)
	r.N = n
	return r
}

// closeAll closes the open descriptors. Their errors are of no interest:
// the closes a sequence compares are its own.
func (l *local) closeAll() {
	for k, f := range l.files {
		f.Close()
		delete(l.files, k)
	}
}

// side is one side of a run: an FS in this process and, in a split run,
// the child that holds the descriptors of odd slots and applies the
// operations by name at odd indexes.
type side struct {
	local *local
	child *Child
}

func (s side) apply(op Op) (Result, error) {
	n := op.Index
	if op.Kind.onSlot() {
		n = op.Slot
	}
	if s.child != nil && n%2 == 1 {
		return s.child.apply(op)
	}
	return s.local.apply(op), nil
}

// closeAll closes the side's open descriptors, in both processes.
func (s side) closeAll(slots int) error {
	s.local.closeAll()
	if s.child == nil {
		return nil
	}
	for k := 1; k < slots; k += 2 {
		if _, err := s.child.apply(Op{Kind: KindClose, Slot: k}); err != nil {
			return err
		}
	}
	return nil
}
