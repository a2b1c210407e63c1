package concbench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.LongAdder;

/**
 * skynet (atemerev/skynet): skynet(num, size) returns (num, 1) for a leaf (size 1), else spawns
 * branch children skynet(num + i * size/branch, size/branch) as separate tasks, waits for all and
 * returns (sum of their sums, 1 + sum of their task counts). Both travel up in return values (no
 * shared counter). This class has the parameters, the result and the two thread-based forms:
 * fork/join on platform threads (java-platform) and a virtual thread per task (java-virtual); the
 * structured, CompletableFuture and Reactor forms live in their styles.
 */
final class Skynet {
    private Skynet() {}

    record Params(long size, int branch) {
        static Params of(concbench.Params p) throws concbench.Params.BadInput {
            long size = p.longAtLeast("size", 1);
            int branch = p.intAtLeast("branch", 2);
            long n = 1;
            while (n < size && n <= Long.MAX_VALUE / branch) n *= branch;
            if (n != size)
                throw new concbench.Params.BadInput("--size=" + size + " is not a power of --branch=" + branch);
            return new Params(size, branch);
        }
    }

    /**
     * The tree's tasks alive now, kept by the tasks themselves: the JVM counts threads, not
     * fork/join tasks, futures or Monos, and not virtual threads. Every inner task adds itself as
     * it starts ({@link #enter}) and takes itself off once its children are summed ({@link #exit});
     * leaves do not touch it, except leaf 0, which reads it (plus itself) once per tree. A
     * LongAdder: its cells are striped per contending thread, so a million tasks bumping it do
     * not queue on one cache line (two adds per inner task, 111 111 of the 1 111 111 at 10^6).
     */
    static final LongAdder LIVE = new LongAdder();
    private static long before, atFirstLeaf;

    static void enter() { LIVE.increment(); }

    static void exit() { LIVE.decrement(); }

    /** At the start of the timed tree: the count the tree's own tasks are read above. */
    static void beforeTree() { before = LIVE.sum(); }

    /** A subtree's sum of leaf ordinals and number of tasks (itself included). */
    record Result(long sum, long tasks) {
        static Result leaf(long num) {
            if (num == 0) atFirstLeaf = LIVE.sum() + 1; // read by main after the root's join
            return new Result(num, 1);
        }

        /** Where a parent starts summing its children: no leaf ordinal, one task (itself). */
        static final Result PARENT = new Result(0, 1);

        Result plus(Result child) { return new Result(sum + child.sum(), tasks + child.tasks()); }

        /** The parent of these children: their sums, and one more task (the parent). */
        static Result parentOf(Iterable<Result> children) {
            long sum = 0, tasks = 1;
            for (Result r : children) {
                sum += r.sum();
                tasks += r.tasks();
            }
            return new Result(sum, tasks);
        }

        Map<String, Object> json() {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("sum", sum);
            r.put("tasks", tasks);
            r.put("tasks_alive", atFirstLeaf - before);
            return r;
        }
    }

    // ---------------------------------------------------------------- java-platform: fork/join

    /**
     * A million platform threads are not possible (pid_max), so platform threads decompose the tree
     * the way Java does recursive decomposition: a RecursiveTask per node on a ForkJoinPool, children
     * forked with invokeAll (forks all but the first, computes the first in place, joins the rest; a
     * joining worker runs queued tasks meanwhile instead of blocking).
     */
    static final class Node extends RecursiveTask<Result> {
        private final long num, size;
        private final int branch;

        Node(long num, long size, int branch) {
            this.num = num;
            this.size = size;
            this.branch = branch;
        }

        @Override
        protected Result compute() {
            if (size == 1) return Result.leaf(num);
            enter();
            long child = size / branch;
            List<Node> children = new ArrayList<>(branch);
            for (int i = 0; i < branch; i++) children.add(new Node(num + i * child, child, branch));
            invokeAll(children);
            List<Result> results = new ArrayList<>(branch);
            for (Node n : children) results.add(n.join()); // all done: join returns the result
            exit();
            return Result.parentOf(results);
        }
    }

    static Work.Iteration forkJoin(ForkJoinPool pool, Params p) {
        return (index, start, out) -> {
            beforeTree();
            return Work.ready(pool.invoke(new Node(0, p.size(), p.branch())).json());
        };
    }

    // ---------------------------------------------------------------- java-virtual: a virtual thread per task

    /** Runs on a virtual thread: a leaf returns, a parent starts a virtual thread per child and joins them. */
    static Result virtual(long num, long size, int branch) throws InterruptedException {
        if (size == 1) return Result.leaf(num);
        enter();
        long child = size / branch;
        Result[] results = new Result[branch]; // results[i] written by child i before it ends, read after join
        Thread[] children = new Thread[branch];
        for (int i = 0; i < branch; i++) {
            int slot = i;
            long childNum = num + i * child;
            children[i] = Thread.startVirtualThread(() -> results[slot] = virtualChild(childNum, child, branch));
        }
        for (Thread t : children) t.join();
        exit();
        return Result.parentOf(List.of(results));
    }

    private static Result virtualChild(long num, long size, int branch) {
        try {
            return virtual(num, size, branch);
        } catch (InterruptedException e) {
            throw new Work.Failure("skynet task interrupted");
        }
    }

    static Work.Iteration virtualThreads(Params p) {
        return (index, start, out) -> {
            beforeTree();
            Result[] root = new Result[1];
            Thread t = Thread.startVirtualThread(() -> root[0] = virtualChild(0, p.size(), p.branch()));
            t.join();
            if (root[0] == null) throw new Work.Failure("skynet's root task failed (see stderr)");
            return Work.ready(root[0].json());
        };
    }
}
