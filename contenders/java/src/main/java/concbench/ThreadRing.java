package concbench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * ring on threads (java-platform: platform threads, java-virtual: virtual threads; the same code with
 * another Thread.Builder): one thread per task, each blocked in its own inbox until its predecessor
 * hands it the token. The inbox is a {@link SynchronousQueue}, java.util.concurrent's rendezvous
 * hand-off (put waits for a taker, take for a putter: Go's unbuffered channel); the count travels
 * as a boxed Integer. -Dconcbench.ring.handoff=park swaps in a volatile int slot with
 * LockSupport.park / unpark, the primitive SynchronousQueue is built on, for comparisons only.
 *
 * <p>prepare() starts every task and waits until each has reached its inbox (task 1 of each ring
 * waits on the start latch instead); run() opens that latch (the clock is running) and waits until
 * every ring's final holder has counted down; the Outcome interrupts and joins the tasks (a blocked
 * take() / park returns on interrupt) after the clock has stopped, then sums their counts.
 */
final class ThreadRing implements Work.Iteration {
    /** A task's inbox: receive() blocks until the predecessor's send(). */
    interface Inbox {
        void send(int count) throws InterruptedException;

        int receive() throws InterruptedException;
    }

    private final Thread.Builder builder;
    private final String kind;
    private final Ring.Params p;
    private final boolean park = "park".equals(System.getProperty("concbench.ring.handoff"));

    // one iteration's state, built by prepare(); read by main after join() (happens-before)
    private Thread[] threads;
    private long[] received;
    private int[] holders;
    private Ring.Samples samples;
    private CountDownLatch go, finished;
    /** The tasks alive now, kept by the tasks (+1 as one starts, -1 as it ends): the JVM counts
     * platform threads (ThreadMXBean), not virtual ones, so the same counter serves both kinds. */
    private final AtomicInteger live = new AtomicInteger();
    private int aliveAtBarrier;

    ThreadRing(Thread.Builder builder, String kind, Ring.Params p) {
        this.builder = builder;
        this.kind = kind;
        this.p = p;
    }

    @Override
    public void prepare(int index) throws InterruptedException {
        int n = p.tasks(), w = p.size();
        threads = new Thread[n];
        received = new long[n];
        holders = new int[p.rings()];
        samples = new Ring.Samples(p.passes(), p.sampleEvery());
        go = new CountDownLatch(1);
        finished = new CountDownLatch(p.rings());
        CountDownLatch ready = new CountDownLatch(n);
        Inbox[] inboxes = new Inbox[n];
        for (int i = 0; i < n; i++) inboxes[i] = park ? new ParkInbox() : new QueueInbox();
        for (int i = 0; i < n; i++) {
            int slot = i, ring = slot / w, id = slot % w + 1;
            Inbox in = inboxes[slot], out = inboxes[ring * w + id % w]; // task size passes to task 1
            Runnable task = () -> task(ring, id, slot, in, out, ready);
            threads[slot] = builder.unstarted(task);
            if (in instanceof ParkInbox pi) pi.owner = threads[slot];
        }
        int before = live.get();
        for (int slot = 0; slot < n; slot++) Blocking.start(threads[slot], kind, slot, n);
        ready.await();
        aliveAtBarrier = live.get() - before; // every task, at its inbox (task 1 at the latch)
    }

    @Override
    public Work.Outcome run(int index, long start, Json out) throws InterruptedException {
        go.countDown(); // task 1 of every ring starts passing
        finished.await();
        return () -> {
            for (Thread t : threads) t.interrupt(); // every task is blocked in (or on its way to) receive()
            try {
                for (Thread t : threads) t.join();
            } catch (InterruptedException e) {
                throw new Work.Failure("interrupted while stopping the ring's tasks");
            }
            return Ring.result(received, holders, samples, aliveAtBarrier);
        };
    }

    private void task(int ring, int id, int slot, Inbox in, Inbox out, CountDownLatch ready) {
        Ring.Samples s = samples.forRing(ring); // ring 1 records clock readings
        long got = 0;
        live.incrementAndGet();
        try {
            ready.countDown();
            if (id == 1) {
                go.await();
                if (s != null) s.record(p.passes());
                out.send(p.passes() - 1);
            }
            while (true) {
                int c = in.receive();
                got++;
                if (s != null) s.record(c);
                if (c == 0) {
                    holders[ring] = id;
                    finished.countDown();
                } else {
                    out.send(c - 1);
                }
            }
        } catch (InterruptedException stop) {
            // the ring is stopped after the clock (run's Outcome)
        } finally {
            received[slot] = got;
            live.decrementAndGet();
        }
    }

    /** SynchronousQueue: put returns once the next task has taken the count. */
    private static final class QueueInbox implements Inbox {
        private final SynchronousQueue<Integer> queue = new SynchronousQueue<>();

        @Override public void send(int count) throws InterruptedException { queue.put(count); }

        @Override public int receive() throws InterruptedException { return queue.take(); }
    }

    /** A volatile slot and LockSupport.park / unpark of its owner (comparison only, see the class comment). */
    private static final class ParkInbox implements Inbox {
        private static final int EMPTY = -1;
        private volatile int slot = EMPTY;
        private Thread owner; // set before any thread starts

        @Override
        public void send(int count) {
            slot = count; // the ring has one token, so the slot is empty here
            LockSupport.unpark(owner);
        }

        @Override
        public int receive() throws InterruptedException {
            int c;
            while ((c = slot) == EMPTY) {
                LockSupport.park(this);
                if (Thread.interrupted()) throw new InterruptedException();
            }
            slot = EMPTY;
            return c;
        }
    }
}
