package concbench

import io.ktor.client.HttpClient
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.serialization.kotlinx.json.json
import io.ktor.server.application.Application
import io.ktor.server.application.install
import io.ktor.server.engine.EmbeddedServer
import io.ktor.server.plugins.contentnegotiation.ContentNegotiation
import io.ktor.server.response.respond
import io.ktor.server.response.respondBytes
import io.ktor.server.response.respondText
import io.ktor.server.routing.get
import io.ktor.server.routing.routing
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import sun.misc.Signal
import java.lang.management.ManagementFactory
import java.util.concurrent.CountDownLatch
import kotlin.system.exitProcess

// ---------------------------------------------------------------------------------------------
// http-* workloads: Ktor 3 on the engine of Engines.kt (Netty, or CIO for the -cio variant),
// one routing route per workload, and for http-aggregate's JSON ContentNegotiation with
// kotlinx.serialization (see aggregateModule); no CallLogging: nothing is logged per request.

/** Ktor grace period and hard timeout for stop() on SIGTERM (the harness kills after 5 s). */
private const val STOP_GRACE_MS = 1000L
private const val STOP_TIMEOUT_MS = 3000L

/** A server workload, set up from its parameters; [module] installs its routes. */
class ServerWorkload(
    val name: String,
    /** --bind: the IPv4 address to listen on. */
    val bind: String,
    val port: Int,
    val module: Application.() -> Unit,
    /** Extra keys for the ready line's runtime object. */
    val info: Map<String, Any?>,
    val engine: KtorEngine,
    /** Closed after the server stopped (the downstream HTTP client). */
    val close: () -> Unit = {},
)

fun serverWorkload(name: String, p: Params): ServerWorkload {
    val port = p.int("port", 1, 65535)
    val bind = p.ipv4("bind")
    p.int("pool-size", 0) // validated, then ignored: Ktor runs calls as coroutines, not on a pool
    val engine = ktorEngine()
    return when (name) {
        "http-hello" -> ServerWorkload(name, bind, port, { helloModule() }, emptyMap(), engine)
        "http-aggregate" -> {
            val baseMs = p.long("base-ms", 0)
            val detailMs = p.long("detail-ms", 0)
            val extraMs = p.long("extra-ms", 0)
            val downstreamKind = p.choice("downstream", DOWNSTREAMS)
            val backendHost = p.ipv4("backend-host")
            val backendPort = p.int("backend-port", 0, 65535)
            if (downstreamKind == "http" && backendPort == 0) {
                throw BadInput("--downstream=http needs --backend-port in 1..65535")
            }
            val client = if (downstreamKind == "http") downstreamClient(engine) else null
            val downstream = if (client != null) HttpDownstream(client, backendHost, backendPort) else InprocDownstream(Waits())
            val waits = (downstream as? InprocDownstream)?.waits
            val service = UserAggregateService(downstream, baseMs, detailMs, extraMs)
            val json = jsonForm() // a bad -D value exits 2 before the server starts
            ServerWorkload(
                name, bind, port, { aggregateModule(service, waits, json) },
                linkedMapOf(
                    "downstream" to downstreamKind,
                    "client_pool" to if (client == null) null else clientPoolInfo(engine),
                    "json" to json.id,
                ),
                engine,
                close = { client?.close() },
            )
        }
        else -> throw BadInput("unknown workload '$name'")
    }
}

/**
 * Starts the server on bind:port, prints the ready line once it accepts connections, and
 * serves until SIGTERM: then stop(grace, timeout) and exit 0. (Without the handler the JVM's own
 * SIGTERM handling would run Ktor's shutdown hook and exit with 143.)
 */
fun serve(w: ServerWorkload): Nothing {
    val server = createServer(w.engine, w.bind, w.port, w.module)
    Signal.handle(Signal("TERM")) {
        // stop() unregisters Ktor's JVM shutdown hook, so exitProcess does not stop it twice
        server.stop(STOP_GRACE_MS, STOP_TIMEOUT_MS)
        w.close()
        exitProcess(0)
    }
    server.start(wait = false) // returns once the engine's server socket is bound and accepting
    Output.line(readyLine(server, w))
    CountDownLatch(1).await() // main waits; the TERM handler ends the process
    exitProcess(1) // not reached
}

