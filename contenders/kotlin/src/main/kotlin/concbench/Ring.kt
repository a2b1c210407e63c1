package concbench

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.SendChannel
import kotlinx.coroutines.coroutineScope
import java.util.concurrent.atomic.AtomicInteger

// ---------------------------------------------------------------------------------------------
// ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings of W coroutines,
// each suspended in receive() on its own rendezvous Channel<Int>, pass a token H times

/**
 * Ring 1's clock readings: the member that holds a token whose count c is a multiple of
 * [every] (c from H down to 0) writes System.nanoTime() into a preallocated slot. The ring's
 * hand-offs are sequential (each is a rendezvous), so the writes never race.
 */
class HandoffClock(passes: Int, private val every: Int) {
    private val last = if (every > 0) passes / every else -1 // readings at c = last·every, …, every, 0
    private val readings = LongArray(last + 1) // none at every = 0

    /** Ring 1's members stamp, when there is something to stamp (every > 0). */
    fun forRing(ring: Int): HandoffClock? = takeIf { ring == 0 && every > 0 }

    fun stamp(token: Int) {
        if (token % every == 0) readings[last - token / every] = System.nanoTime()
    }

    /** handoff_p50_ns, handoff_p99_ns, handoff_samples; empty below 2 readings (contract). */
    fun summary(): Map<String, Any?> {
        if (readings.size < 2) return mapOf("handoff_samples" to 0)
        // per-hand-off gaps, rounded down to whole ns; sorted for the nearest-rank percentiles
        val gaps = LongArray(readings.size - 1) { (readings[it + 1] - readings[it]) / every }
        gaps.sort()
        return linkedMapOf(
            "handoff_p50_ns" to nearestRank(gaps, 50),
            "handoff_p99_ns" to nearestRank(gaps, 99),
            "handoff_samples" to gaps.size,
        )
    }
}

/** The [percent]th percentile of [sorted] by the nearest-rank method: the ⌈p/100·n⌉-th smallest. */
fun nearestRank(sorted: LongArray, percent: Int): Long {
    val rank = ((percent.toLong() * sorted.size + 99) / 100).coerceAtLeast(1)
    return sorted[(rank - 1).toInt()]
}

/** One coroutine of a ring: task [id] (1..W), its own [inbox] and the next task's. */
private class RingMember(
    private val id: Int,
    private val inbox: ReceiveChannel<Int>,
    private val next: SendChannel<Int>,
    private val finalHolder: CompletableDeferred<Int>,
    private val clock: HandoffClock?,
    private val live: AtomicInteger,
) {
    /**
     * Task 1 holds the token first: it waits for [release], then holds the count H (that is no
     * pass, so it is not counted). Every member then loops on its inbox until the channel is
     * closed (the shut-down, after the clock stops) and returns the tokens it received.
     */
    suspend fun run(release: Deferred<Unit>?, passes: Int): Long {
        live.incrementAndGet()
        if (release != null) {
            release.await()
            hold(passes)
        }
        var received = 0L
        for (token in inbox) {
            received++
            hold(token)
        }
        live.decrementAndGet()
        return received
    }

    private suspend fun hold(token: Int) {
        clock?.stamp(token)
        if (token == 0) finalHolder.complete(id) else next.send(token - 1)
    }
}

private class RingOutcome(
    private val elapsedNs: Long,
    private val cpuNs: Long,
    private val alive: Int,
    private val rings: Int,
    private val received: Long,
    private val holders: List<Int>,
    private val clock: HandoffClock,
) : Outcome {
    override fun timedNs(): Long = elapsedNs

    override fun cpuNs(): Long = cpuNs

    override fun result(): Map<String, Any?> = linkedMapOf<String, Any?>(
        "rings" to rings,
        "passes" to received,
        "holder_min" to holders.min(),
        "holder_max" to holders.max(),
        "tasks_alive" to alive,
        "clock_read_ns" to clockReadNanos(),
    ) + clock.summary()

    /** One System.nanoTime(), as ring 1's readings take it: 10 000 in a row, averaged. */
    private fun clockReadNanos(): Long {
        val reads = 10_000
        var sink = 0L
        val start = System.nanoTime()
        repeat(reads) { sink += System.nanoTime() }
        val total = System.nanoTime() - start
        return if (sink == 0L) 0 else Math.round(total / reads.toDouble())
    }
}

class Ring(private val rings: Int, private val size: Int, private val passes: Int, private val sampleEvery: Int) :
    Workload {
    init {
        if (rings.toLong() * size > MAX_TASKS) throw BadInput("rings × size = ${rings.toLong() * size} tasks; at most $MAX_TASKS")
    }

    override suspend fun run(index: Int, start: Long): Outcome = coroutineScope {
        val release = CompletableDeferred<Unit>()
        val clock = HandoffClock(passes, sampleEvery)
        val finalHolders = List(rings) { CompletableDeferred<Int>() }
        // coroutines have no runtime count: each member adds itself as it starts, takes itself off as it ends
        val live = AtomicInteger()
        val inboxes = List(rings) { List(size) { Channel<Int>(Channel.RENDEZVOUS) } }
        // UNDISPATCHED: each coroutine runs on this thread up to its first suspension (receive()
        // on its empty channel, or task 1's release.await()) before async returns, so every
        // member is spawned and waiting before the clock starts; it resumes on Dispatchers.Default
        val members: List<Deferred<Long>> = (0 until rings).flatMap { r ->
            val ring = inboxes[r]
            (1..size).map { id ->
                val member = RingMember(id, ring[id - 1], ring[id % size], finalHolders[r], clock.forRing(r), live)
                async(start = CoroutineStart.UNDISPATCHED) { member.run(release.takeIf { id == 1 }, passes) }
            }
        }
        val alive = live.get() // every member, suspended at its first receive (task 1 at release)
        val cpu0 = ProcessCpu.nanos()
        val t0 = System.nanoTime()
        release.complete(Unit)
        val holders = finalHolders.awaitAll()
        val elapsed = System.nanoTime() - t0
        val cpu = ProcessCpu.nanos() - cpu0
        // shut-down, outside the timed region: every member is suspended in receive(); closing
        // its channel ends its for loop and it returns its count
        inboxes.forEach { ring -> ring.forEach { it.close() } }
        val received = members.awaitAll().sum()
        RingOutcome(elapsed, cpu, alive, rings, received, holders, clock)
    }

    companion object {
        const val MAX_TASKS = 1_000_000L
    }
}
