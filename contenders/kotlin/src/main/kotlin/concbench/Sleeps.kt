package concbench

import kotlinx.coroutines.delay
import java.util.concurrent.atomic.LongAccumulator
import java.util.concurrent.atomic.LongAdder

/** delay(ms), timed with System.nanoTime read right before the call and right after it returns (ns). */
suspend fun timedDelay(ms: Long): Long {
    val t0 = System.nanoTime()
    delay(ms)
    return System.nanoTime() - t0
}

/**
 * How many sleepers of one kind finished and the shortest delay one of them timed around its own
 * delay() (the contract's proof that each armed a timer of its own). Each adds itself after its
 * delay; LongAdder and LongAccumulator are striped, so workers finishing together do not contend.
 */
class Sleeps {
    private val count = LongAdder()
    private val minNs = LongAccumulator({ a, b -> minOf(a, b) }, Long.MAX_VALUE)

    fun add(sleptNs: Long) {
        count.increment()
        minNs.accumulate(sleptNs)
    }

    fun count(): Long = count.sum()

    /** The shortest delay in ns; null when nothing slept (no task, no request). */
    fun minNs(): Long? = minNs.get().takeIf { it != Long.MAX_VALUE }
}

/** fanout's four fetch kinds, one [Sleeps] each; a new one per iteration. */
class FetchSleeps {
    val user = Sleeps()
    val orders = Sleeps()
    val prefs = Sleeps()
    val notifications = Sleeps()

    private fun byKind(value: (Sleeps) -> Long?): Map<String, Long?> = linkedMapOf(
        "user" to value(user), "orders" to value(orders), "prefs" to value(prefs), "notifications" to value(notifications),
    )

    /** "fetched": each kind's count. */
    fun counts(): Map<String, Long?> = byKind { it.count() }

    /** "slept_min_ns": each kind's shortest delay. */
    fun minNs(): Map<String, Long?> = byKind { it.minNs() }
}
