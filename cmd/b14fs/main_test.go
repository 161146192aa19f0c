package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testcodec"
)

// TestMain lets the scripts run b14fs as a real process: the built-in
// codecs plus two small test codecs, hex and xor (origin "test").
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"b14fs": func() {
			reg := builtinRegistry()
			for _, c := range []core.Codec{testcodec.Hex{}, testcodec.Xor{Key: 0x5A}} {
				if err := reg.Register(c, "test"); err != nil {
					panic(err)
				}
			}
			os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, reg))
		},
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/script",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"status": status},
	})
}

// status N PROG ARGS... runs PROG and checks that it exits with code N.
func status(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
