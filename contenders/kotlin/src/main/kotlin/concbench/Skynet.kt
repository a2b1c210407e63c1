package concbench

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.LongAdder

// ---------------------------------------------------------------------------------------------
// skynet (atemerev/skynet): every inner node is a coroutine that starts `branch` child coroutines
// with async and awaits them all; leaves return their ordinal, every node its subtree's task count

/** What a node of the tree returns: the sum of its leaves' ordinals and the tasks its subtree ran. */
class SubTree(val sum: Long, val tasks: Long)

/**
 * The tree's coroutines alive now, kept by the coroutines themselves (kotlinx.coroutines keeps
 * no count outside its debug probes): an inner node adds itself as it starts and takes itself
 * off once its children are summed; leaves leave it alone, except leaf 0, which reads it (plus
 * itself) once per tree. A LongAdder, striped per contending thread, as in the Java contenders.
 */
private val live = LongAdder()
private val atFirstLeaf = AtomicLong()

/** skynet(num, size): runs in its own coroutine (the caller's async); a leaf when size = 1. */
suspend fun skynet(num: Long, size: Long, branch: Int): SubTree {
    if (size == 1L) {
        if (num == 0L) atFirstLeaf.set(live.sum() + 1)
        return SubTree(num, 1)
    }
    live.increment()
    val part = size / branch
    val children = coroutineScope {
        (0 until branch).map { i -> async { skynet(num + i * part, part, branch) } }.awaitAll()
    }
    live.decrement()
    return SubTree(children.sumOf { it.sum }, 1 + children.sumOf { it.tasks })
}

class Skynet(private val size: Long, private val branch: Int) : Workload {
    init {
        var leaves = 1L
        while (leaves < size) leaves *= branch
        if (leaves != size) throw BadInput("--size=$size is not a power of --branch=$branch")
    }

    override suspend fun run(index: Int, start: Long): Outcome {
        // the root is a task too: one async on Dispatchers.Default, awaited by the iteration
        val before = live.sum()
        val root = coroutineScope { async { skynet(0, size, branch) }.await() }
        val alive = atFirstLeaf.get() - before
        return Outcome { linkedMapOf("sum" to root.sum, "tasks" to root.tasks, "tasks_alive" to alive) }
    }
}
