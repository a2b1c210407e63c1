package concbench

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope

// ---------------------------------------------------------------------------------------------
// skynet (atemerev/skynet): every inner node is a coroutine that starts `branch` child coroutines
// with async and awaits them all; leaves return their ordinal, every node its subtree's task count

/** What a node of the tree returns: the sum of its leaves' ordinals and the tasks its subtree ran. */
class SubTree(val sum: Long, val tasks: Long)

/** skynet(num, size): runs in its own coroutine (the caller's async); a leaf when size = 1. */
suspend fun skynet(num: Long, size: Long, branch: Int): SubTree {
    if (size == 1L) return SubTree(num, 1)
    val part = size / branch
    val children = coroutineScope {
        (0 until branch).map { i -> async { skynet(num + i * part, part, branch) } }.awaitAll()
    }
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
        val root = coroutineScope { async { skynet(0, size, branch) }.await() }
        return Outcome { linkedMapOf("sum" to root.sum, "tasks" to root.tasks) }
    }
}
