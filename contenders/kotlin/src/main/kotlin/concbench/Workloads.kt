package concbench

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.sync.Semaphore
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong

/** What one timed iteration leaves behind; turned into the result JSON outside the timed region. */
fun interface Outcome {
    fun result(): Map<String, Any?>

    /**
     * The iteration's elapsed_ns when the workload times itself (ring: the clock covers only the
     * passes, not the set-up of the rings); null: Main's clock around [Workload.run] is the time.
     */
    fun timedNs(): Long? = null

    /** The process CPU over the workload's own timer when it times itself (ring); null: Main's. */
    fun cpuNs(): Long? = null
}

/** A workload, set up once from its parameters (outside the timed region). */
interface Workload {
    /** One iteration: the timed part. [start] is the iteration's System.nanoTime() start (for marks). */
    suspend fun run(index: Int, start: Long): Outcome
}

fun workload(name: String, p: Params): Workload = when (name) {
    "fanout" -> Fanout(
        requests = p.int("requests", 0),
        concurrency = p.int("concurrency", 0),
        delays = FetchDelays(
            userMs = p.long("user-ms", 0),
            ordersMs = p.long("orders-ms", 0),
            prefsMs = p.long("prefs-ms", 0),
            notificationsMs = p.long("notifications-ms", 0),
        ),
    ).also { p.int("pool-size", 0) } // validated, then ignored: coroutines are not pooled
    "sleep-tasks" -> SleepTasks(
        tasks = p.int("tasks", 0),
        sleepMs = p.long("sleep-ms", 0),
        cpuIters = p.long("cpu-iters", 0),
        cpuSeed = p.long("cpu-seed", 0, 0xFFFF_FFFFL).toInt(), // its low 32 bits: the chain's start mod 2³²
    ).also { p.int("pool-size", 0) }
    "spawn-idle" -> SpawnIdle(p.int("tasks", 0), p.long("hold-ms", 0))
    "channel" -> ChannelWorkload(
        workers = p.int("workers", 0),
        events = p.int("events", 0),
        queue = p.int("queue", 0),
        etype = p.choice("etype", ETYPES),
        esize = p.int("esize", 0),
    )
    "ring" -> Ring(
        rings = p.int("rings", 1),
        size = p.int("size", 2),
        passes = p.int("passes", 1, 100_000_000),
        sampleEvery = p.int("sample-every", 0), // 0: no clock read in the passes
    )
    "skynet" -> Skynet(p.long("size", 1, 100_000_000), p.int("branch", 2))
    else -> throw BadInput("unknown workload '$name'")
}

// ---------------------------------------------------------------------------------------------
// fanout (seed 000): the post's UserService / CoroutineUserProfileBuilder, delays from the params

data class User(val id: Int, val name: String)
data class Order(val id: String, val item: String)
data class Preferences(val darkMode: Boolean, val language: String)
data class Notification(val id: String, val message: String)
data class UserProfile(
    val user: User,
    val orders: List<Order>,
    val preferences: Preferences,
    val notifications: List<Notification>,
)

interface UserService {
    suspend fun fetchUser(userId: Int): User
    suspend fun fetchOrders(userId: Int): List<Order>
    suspend fun fetchPreferences(userId: Int): Preferences
    suspend fun fetchNotifications(userId: Int): List<Notification>
}

interface UserProfileBuilder {
    suspend fun buildUserProfile(id: Int): UserProfile
}

/** The fetches' delays, in ms. */
data class FetchDelays(val userMs: Long, val ordersMs: Long, val prefsMs: Long, val notificationsMs: Long)

/** The post's mock service; each fetch times its own delay() and records it under its kind in [sleeps]. */
class MockUserService(private val delays: FetchDelays, private val sleeps: FetchSleeps) : UserService {
    override suspend fun fetchUser(userId: Int) = delayAndReturn(delays.userMs, sleeps.user) { User(userId, "User-$userId") }
    override suspend fun fetchOrders(userId: Int) =
        delayAndReturn(delays.ordersMs, sleeps.orders) { listOf(Order("O1", "Item A"), Order("O2", "Item B")) }
    override suspend fun fetchPreferences(userId: Int) =
        delayAndReturn(delays.prefsMs, sleeps.prefs) { Preferences(true, "en-US") }
    override suspend fun fetchNotifications(userId: Int) =
        delayAndReturn(delays.notificationsMs, sleeps.notifications) {
            listOf(Notification("N1", "Welcome"), Notification("N2", "Discount"))
        }

    private suspend inline fun <T> delayAndReturn(ms: Long, kind: Sleeps, block: () -> T): T {
        kind.add(timedDelay(ms))
        return block()
    }
}