private fun readyLine(server: EmbeddedServer<*, *>, w: ServerWorkload): String {
    val port = runBlocking { server.engine.resolvedConnectors().single().port }
    val runtime = linkedMapOf<String, Any?>(
        "cpus" to Runtime.getRuntime().availableProcessors(),
        "ktor" to PINNED.getProperty("ktor", "?"),
        "kotlin" to PINNED.getProperty("kotlin", "?"),
        "coroutines" to PINNED.getProperty("coroutines", "?"),
        "java" to System.getProperty("java.vm.version"),
        "gc" to ManagementFactory.getGarbageCollectorMXBeans().joinToString(", ") { it.name },
    )
    runtime.putAll(engineInfo(w.engine))
    runtime["pool"] = null
    runtime.putAll(w.info)
    return Output.json(linkedMapOf("type" to "ready", "port" to port, "runtime" to runtime))
}

// ---------------------------------------------------------------------------------------------
// http-hello (seed 004): GET /hello -> 200 text/plain, 199 'x' + '\n', built once

private val HELLO_BODY: ByteArray = ByteArray(200) { 'x'.code.toByte() }.also { it[199] = '\n'.code.toByte() }

fun Application.helloModule() {
    routing {
        get("/hello") {
            call.respondBytes(HELLO_BODY, ContentType.Text.Plain)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// http-aggregate (seed 003): base, then detail ∥ extra, as the post's "async-ultra" version, with
// coroutines: coroutineScope { base; async detail; async extra }

/** Which of a request's three downstream calls. */
enum class WaitKind { BASE, DETAIL, EXTRA }

/** One downstream call of [ms] milliseconds. */
fun interface Downstream {
    suspend fun call(kind: WaitKind, ms: Long)
}

/**
 * Proof of the waits (docs/contract.md, http-aggregate): every in-process wait is counted by kind
 * and the shortest of each kept, timed with System.nanoTime from just before delay() arms its
 * timer to the continuation running after it, so GET /waits shows one real wait of each kind per
 * answered request, none shorter than asked. [Sleeps] as the batch workloads' sleep proofs: a
 * striped LongAdder and a LongAccumulator(min), which writes only when a wait is shorter than the
 * shortest so far; added after the wait, before the call returns (so a request's waits are all
 * counted by the time it is answered).
 */
class Waits {
    private val byKind = Array(WaitKind.entries.size) { Sleeps() }

    operator fun get(kind: WaitKind): Sleeps = byKind[kind.ordinal]

    /** {"base": {"count": n, "min_us": m}, ...}: totals since start, min_us null before the first. */
    fun json(): JsonObject = buildJsonObject {
        for (kind in WaitKind.entries) {
            put(kind.name.lowercase(), buildJsonObject {
                put("count", this@Waits[kind].count())
                put("min_us", this@Waits[kind].minNs()?.div(1000))
            })
        }
    }
}

/** downstream=inproc: the coroutine's own wait, delay(), counted in [waits]. */
class InprocDownstream(val waits: Waits) : Downstream {
    override suspend fun call(kind: WaitKind, ms: Long) {
        val t0 = System.nanoTime()
        delay(ms)
        waits[kind].add(System.nanoTime() - t0)
    }
}

class DownstreamException(message: String) : Exception(message)

/** downstream=http: GET http://<backend-host>:<backend-port>/delay/<ms>, whole body read, 200 required. */
class HttpDownstream(private val client: HttpClient, backendHost: String, backendPort: Int) : Downstream {
    private val base = "http://$backendHost:$backendPort/delay/"

    override suspend fun call(kind: WaitKind, ms: Long) {
        val response = client.get(base + ms)
        response.bodyAsText() // the whole body ({"delay_ms":<ms>})
        if (response.status != HttpStatusCode.OK) throw DownstreamException("backend answered ${response.status}")
    }
}

class UserDetail(val name: String, val age: Int, val sex: Int)
class UserExtraInfo(val phone: String, val level: String)

/** The post's UserService, suspend instead of blocking, the three calls on [downstream]. */
class UserAggregateService(
    private val downstream: Downstream,
    private val baseMs: Long,
    private val detailMs: Long,
    private val extraMs: Long,
) {
    suspend fun getUserBaseInfo(id: Long): Long {
        downstream.call(WaitKind.BASE, baseMs)
        return id
    }

    suspend fun getUserDetailInfo(userId: Long): UserDetail {
        downstream.call(WaitKind.DETAIL, detailMs)
        return UserDetail("User-$userId", 25, 1)
    }

    suspend fun getUserExtraInfo(userId: Long): UserExtraInfo {
        downstream.call(WaitKind.EXTRA, extraMs)
        return UserExtraInfo("13800138000", "VIP会员")
    }

    /** base first (detail and extra need the id), then detail and extra concurrently. */
    suspend fun assembleUser(id: Long): AggregateUser = coroutineScope {
        val userId = getUserBaseInfo(id)
        val detail = async { getUserDetailInfo(userId) }
        val extra = async { getUserExtraInfo(userId) }
        val d = detail.await()
        val e = extra.await()
        AggregateUser(userId, d.name, d.age, d.sex, e.phone, e.level)
    }
}

/** The answer of GET /user/{id}, in the contract's field order; its serializer is generated. */
@Serializable
data class AggregateUser(val id: Long, val name: String, val age: Int, val sex: Int, val phone: String, val level: String)

/** A user id: digits only (leading zeros allowed), at most 16 of them, checked against [MAX_ID]. */
private val ID = Regex("[0-9]{1,16}")

/** 2^53 − 1: the largest id the contract serves (I-JSON's exact integers); larger ones are 404. */
private const val MAX_ID = (1L shl 53) - 1

/**
 * The JSON, as Ktor's guides write it: ContentNegotiation with kotlinx.serialization's json()
 * (Ktor's DefaultJson: compact, non-ASCII unescaped) and call.respond(user), the generated
 * serializer of the @Serializable [AggregateUser]; Content-Type application/json (no charset).
 * -D[JSON_PROPERTY]=text (kotlin-coroutines-json-text) keeps the hand-built form this replaced: no
 * plugin, the same fields in a JsonObject encoded with Json.encodeToString and respondText.
 */
fun Application.aggregateModule(service: UserAggregateService, waits: Waits?, json: JsonForm) {
    val negotiated = json == JsonForm.NEGOTIATED
    if (negotiated) install(ContentNegotiation) { json() }
    routing {
        if (waits != null) { // downstream=inproc: the waits' proof (Waits); with http, 404
            get("/waits") {
                if (negotiated) call.respond(waits.json())
                else call.respondText(Json.encodeToString(JsonObject.serializer(), waits.json()), ContentType.Application.Json)
            }
        }
        get("/user/{id}") {
            val raw = call.parameters["id"]
            val id = if (raw != null && ID.matches(raw)) raw.toLong() else 0L
            if (id < 1 || id > MAX_ID) { // not a user id: a path no route serves (the contract's 404)
                call.respond(HttpStatusCode.NotFound)
                return@get
            }
            val user = try {
                service.assembleUser(id)
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) { // the backend failed, refused or answered non-200
                call.respond(HttpStatusCode.BadGateway)
                return@get
            }
            if (negotiated) call.respond(user)
            else call.respondText(Json.encodeToString(JsonObject.serializer(), user.toJsonObject()), ContentType.Application.Json)
        }
    }
}

/** The system property that picks the JSON form; unset means negotiated. */
const val JSON_PROPERTY = "concbench.ktor.json"

enum class JsonForm(val id: String) { NEGOTIATED("negotiated"), TEXT("text") }

/** The form named by [JSON_PROPERTY]; anything but negotiated / text is bad input (exit 2). */
fun jsonForm(): JsonForm {
    val raw = System.getProperty(JSON_PROPERTY) ?: return JsonForm.NEGOTIATED
    return JsonForm.entries.firstOrNull { it.id == raw }
        ?: throw BadInput("-D$JSON_PROPERTY must be negotiated or text, not '$raw'")
}

/** The hand-built form's object: the same fields, in the same order. */
private fun AggregateUser.toJsonObject(): JsonObject = buildJsonObject {
    put("id", id)
    put("name", name)
    put("age", age)
    put("sex", sex)
    put("phone", phone)
    put("level", level)
}
