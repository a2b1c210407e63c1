package concbench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ring with CompletableFuture hand-offs (java-completable): a task holds no thread while it waits.
 * Its wait is an incomplete CompletableFuture (its inbox) with the task's step attached by
 * thenAcceptAsync(step, pool); its predecessor hands it the token by completing that future, which
 * schedules the step on the pool. A step counts the token, re-arms the task with a fresh inbox (a
 * CompletableFuture completes once) and completes the next task's inbox with the count minus one:
 * "a promise resolved in turn", as asyncio's Future and Node's promise rings. The Async form is
 * needed: a synchronous thenAccept would run the next step inside complete(), one stack frame
 * deeper per pass.
 *
 * <p>prepare() arms every task; run() submits task 1 of every ring to the pool (runAsync) and waits
 * on allOf(the rings' final-holder futures); the Outcome completes every inbox with STOP (the step
 * returns without re-arming) and joins the steps, after the clock has stopped.
 */
final class CompletableRing implements Work.Iteration {
    private static final int STOP = -1;

    private final ForkJoinPool pool;
    private final Ring.Params p;

    // one iteration's state, built by prepare()
    private Task[] tasks;
    private int[] holders;
    private Ring.Samples samples;
    private CompletableFuture<?>[] finished; // per ring, completed by its final holder
    /** Tasks armed and not yet stopped, kept by the tasks themselves (a CompletableFuture chain has
     * no runtime count): +1 as a task is first armed, -1 as its step takes the stop. */
    private final AtomicInteger live = new AtomicInteger();
    private int aliveAtBarrier;

    CompletableRing(ForkJoinPool pool, Ring.Params p) {
        this.pool = pool;
        this.p = p;
    }

    private final class Task {
        final int ring, id;
        final Ring.Samples samples; // ring 1's, null for the others
        Task next;
        CompletableFuture<Integer> inbox; // written by this task's own step, read by its predecessor's
        CompletableFuture<Void> step;
        long received;

        Task(int ring, int id) {
            this.ring = ring;
            this.id = id;
            this.samples = CompletableRing.this.samples.forRing(ring);
            live.incrementAndGet();
        }

        void arm() {
            inbox = new CompletableFuture<>();
            step = inbox.thenAcceptAsync(this::receive, pool);
        }

        /** Task 1 holds the token first: passes the count on without receiving it. */
        void begin() {
            if (samples != null) samples.record(p.passes());
            next.inbox.complete(p.passes() - 1);
        }

        void receive(int c) {
            if (c == STOP) {
                live.decrementAndGet();
                return;
            }
            received++;
            if (samples != null) samples.record(c);
            arm(); // before the token can come back
            if (c == 0) {
                holders[ring] = id;
                finished[ring].complete(null);
            } else {
                next.inbox.complete(c - 1);
            }
        }
    }

    @Override
    public void prepare(int index) {
        int w = p.size();
        int before = live.get();
        samples = new Ring.Samples(p.passes(), p.sampleEvery());
        holders = new int[p.rings()];
        finished = new CompletableFuture<?>[p.rings()];
        tasks = new Task[p.tasks()];
        for (int slot = 0; slot < tasks.length; slot++) tasks[slot] = new Task(slot / w, slot % w + 1);
        for (int slot = 0; slot < tasks.length; slot++) {
            Task t = tasks[slot];
            t.next = tasks[t.ring * w + t.id % w]; // task size passes to task 1
            t.arm();
        }
        for (int r = 0; r < finished.length; r++) finished[r] = new CompletableFuture<Void>();
        aliveAtBarrier = live.get() - before; // every task armed, its inbox waiting
    }

    @Override
    public Work.Outcome run(int index, long start, Json out) {
        for (int r = 0; r < p.rings(); r++) CompletableFuture.runAsync(tasks[r * p.size()]::begin, pool);
        CompletableFuture.allOf(finished).join(); // blocks main, never a pool thread
        return () -> {
            for (Task t : tasks) t.inbox.complete(STOP);
            long[] received = new long[tasks.length];
            for (int i = 0; i < tasks.length; i++) {
                tasks[i].step.join();
                received[i] = tasks[i].received;
            }
            return Ring.result(received, holders, samples, aliveAtBarrier);
        };
    }
}
