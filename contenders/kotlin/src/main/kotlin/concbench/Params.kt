package concbench

/** A usage error: the contract wants a message on stderr and exit code 2. */
class BadInput(message: String) : Exception(message)

/** The parameters every batch workload takes, besides --warmup and --iterations (all required). */
val WORKLOAD_PARAMS: Map<String, List<String>> = linkedMapOf(
    "fanout" to listOf("requests", "concurrency", "user-ms", "orders-ms", "prefs-ms", "notifications-ms", "pool-size"),
    "sleep-tasks" to listOf("tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"),
    "spawn-idle" to listOf("tasks", "hold-ms"),
    "channel" to listOf("workers", "events", "queue", "etype", "esize"),
    "ring" to listOf("rings", "size", "passes", "sample-every"),
    "skynet" to listOf("size", "branch"),
)

/** The parameters of the server workloads (all required; no --warmup / --iterations). */
val SERVER_PARAMS: Map<String, List<String>> = linkedMapOf(
    "http-hello" to listOf("port", "bind", "pool-size"),
    "http-aggregate" to listOf(
        "port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream", "backend-host", "backend-port", "pool-size",
    ),
)

val ETYPES = listOf("int", "str", "str_ptr", "str_clone")

val DOWNSTREAMS = listOf("inproc", "http")

private val ARG = Regex("--([a-z][a-z0-9-]*)=(.*)", RegexOption.DOT_MATCHES_ALL)
private val DIGITS = Regex("[0-9]+")

/**
 * Strict `--name=value` parsing: every name in [names] must be given exactly once, nothing else
 * is accepted. Typed getters reject malformed and out-of-range values.
 */
class Params private constructor(private val values: Map<String, String>) {
    companion object {
        fun parse(args: List<String>, names: List<String>): Params {
            val allowed = names.toSet()
            val values = LinkedHashMap<String, String>()
            for (arg in args) {
                val m = ARG.matchEntire(arg) ?: throw BadInput("malformed argument '$arg' (expected --name=value)")
                val (name, value) = m.destructured
                if (name !in allowed) throw BadInput("unknown parameter '--$name' (expected: ${names.joinToString(" ") { "--$it" }})")
                if (values.put(name, value) != null) throw BadInput("parameter '--$name' given twice")
            }
            val missing = names.filter { it !in values }
            if (missing.isNotEmpty()) throw BadInput("missing parameter(s): ${missing.joinToString(" ") { "--$it" }}")
            return Params(values)
        }
    }

    fun long(name: String, min: Long, max: Long = Long.MAX_VALUE): Long {
        val raw = values.getValue(name)
        val v = if (DIGITS.matches(raw)) raw.toLongOrNull() else null
        if (v == null || v < min || v > max) {
            throw BadInput("bad value '--$name=$raw' (expected an integer in $min..$max)")
        }
        return v
    }

    fun int(name: String, min: Int, max: Int = Int.MAX_VALUE): Int = long(name, min.toLong(), max.toLong()).toInt()

    /** An IPv4 address literal (four decimal bytes, such as 127.0.0.1), returned as given. */
    fun ipv4(name: String): String {
        val raw = values.getValue(name)
        val parts = raw.split('.')
        if (parts.size != 4 || parts.any { !DIGITS.matches(it) || it.length > 3 || it.toInt() > 255 }) {
            throw BadInput("bad value '--$name=$raw' (expected an IPv4 address such as 127.0.0.1)")
        }
        return raw
    }

    fun choice(name: String, options: List<String>): String {
        val raw = values.getValue(name)
        if (raw !in options) throw BadInput("bad value '--$name=$raw' (expected one of ${options.joinToString(", ")})")
        return raw
    }
}
