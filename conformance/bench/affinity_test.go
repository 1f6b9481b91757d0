package bench_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
	"golang.org/x/sys/unix"
)

// apartCPUs gives redis-server the machine's last CPU to itself and this
// process the others, until the returned func puts both back. A line that
// measures how long one script call holds Redis measures the script only
// when nothing takes Redis's CPU in the middle of a call: on a 2-CPU
// machine this process's own threads (the executor's, the collector's)
// otherwise do, and the longest call then follows the machine's load, not
// the call's work. A production Redis has its CPU to itself. On a machine
// of one CPU, or one that refuses to pin, nothing is pinned, and note
// says so.
func apartCPUs(t *testing.T, c redis.Conn) (restore func(), note string) {
	t.Helper()
	if runtime.NumCPU() < 2 {
		return func() {}, "one CPU: Redis shares it with the client"
	}
	info, err := redis.String(c.Do("INFO", "server"))
	if err != nil {
		t.Fatalf("INFO server: %v", err)
	}
	redisPID := 0
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "process_id:"); ok {
			redisPID, _ = strconv.Atoi(v)
		}
	}
	if redisPID == 0 {
		t.Fatal("INFO server gave no process_id")
	}
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatalf("sched_getaffinity: %v", err)
	}
	last := -1
	for cpu := 0; cpu < 1024; cpu++ {
		if all.IsSet(cpu) {
			last = cpu
		}
	}
	if all.Count() < 2 {
		return func() {}, "one CPU allowed: Redis shares it with the client"
	}
	var redisSet, ours unix.CPUSet
	redisSet.Set(last)
	ours = all
	ours.Clear(last)
	restore = func() {
		// Best effort: a thread that cannot be put back keeps its CPU.
		_ = pinAll(os.Getpid(), &all)
		_ = pinAll(redisPID, &all)
	}
	for _, p := range []struct {
		pid int
		set *unix.CPUSet
	}{{redisPID, &redisSet}, {os.Getpid(), &ours}} {
		if err := pinAll(p.pid, p.set); err != nil {
			// A machine that refuses it measures as before, and says so.
			restore()
			return func() {}, "not pinned (" + err.Error() + "): Redis shares the CPUs with the client"
		}
	}
	return restore, fmt.Sprintf("redis-server alone on CPU %d, the bench on the other %d", last, ours.Count())
}

// pinAll sets the CPU affinity of every thread of process pid. A thread
// started meanwhile takes its creator's: the walk runs twice.
func pinAll(pid int, set *unix.CPUSet) error {
	for range 2 {
		tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		if err != nil {
			return fmt.Errorf("threads of process %d: %w", pid, err)
		}
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			// A thread that ended since the listing has nothing to pin.
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("sched_setaffinity of thread %d of process %d: %w", tid, pid, err)
			}
		}
	}
	return nil
}
