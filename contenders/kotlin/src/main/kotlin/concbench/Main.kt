package concbench

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import java.lang.management.ManagementFactory
import java.util.Properties
import kotlin.system.exitProcess

private const val USAGE = "usage: concbench-kotlin <workload> --<param>=<value> ... --warmup=W --iterations=N\n" +
    "       concbench-kotlin --version"

private class Config(val workloadName: String, val workload: Workload, val warmup: Int, val iterations: Int)

private fun parse(args: Array<String>): Config {
    if (args.isEmpty()) throw BadInput("no workload given (known: ${WORKLOAD_PARAMS.keys.joinToString(", ")})")
    val name = args[0]
    val names = WORKLOAD_PARAMS[name]
        ?: throw BadInput("unknown workload '$name' (known: ${WORKLOAD_PARAMS.keys.joinToString(", ")})")
    val p = Params.parse(args.drop(1), names + listOf("warmup", "iterations"))
    val warmup = p.int("warmup", 0)
    val iterations = p.int("iterations", 1)
    return Config(name, workload(name, p), warmup, iterations)
}

/** The pinned versions (filled in by the Maven build) and the Kotlin stdlib version at run time. */
private fun versions(): String {
    val props = Properties()
    Config::class.java.getResourceAsStream("/concbench-kotlin-versions.properties")?.use { props.load(it) }
    return "kotlin ${props.getProperty("kotlin", "?")} (stdlib at run time: ${KotlinVersion.CURRENT}), " +
        "kotlinx-coroutines ${props.getProperty("coroutines", "?")}, " +
        "java ${System.getProperty("java.vm.version")} (${System.getProperty("java.vm.name")})"
}

fun main(args: Array<String>) {
    if (args.size == 1 && args[0] == "--version") {
        Output.line(versions())
        exitProcess(0)
    }
    val config = try {
        parse(args)
    } catch (e: BadInput) {
        System.err.println("concbench-kotlin: ${e.message}")
        System.err.println(USAGE)
        exitProcess(2)
    }

    val mx = ManagementFactory.getThreadMXBean()
    try {
        runBlocking {
            // the iterations run as one coroutine on Dispatchers.Default; every task the
            // workloads start is a child coroutine on that dispatcher
            withContext(Dispatchers.Default) {
                for (i in 0 until config.warmup + config.iterations) {
                    mx.resetPeakThreadCount()
                    val start = System.nanoTime()
                    val outcome = config.workload.run(i, start)
                    val elapsed = System.nanoTime() - start
                    // outside the timed region: the result, the thread counts, the JSON
                    val threads = mx.threadCount
                    val daemon = mx.daemonThreadCount
                    val peak = mx.peakThreadCount
                    val result = LinkedHashMap(outcome.result())
                    result["jvm_threads"] = threads
                    result["jvm_nondaemon_threads"] = threads - daemon
                    result["jvm_peak_threads"] = peak
                    Output.iteration(i, i < config.warmup, elapsed, result)
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
