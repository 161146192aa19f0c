package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// ptyCmd runs a program on a pseudo-terminal of 100 columns:
//
//	pty [-status N] [-stdin FILE] [-stdout FILE] [-stderr FILE] PROG ARGS...
//
// Standard output and standard error go to the terminal unless sent to a
// file; standard input comes from FILE, else from /dev/null. What the
// terminal showed is written to the file tty; the program must exit with
// status N (0 by default).
func ptyCmd(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("pty", flag.ContinueOnError)
	status := fs.Int("status", 0, "")
	stdin := fs.String("stdin", "", "")
	stdout := fs.String("stdout", "", "")
	stderr := fs.String("stderr", "", "")
	if neg || fs.Parse(args) != nil || fs.NArg() < 1 {
		ts.Fatalf("usage: pty [-status N] [-stdin FILE] [-stdout FILE] [-stderr FILE] PROG ARGS...")
	}
	ptmx, tty, err := pty.Open()
	ts.Check(err)
	defer ptmx.Close()
	ts.Check(pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}))
	prog, err := lookPath(ts, fs.Arg(0))
	ts.Check(err)
	cmd := exec.Command(prog, fs.Args()[1:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "TERM=xterm", "HOME="+ts.Getenv("HOME"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, tty, tty
	open := func(name string, create bool) *os.File {
		f, err := os.Open(ts.MkAbs(name))
		if create {
			f, err = os.Create(ts.MkAbs(name))
		}
		ts.Check(err)
		return f
	}
	if *stdin != "" {
		f := open(*stdin, false)
		defer f.Close()
		cmd.Stdin = f
	}
	if *stdout != "" {
		f := open(*stdout, true)
		defer f.Close()
		cmd.Stdout = f
	}
	if *stderr != "" {
		f := open(*stderr, true)
		defer f.Close()
		cmd.Stderr = f
	}
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&screen, ptmx) // ends with EIO once no process holds the terminal
		close(copied)
	}()
	err = cmd.Start()
	tty.Close()
	ts.Check(err)
	err = cmd.Wait()
	<-copied
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else {
		ts.Check(err)
	}
	ts.Check(os.WriteFile(ts.MkAbs("tty"), screen.Bytes(), 0o666))
	if got != *status {
		ts.Fatalf("%s exited with %d, want %d; the terminal showed %s", fs.Arg(0), got, *status, strconv.Quote(screen.String()))
	}
}

// ptyAvailable reports whether this machine can open pseudo-terminals.
func ptyAvailable() bool {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return false
	}
	ptmx.Close()
	tty.Close()
	return true
}

// lookPath finds prog in the script's $PATH.
func lookPath(ts *testscript.TestScript, prog string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	for _, dir := range strings.Split(ts.Getenv("PATH"), ":") {
		path := dir + "/" + prog
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return path, nil
		}
	}
	return "", exec.ErrNotFound
}
