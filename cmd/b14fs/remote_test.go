package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
)

// TestRemoteScripts runs the scripts of testdata/remote, which mount and
// serve remote locations, against a real sshd and a SeaweedFS server
// started for them (skipped when they are not installed; .ci/run installs
// both). The scripts find them in $SFTP_URL, $SFTP_KEY, $SFTP_KNOWN_HOSTS,
// $SFTP_ROOT (the served directory, seen locally) and $S3_ENDPOINT (plain
// HTTP, anonymous, bucket $S3_BUCKET).
func TestRemoteScripts(t *testing.T) {
	longtest.Skip(t, "starts sshd and SeaweedFS")
	ssh := remotetest.SSHD(t)
	s3, _ := remotetest.Weed(t)
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/remote",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"status": status, "waitfor": waitFor},
		Setup: func(env *testscript.Env) error {
			env.Setenv("SFTP_URL", "sftp://"+ssh.User+"@"+ssh.Addr+ssh.Root)
			env.Setenv("SFTP_KEY", ssh.KeyFile)
			env.Setenv("SFTP_KNOWN_HOSTS", ssh.KnownHosts)
			env.Setenv("SFTP_ROOT", ssh.Root)
			env.Setenv("S3_ENDPOINT", "http://"+s3)
			env.Setenv("S3_BUCKET", remotetest.Bucket)
			env.Setenv("SSH_AUTH_SOCK", "")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "fuse" {
				return fuseAvailable(), nil
			}
			return false, nil
		},
	})
}