class CoroutineUserProfileBuilder(private val userService: UserService) : UserProfileBuilder {
    override suspend fun buildUserProfile(id: Int): UserProfile = coroutineScope {
        val user = userService.fetchUser(id)
        val orders = async { userService.fetchOrders(user.id) }
        val prefs = async { userService.fetchPreferences(user.id) }
        val notifications = async { userService.fetchNotifications(user.id) }
        UserProfile(user, orders.await(), prefs.await(), notifications.await())
    }
}

class Fanout(private val requests: Int, private val concurrency: Int, private val delays: FetchDelays) : Workload {
    override suspend fun run(index: Int, start: Long): Outcome {
        val sleeps = FetchSleeps() // this iteration's proofs: a service and builder around them (two small objects)
        val builder: UserProfileBuilder = CoroutineUserProfileBuilder(MockUserService(delays, sleeps))
        // as the post's BenchmarkRunner: one async per id, awaitAll. concurrency > 0: the loop takes
        // a permit before it launches a request and the request gives it back when it ends, so at
        // most C request coroutines exist (as Go's channel semaphore, Tokio's acquire_owned before spawn)
        val permits = if (concurrency > 0) Semaphore(concurrency) else null
        val profiles = coroutineScope {
            (1..requests).map { id ->
                if (permits == null) {
                    async { builder.buildUserProfile(id) }
                } else {
                    permits.acquire()
                    async {
                        try {
                            builder.buildUserProfile(id)
                        } finally {
                            permits.release()
                        }
                    }
                }
            }.awaitAll()
        }
        return Outcome {
            var idSum = 0L
            var idSqSum = 0L // Σ id²: proves every id was built exactly once (fits a Long up to R = 2 000 000)
            var items = 0L
            for (p in profiles) {
                val id = p.user.id.toLong()
                idSum += id
                idSqSum += id * id
                items += p.orders.size + 1 + p.notifications.size
            }
            linkedMapOf(
                "profiles" to profiles.size, "id_sum" to idSum, "id_sq_sum" to idSqSum, "items" to items,
                "pool_size" to null, "fetched" to sleeps.counts(), "slept_min_ns" to sleeps.minNs(),
            )
        }
    }
}

// ---------------------------------------------------------------------------------------------
// sleep-tasks (seed 001): N coroutines, each delay()s, then runs a seeded 32-bit chain

/**
 * K steps of x = x·1664525 + 1013904223, s = s + x from x = seed, s = 0, in Int arithmetic (Kotlin's
 * Int wraps mod 2³², as the contract asks); s returned as its unsigned value. Plain Int, not UInt:
 * kotlinc leaves a static UInt.constructor-impl call after every UInt operation, which C2 inlines
 * away but the interpreter and C1 execute, so cold iterations would pay for them. Each step needs
 * the one before, so the JIT neither vectorises nor folds the loop.
 */
fun cpuChain(seed: Int, k: Long): Long {
    var x = seed
    var s = 0
    var i = 0L
    while (i < k) {
        x = x * 1664525 + 1013904223
        s += x
        i++
    }
    return s.toUInt().toLong()
}

