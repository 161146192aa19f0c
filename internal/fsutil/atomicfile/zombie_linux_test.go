package atomicfile

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestStaleZombie checks that a temporary name whose owner has exited but
// was not yet waited for by its parent (a zombie, as a killed b14fs is
// until its parent shell collects it) is stale.
func TestStaleZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	stat := "/proc/" + strconv.Itoa(pid) + "/stat"
	for deadline := time.Now().Add(10 * time.Second); !zombie(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b, err := os.ReadFile(stat)
			t.Fatalf("%s: %q, %v; not a zombie after 10 s", stat, b, err)
		}
	}
	if name := ".f.b14fs-" + host + "-" + strconv.Itoa(pid) + "-x.tmp"; !Stale(name) {
		t.Errorf("Stale(%q) = false for an exited process not yet waited for", name)
	}
	if zombie(os.Getpid()) {
		t.Errorf("zombie(%d) = true for this process", os.Getpid())
	}
}
