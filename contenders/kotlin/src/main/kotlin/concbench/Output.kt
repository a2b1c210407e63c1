package concbench

import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.PrintStream

/** JSON lines on stdout, each flushed at once. Only this object writes to stdout. */
object Output {
    private val out = PrintStream(FileOutputStream(FileDescriptor.out), false, Charsets.UTF_8)

    @Synchronized
    fun line(json: String) {
        out.print(json)
        out.print('\n')
        out.flush()
        if (out.checkError()) throw IllegalStateException("cannot write to stdout")
    }

    /** [cpuNs] (ring, skynet): the line's cpu_ns and cpu_tick_ns (docs/contract.md). */
    fun iteration(index: Int, warmup: Boolean, elapsedNs: Long, result: Map<String, Any?>, cpuNs: Long? = null) {
        val cpu = cpuNs?.let { ""","cpu_ns":$it,"cpu_tick_ns":${ProcessCpu.tickNanos}""" } ?: ""
        line("""{"type":"iteration","index":$index,"warmup":$warmup,"elapsed_ns":$elapsedNs,"result":${json(result)}$cpu}""")
    }

    fun mark(name: String, index: Int, elapsedNs: Long) =
        line("""{"type":"mark","name":${json(name)},"index":$index,"elapsed_ns":$elapsedNs}""")

    /** Just what the results need: maps, strings, integers, booleans, null. */
    fun json(v: Any?): String = when (v) {
        null -> "null"
        is Int, is Long, is Boolean -> v.toString()
        is String -> buildString {
            append('"')
            for (c in v) when {
                c == '"' -> append("\\\"")
                c == '\\' -> append("\\\\")
                c < ' ' -> append("\\u%04x".format(c.code))
                else -> append(c)
            }
            append('"')
        }
        is Map<*, *> -> v.entries.joinToString(",", "{", "}") { (k, x) -> json(k.toString()) + ":" + json(x) }
        else -> throw IllegalArgumentException("cannot encode ${v::class}")
    }
}
