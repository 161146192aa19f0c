//go:build unix

package difftest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Serve applies to fsys the operations it reads from r, one JSON-encoded
// Op a line, and writes each one's Result to w the same way, until r ends;
// then it closes the descriptors it opened and returns nil. It is the main
// loop of the process a Child starts.
func Serve(r io.Reader, w io.Writer, fsys FS) error {
	l := newLocal(fsys)
	defer l.closeAll()
	dec, enc := json.NewDecoder(r), json.NewEncoder(w)
	for {
		var op Op
		if err := dec.Decode(&op); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("difftest: serve: %w", err)
		}
		if err := enc.Encode(l.apply(op)); err != nil {
			return fmt.Errorf("difftest: serve: %w", err)
		}
	}
}

// A Child is a second process that applies operations to an FS, the
// files of which RunSplit reaches through another FS too.
type Child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
}

// StartChild starts cmd, a process that calls Serve on its standard input
// and output. Its standard error goes to this process's unless cmd sets
// one.
func StartChild(cmd *exec.Cmd) (*Child, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Child{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(out)}, nil
}

func (c *Child) apply(op Op) (Result, error) {
	var r Result
	if err := c.enc.Encode(op); err != nil {
		return r, fmt.Errorf("child: %w", err)
	}
	if err := c.dec.Decode(&r); err != nil {
		return r, fmt.Errorf("child: %w", err)
	}
	return r, nil
}

// Close closes the child's standard input, which ends its Serve, and waits
// for it to exit.
func (c *Child) Close() error {
	return errors.Join(c.in.Close(), c.cmd.Wait())
}
