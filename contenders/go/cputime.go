package main

import (
	"syscall"
	"time"
	"unsafe"
)

// The process's CPU time for ring and skynet's cpu_ns (docs/contract.md):
// clock_gettime(CLOCK_PROCESS_CPUTIME_ID), every thread's user + system time
// in ns. The syscall package has no wrapper for it on Linux, so it is called
// directly (a vDSO does not serve this clock: it is a real system call, read
// twice per iteration, outside the passes).

const clockProcessCPUTimeID = 2 // CLOCK_PROCESS_CPUTIME_ID, <linux/time.h>

// cpuTickNs is the clock's resolution (clock_getres: 1 ns on Linux).
var cpuTickNs = func() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETRES, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return max(1, ts.Nano())
}()

// processCPU is the process's CPU time so far.
func processCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// timedCPU is a result with the CPU its timer saw; runBatch moves the CPU to
// the iteration line's cpu_ns and prints the result as is.
type timedCPU struct {
	result any
	cpu    time.Duration
}
