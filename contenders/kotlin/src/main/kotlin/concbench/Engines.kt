package concbench

import io.ktor.client.HttpClient
import io.ktor.client.engine.cio.endpoint
import io.ktor.server.application.Application
import io.ktor.server.engine.EmbeddedServer
import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.netty.channel.epoll.Epoll
import io.ktor.client.engine.cio.CIO as ClientCIO
import io.ktor.client.engine.java.Java as ClientJava
import io.ktor.server.cio.CIO as ServerCIO
import io.ktor.server.netty.Netty as ServerNetty

// ---------------------------------------------------------------------------------------------
// The http-* engines. Default (kotlin-coroutines): Ktor's Netty server engine and the Java client
// engine (the JDK's java.net.http.HttpClient). -Dconcbench.ktor.engine=cio (kotlin-coroutines-cio):
// Ktor's CIO server engine and CIO client, the previous default.

/** The system property that picks the engine pair; unset means netty. */
const val ENGINE_PROPERTY = "concbench.ktor.engine"

/**
 * Downstream=http client pool, CIO client only: its total and per-route connection limits
 * (defaults 1000 / 100). Every downstream call goes to one route, and an aggregate request holds
 * two calls at once (detail ∥ extra), so 4096 lets 2048 server connections run without waiting
 * for a pooled connection; the contract asks for ≥ 1024. The JDK client has no limit to raise: it
 * opens a connection per call in flight when none is idle, and keeps every idle one
 * (jdk.httpclient.connectionPoolSize, default 0 = no limit).
 */
const val CLIENT_MAX_CONNECTIONS = 4096
const val CLIENT_MAX_CONNECTIONS_PER_ROUTE = 4096

enum class KtorEngine(val id: String) { NETTY("netty"), CIO("cio") }

/** The engine named by [ENGINE_PROPERTY]; anything but netty / cio is bad input (exit 2). */
fun ktorEngine(): KtorEngine {
    val raw = System.getProperty(ENGINE_PROPERTY) ?: return KtorEngine.NETTY
    return KtorEngine.entries.firstOrNull { it.id == raw }
        ?: throw BadInput("-D$ENGINE_PROPERTY must be netty or cio, not '$raw'")
}

/**
 * Netty event-loop groups, sized to the CPUs the process sees (Runtime.availableProcessors(),
 * which follows the CPU affinity mask and cgroup quota):
 * - connectionGroupSize 1: the accepting group; one listening socket is served by one event loop
 *   whatever the group's size (Ktor's default parallelism / 2 + 1 leaves the rest idle).
 * - workerGroupSize = CPUs: one I/O event loop per CPU (reads, HTTP parsing, writes), as Netty's
 *   own guidance for a non-blocking server (Ktor's default is parallelism / 2 + 1).
 * - callGroupSize = CPUs: Ktor runs each call's coroutine on an event loop of this group, pinned per
 *   connection; the handlers never block, so one per CPU (Ktor's default, parallelism).
 * shareWorkGroup stays false: with it, calls still go to a round-robin loop of the merged group
 * rather than the connection's own, so the hand-off between groups would remain.
 */
data class NettyGroups(val connection: Int, val worker: Int, val call: Int)

fun nettyGroups(cpus: Int = Runtime.getRuntime().availableProcessors()) = NettyGroups(1, cpus, cpus)

fun createServer(engine: KtorEngine, bind: String, port: Int, module: Application.() -> Unit): EmbeddedServer<*, *> =
    when (engine) {
        KtorEngine.CIO -> embeddedServer(ServerCIO, host = bind, port = port, module = module)
        KtorEngine.NETTY -> {
            val groups = nettyGroups()
            embeddedServer(ServerNetty, configure = {
                connector {
                    host = bind
                    this.port = port
                }
                connectionGroupSize = groups.connection
                workerGroupSize = groups.worker
                callGroupSize = groups.call
            }, module = module)
        }
    }

/** The shared Ktor client for downstream=http; keep-alive HTTP/1.1 either way. */
fun downstreamClient(engine: KtorEngine): HttpClient = when (engine) {
    KtorEngine.CIO -> HttpClient(ClientCIO) {
        expectSuccess = false // the status is checked by HttpDownstream (non-200 -> 502)
        engine {
            maxConnectionsCount = CLIENT_MAX_CONNECTIONS
            endpoint { maxConnectionsPerRoute = CLIENT_MAX_CONNECTIONS_PER_ROUTE }
        }
    }
    KtorEngine.NETTY -> HttpClient(ClientJava) {
        expectSuccess = false
        engine {
            // Ktor's Java engine asks for HTTP/2 by default, which on http:// sends an h2c upgrade
            // request on each new connection; the backend speaks HTTP/1.1 keep-alive
            protocolVersion = java.net.http.HttpClient.Version.HTTP_1_1
        }
    }
}

/** The ready line's client_pool object for downstream=http. */
fun clientPoolInfo(engine: KtorEngine): Map<String, Any?> = when (engine) {
    KtorEngine.CIO -> linkedMapOf(
        "engine" to "ktor-client-cio",
        "max_connections" to CLIENT_MAX_CONNECTIONS,
        "max_connections_per_route" to CLIENT_MAX_CONNECTIONS_PER_ROUTE,
    )
    KtorEngine.NETTY -> linkedMapOf(
        "engine" to "ktor-client-java",
        "protocol" to "HTTP/1.1",
        "max_connections" to null, // the JDK client opens as many connections as calls in flight
        // idle keep-alive connections kept per client; 0 (the default) = no limit
        "idle_pool_size" to (System.getProperty("jdk.httpclient.connectionPoolSize")?.toIntOrNull() ?: 0),
    )
}

/** The ready line's engine-specific keys. */
fun engineInfo(engine: KtorEngine): Map<String, Any?> = when (engine) {
    // CIO accepts, reads and runs every call on Dispatchers.IO (elastic, at most this many threads)
    KtorEngine.CIO -> linkedMapOf(
        "engine" to "ktor-cio",
        "dispatcher" to "Dispatchers.IO",
        "io_parallelism" to (System.getProperty("kotlinx.coroutines.io.parallelism")?.toIntOrNull()
            ?: maxOf(64, Runtime.getRuntime().availableProcessors())),
    )
    KtorEngine.NETTY -> {
        val groups = nettyGroups()
        linkedMapOf(
            "engine" to "ktor-netty",
            "transport" to if (Epoll.isAvailable()) "epoll" else "nio",
            // set explicitly in the manifest's run (--sun-misc-unsafe-memory-access=allow,
            // --enable-native-access=ALL-UNNAMED), read back here as observed: whether Netty uses
            // sun.misc.Unsafe for its buffers, and whether its native epoll transport may load
            "netty_unsafe" to io.netty.util.internal.PlatformDependent.hasUnsafe(),
            "native_access" to KtorEngine::class.java.module.isNativeAccessEnabled,
            "connection_group" to groups.connection,
            "worker_group" to groups.worker,
            "call_group" to groups.call,
            "dispatcher" to "Netty call event loops (pinned per connection)",
        )
    }
}
