package concbench

import java.lang.foreign.Arena
import java.lang.foreign.FunctionDescriptor
import java.lang.foreign.Linker
import java.lang.foreign.ValueLayout
import java.lang.invoke.MethodHandle

/**
 * The process's CPU time for ring and skynet's cpu_ns (docs/contract.md): every thread's user +
 * system time from clock_gettime(CLOCK_PROCESS_CPUTIME_ID), called through the FFM API, as the
 * Java contenders do. Not OperatingSystemMXBean.getProcessCpuTime(): on Linux the JDK reads
 * times(2), in 10 ms ticks. Without --enable-native-access on the run line JDK 25 prints one
 * restricted-method warning on stderr at the first call. Read twice per iteration, outside the
 * timed passes.
 */
object ProcessCpu {
    private const val CLOCK_PROCESS_CPUTIME_ID = 2 // <linux/time.h>
    private val gettime = function("clock_gettime")
    private val getres = function("clock_getres")

    private fun function(name: String): MethodHandle {
        val linker = Linker.nativeLinker()
        return linker.downcallHandle(
            linker.defaultLookup().find(name).orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
        )
    }

    private fun read(f: MethodHandle): Long = Arena.ofConfined().use { arena ->
        val ts = arena.allocate(16, 8) // struct timespec: two longs on 64-bit Linux
        val rc = f.invoke(CLOCK_PROCESS_CPUTIME_ID, ts) as Int
        check(rc == 0) { "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed" }
        ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8)
    }

    /** The process's CPU time so far, in ns. */
    fun nanos(): Long = read(gettime)

    /** The clock's resolution, in ns (1 on Linux). */
    val tickNanos: Long by lazy { read(getres).coerceAtLeast(1) }
}