class SleepTasks(
    private val tasks: Int,
    private val sleepMs: Long,
    private val cpuIters: Long,
    private val cpuSeed: Int, // the seed's 32-bit pattern
) : Workload {
    override suspend fun run(index: Int, start: Long): Outcome {
        val cpuSum = AtomicLong()
        // counted by the tasks themselves (never echoed from the parameter), each with its timed delay
        val finished = Sleeps()
        coroutineScope {
            repeat(tasks) {
                launch {
                    val slept = timedDelay(sleepMs)
                    cpuSum.addAndGet(cpuChain(cpuSeed, cpuIters))
                    finished.add(slept)
                }
            }
        } // coroutineScope returns when every child has completed
        val sum = cpuSum.get()
        return Outcome {
            linkedMapOf("tasks" to finished.count(), "cpu_sum" to sum, "slept_min_ns" to finished.minNs(), "pool_size" to null)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// spawn-idle (seed 004): N coroutines that count themselves in, then delay(hold)

class SpawnIdle(private val tasks: Int, private val holdMs: Long) : Workload {
    override suspend fun run(index: Int, start: Long): Outcome {
        val started = AtomicInteger()
        val completed = AtomicInteger()
        val allStarted = CompletableDeferred<Unit>()
        if (tasks == 0) allStarted.complete(Unit)
        coroutineScope {
            repeat(tasks) {
                launch {
                    if (started.incrementAndGet() == tasks) allStarted.complete(Unit)
                    delay(holdMs)
                    completed.incrementAndGet()
                }
            }
            allStarted.await() // the spawner waits until the counter reaches N
            Output.mark("all-spawned", index, System.nanoTime() - start)
        }
        val done = completed.get()
        return Outcome { linkedMapOf("tasks" to done) }
    }
}

// ---------------------------------------------------------------------------------------------
// channel (seed 002, bench-of-chan): W consumers, each with its own Channel<T>(Q) fed by its own
// producer coroutine, which sends E events and closes the channel. Each event kind has its own
// element type, so the channel carries the value itself, as Go's chan int / chan string and
// Rust's monomorphised mpsc::channel::<T>: int -> Channel<Int>, the string kinds ->
// Channel<String>. A Channel<Int> still boxes on the JVM (its elements are references):
// send(i) is Integer.valueOf(i), cached for -128..127, one 16-byte Integer otherwise, as the
// Java contenders' BlockingQueue<Object>.put(i).

/** Makes one string event (chosen at set-up: a fresh string, the shared one, or a copy). */
fun interface StringMaker {
    fun make(): String
}

/**
 * A new String of [size] bytes ('x', so chars == UTF-8 bytes), written once: the JDK's
 * String.repeat fills the new String's own Latin-1 array, as the Java contender's "x".repeat(n).
 * "x".repeat(n) in Kotlin is the stdlib's CharSequence.repeat (a char[], then compressed into the
 * String: two writes), hence the cast to reach the JDK method. For 0 and 1 the JDK returns a shared
 * string ("" or the receiver itself), so those sizes are built from a char array.
 */
@Suppress("PLATFORM_CLASS_MAPPED_TO_KOTLIN")
fun newString(size: Int): String =
    if (size >= 2) ("x" as java.lang.String).repeat(size) else String(ONE_X, 0, size)

private val ONE_X = charArrayOf('x')

class ChannelWorkload(
    private val workers: Int,
    private val events: Int,
    private val queue: Int,
    private val etype: String,
    esize: Int,
) : Workload {
    // set up once: the shared string (str_ptr) and the prototype's bytes (str_clone) are long-lived;
    // null for int (the producer sends its index)
    private val maker: StringMaker? = when (etype) {
        "int" -> null
        "str" -> StringMaker { newString(esize) }
        "str_ptr" -> newString(esize).let { shared -> StringMaker { shared } }
        // one copy of the prototype's bytes into the new String's own array (String(String)
        // would share the prototype's array)
        "str_clone" -> newString(esize).toByteArray(Charsets.ISO_8859_1)
            .let { proto -> StringMaker { String(proto, Charsets.ISO_8859_1) } }
        else -> throw BadInput("bad etype '$etype'")
    }

    override suspend fun run(index: Int, start: Long): Outcome {
        val maker = maker
        val totals = if (maker == null) intPipes() else stringPipes(maker)
        return Outcome {
            val count = totals.sumOf { it[0] }
            val sum = totals.sumOf { it[1] }
            val result = linkedMapOf<String, Any?>(
                "events" to count,
                (if (etype == "int") "value_sum" else "bytes") to sum,
                // per consumer: both must be E
                "min_events" to (totals.minOfOrNull { it[0] } ?: 0L),
                "max_events" to (totals.maxOfOrNull { it[0] } ?: 0L),
            )
            if (etype != "int") result["same_as_prev"] = totals.sumOf { it[2] }
            result
        }
    }

    /** Channel<Int>: the producer sends its index i (boxed by send), the consumer sums them. */
    private suspend fun intPipes(): List<LongArray> = pipes<Int>(
        produce = { channel -> for (i in 0 until events) channel.send(i) },
        consume = { channel ->
            var count = 0L
            var sum = 0L
            for (value in channel) {
                count++
                sum += value
            }
            longArrayOf(count, sum, 0L)
        },
    )

    /** Channel<String>: the consumer sums the lengths and counts events sharing the previous one's object. */
    private suspend fun stringPipes(maker: StringMaker): List<LongArray> = pipes<String>(
        produce = { channel -> repeat(events) { channel.send(maker.make()) } },
        consume = { channel ->
            var count = 0L
            var sum = 0L
            var same = 0L
            // the previous event's string stays referenced until the next one arrives, so its
            // memory cannot be reused for the next string; === compares identity
            var prev: String? = null
            for (text in channel) {
                count++
                sum += text.length // ASCII: length in chars == bytes
                if (text === prev) same++
                prev = text
            }
            longArrayOf(count, sum, same)
        },
    )

    /**
     * W pipes: per consumer a Channel<T>(queue) (queue = 0 would be a rendezvous channel), a
     * producer coroutine (launch: [produce], then close()) and a consumer (async: [consume]).
     * Inline, so each element type gets its own copy of the loops (no lambda call per event).
     */
    private suspend inline fun <T> pipes(
        crossinline produce: suspend (Channel<T>) -> Unit,
        crossinline consume: suspend (Channel<T>) -> LongArray,
    ): List<LongArray> = coroutineScope {
        (0 until workers).map {
            val channel = Channel<T>(queue)
            launch {
                produce(channel)
                channel.close()
            }
            async { consume(channel) }
        }.awaitAll()
    }
}
