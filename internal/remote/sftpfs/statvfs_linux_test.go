package sftpfs_test

import (
	"syscall"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/remotetest"
)

// TestStatVFS checks that StatVFS tells the server's file system the root
// is in: the same as statfs(2) of it, the server being this machine.
func TestStatVFS(t *testing.T) {
	s := remotetest.SSHD(t)
	st, err := dial(t, s).StatVFS()
	if err != nil {
		t.Fatal(err)
	}
	var local syscall.Statfs_t
	if err := syscall.Statfs(s.Root, &local); err != nil {
		t.Fatal(err)
	}
	if st.Bsize != uint64(local.Bsize) || st.Blocks != local.Blocks || st.Namemax != uint64(local.Namelen) || st.Files != local.Files {
		t.Errorf("StatVFS: %+v; statfs(2): %+v", st, local)
	}
}
