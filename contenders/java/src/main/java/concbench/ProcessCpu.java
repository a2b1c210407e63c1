package concbench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The process's CPU time for ring and skynet's cpu_ns (docs/contract.md): every thread's user +
 * system time from clock_gettime(CLOCK_PROCESS_CPUTIME_ID), called through the FFM API. Not
 * OperatingSystemMXBean.getProcessCpuTime(): on Linux the JDK reads it with times(2), in 10 ms
 * ticks. The jar's manifest grants Enable-Native-Access to the class path, so the downcall prints
 * no restricted-method warning. Read twice per iteration, outside the timed passes.
 */
final class ProcessCpu {
    private ProcessCpu() {}

    private static final int CLOCK_PROCESS_CPUTIME_ID = 2; // <linux/time.h>
    private static final MethodHandle GETTIME = function("clock_gettime");
    private static final MethodHandle GETRES = function("clock_getres");

    private static MethodHandle function(String name) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    }

    private static long read(MethodHandle f) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(16, 8); // struct timespec: two longs on 64-bit Linux
            int rc = (int) f.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts);
            if (rc != 0) throw new Work.Failure("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
            return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
        } catch (Work.Failure e) {
            throw e;
        } catch (Throwable e) {
            throw new Work.Failure("reading the process CPU clock: " + e);
        }
    }

    /** The process's CPU time so far, in ns. */
    static long nanos() { return read(GETTIME); }

    /** The clock's resolution, in ns (1 on Linux). */
    static long tickNanos() { return Math.max(1, read(GETRES)); }
}
