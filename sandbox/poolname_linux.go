package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A pool's cgroup is named pool-PID-START-SEQ under Config.CgroupParent: the worker's
// pid, its start time (clock ticks after boot, /proc/PID/stat), and the pool's number
// in the process. A worker killed with SIGKILL never removes its pool's cgroups; the
// next pool to start removes them (cgroup.Manager.ReapSiblings) once the name says its
// process is gone: no process with that pid, or one that started at another time (the
// pid was reused, as a worker restarted as pid 1 of a container gets its old pid
// back). A live worker's pools always match their process and are never touched.
//
// The pids are this process's view: workers that share a cgroup parent must share a
// PID namespace (the default, relative parent is per worker anyway).

// poolName names the pool number seq of this process.
func poolName(seq uint64) string {
	start, _ := procStart(os.Getpid())
	return fmt.Sprintf("pool-%d-%d-%d", os.Getpid(), start, seq)
}

// deadPool reports whether name is a pool cgroup whose process is gone. Names of the
// earlier form pool-PID-SEQ count as dead only when no process has that pid.
func deadPool(name string) bool {
	f := strings.Split(name, "-")
	if f[0] != "pool" || len(f) < 3 || len(f) > 4 {
		return false
	}
	nums := make([]uint64, len(f)-1)
	for i, s := range f[1:] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return false
		}
		nums[i] = n
	}
	if nums[0] == 0 || nums[0] > 1<<22 {
		return false
	}
	start, ok := procStart(int(nums[0]))
	if !ok {
		return true
	}
	return len(nums) == 3 && start != nums[1]
}

// procStart returns the start time of process pid (field 22 of /proc/PID/stat), and
// false when there is no such process.
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parentheses: count from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}
