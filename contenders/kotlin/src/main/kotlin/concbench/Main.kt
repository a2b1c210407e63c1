package concbench

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import java.lang.management.ManagementFactory
import java.util.Properties
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess

private const val USAGE = "usage: concbench-kotlin <workload> --<param>=<value> ... --warmup=W --iterations=N\n" +
    "       concbench-kotlin <http-workload> --port=P --<param>=<value> ...\n" +
    "       concbench-kotlin --version"

private class Config(val workloadName: String, val workload: Workload, val warmup: Int, val iterations: Int)

private val KNOWN = (WORKLOAD_PARAMS.keys + SERVER_PARAMS.keys).joinToString(", ")

private fun parse(args: Array<String>): Config {
    if (args.isEmpty()) throw BadInput("no workload given (known: $KNOWN)")
    val name = args[0]
    val names = WORKLOAD_PARAMS[name] ?: throw BadInput("unknown workload '$name' (known: $KNOWN)")
    val p = Params.parse(args.drop(1), names + listOf("warmup", "iterations"))
    val warmup = p.int("warmup", 0)
    val iterations = p.int("iterations", 1)
    return Config(name, workload(name, p), warmup, iterations)
}

/** The pinned versions, filled in by the Maven build (kotlin, coroutines, ktor, logback); read on first use. */
val PINNED: Properties by lazy {
    Properties().also { props ->
        Config::class.java.getResourceAsStream("/concbench-kotlin-versions.properties")?.use { props.load(it) }
    }
}

/** The pinned versions and the Kotlin stdlib version at run time. */
private fun versions(): String =
    "kotlin ${PINNED.getProperty("kotlin", "?")} (stdlib at run time: ${KotlinVersion.CURRENT}), " +
        "kotlinx-coroutines ${PINNED.getProperty("coroutines", "?")}, " +
        "ktor ${PINNED.getProperty("ktor", "?")} (Netty engine + Java client; CIO engine + CIO client with -D$ENGINE_PROPERTY=cio), " +
        "java ${System.getProperty("java.vm.version")} (${System.getProperty("java.vm.name")})"

private fun usageError(e: BadInput): Nothing {
    System.err.println("concbench-kotlin: ${e.message}")
    System.err.println(USAGE)
    exitProcess(2)
}

/**
 * Start-up of the dispatchers the batch workloads use, once per process before the first clock
 * starts: Dispatchers.Default starts its worker threads on demand (core workers never exit), and
 * delay() starts kotlinx.coroutines' DefaultExecutor thread on first use.
 */
private suspend fun startDispatchers() {
    val workers = maxOf(2, Runtime.getRuntime().availableProcessors()) // Default's core pool size
    val allRunning = CountDownLatch(workers)
    coroutineScope {
        repeat(workers) {
            launch(Dispatchers.Default) {
                // hold this worker thread until all run at once: then every core worker exists
                // (blocking, on purpose; the timeout only keeps set-up from ever hanging on it)
                allRunning.countDown()
                allRunning.await(1, TimeUnit.SECONDS)
            }
        }
    }
    withContext(Dispatchers.Default) { delay(1) } // on Default, DefaultExecutor times delay()
}

fun main(args: Array<String>) {
    if (args.size == 1 && args[0] == "--version") {
        Output.line(versions())
        exitProcess(0)
    }
    if (args.isNotEmpty() && args[0] in SERVER_PARAMS) {
        // a server: no iterations; serves until SIGTERM (see Server.kt).
        // IPv4 sockets: by default the JDK opens dual-stack IPv6 sockets, so bind("127.0.0.1")
        // listens on [::ffff:127.0.0.1] (listed in /proc/net/tcp6). Read when java.net / sun.nio.ch
        // initialise, so set before any socket class loads; server workloads only (no JVM flag).
        System.setProperty("java.net.preferIPv4Stack", "true")
        val server = try {
            serverWorkload(args[0], Params.parse(args.drop(1), SERVER_PARAMS.getValue(args[0])))
        } catch (e: BadInput) {
            usageError(e)
        }
        try {
            serve(server)
        } catch (e: Throwable) {
            System.err.println("concbench-kotlin ${args[0]}: failed: $e")
            e.printStackTrace(System.err)
            exitProcess(1)
        }
    }
    val config = try {
        parse(args)
    } catch (e: BadInput) {
        usageError(e)
    }

    val mx = ManagementFactory.getThreadMXBean()
    val ownCpu = config.workloadName == "ring" || config.workloadName == "skynet"
    // the collector JVM ergonomics chose (G1 on 2+ CPUs, SerialGC's "Copy, MarkSweepCompact" on one)
    val collectors = ManagementFactory.getGarbageCollectorMXBeans().joinToString(", ") { it.name }
    try {
        runBlocking {
            startDispatchers()
            // the iterations run as one coroutine on Dispatchers.Default; every task the
            // workloads start is a child coroutine on that dispatcher
            withContext(Dispatchers.Default) {
                for (i in 0 until config.warmup + config.iterations) {
                    mx.resetPeakThreadCount()
                    val cpu0 = if (ownCpu) ProcessCpu.nanos() else 0L
                    val start = System.nanoTime()
                    val outcome = config.workload.run(i, start)
                    val end = System.nanoTime()
                    val cpu = if (ownCpu) outcome.cpuNs() ?: (ProcessCpu.nanos() - cpu0) else null
                    val elapsed = outcome.timedNs() ?: (end - start)
                    // outside the timed region: the result, the thread counts, the JSON
                    val threads = mx.threadCount
                    val daemon = mx.daemonThreadCount
                    val peak = mx.peakThreadCount
                    val result = LinkedHashMap(outcome.result())
                    result["jvm_threads"] = threads
                    result["jvm_nondaemon_threads"] = threads - daemon
                    result["jvm_peak_threads"] = peak
                    result["jvm_gc"] = collectors
                    Output.iteration(i, i < config.warmup, elapsed, result, cpu)
                }
            }
        }
    } catch (e: Throwable) {
        System.err.println("concbench-kotlin ${config.workloadName}: failed: $e")
        e.printStackTrace(System.err)
        exitProcess(1)
    }
    exitProcess(0)
}
