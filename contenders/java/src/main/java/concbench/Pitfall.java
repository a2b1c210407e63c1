package concbench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Seed 001's pitfalls, for sleep-tasks only, chosen by -Dconcbench.pitfall (set by the variant
 * contenders java-*-synchronized, java-virtual-native-frame, java-*-threadlocal; unset: none):
 * <ul>
 * <li>{@code synchronized}: each task sleeps while holding its own monitor (uncontended: one lock
 *     object per task). JDK 21-23 pinned the virtual thread to its carrier for the whole sleep;
 *     JDK 24+ (JEP 491) unmounts it.</li>
 * <li>{@code native-frame}: the sleep runs inside an upcall from native code (FFM: libc qsort of two
 *     ints with a Java comparator that sleeps once). A native frame on the stack still pins on
 *     JDK 25, so each such task holds a carrier for its whole sleep.</li>
 * <li>{@code threadlocal}: each task takes its thread's cache, a ThreadLocal byte[] of
 *     concbench.threadLocalKb KiB (default 64, every page touched), as per-thread caches of buffers
 *     or formatters do: one per pool thread on a pool, one per task with virtual threads.</li>
 * </ul>
 */
final class Pitfall {
    private Pitfall() {}

    enum Kind { NONE, SYNCHRONIZED, NATIVE_FRAME, THREADLOCAL }

    static final Kind KIND = parse(System.getProperty("concbench.pitfall", "none"));
    static final int THREAD_LOCAL_KB = Integer.getInteger("concbench.threadLocalKb", 64);

    private static final ThreadLocal<byte[]> CACHE = ThreadLocal.withInitial(() -> {
        byte[] b = new byte[THREAD_LOCAL_KB * 1024];
        for (int i = 0; i < b.length; i += 4096) b[i] = 1; // committed, as a used cache is
        return b;
    });

    private static Kind parse(String name) {
        return switch (name) {
            case "none" -> Kind.NONE;
            case "synchronized" -> Kind.SYNCHRONIZED;
            case "native-frame" -> Kind.NATIVE_FRAME;
            case "threadlocal" -> Kind.THREADLOCAL;
            default -> throw new IllegalArgumentException(
                    "-Dconcbench.pitfall=" + name + ": expected none, synchronized, native-frame or threadlocal");
        };
    }

    /** The task's own monitor for the synchronized variant; null otherwise, so the default
     *  contenders allocate nothing more per task than before the variants existed. */
    static Object lockForTask() {
        return KIND == Kind.SYNCHRONIZED ? new Object() : null;
    }

    /** The task's sleep, with the pitfall around it. {@code lock} is the task's own object (it escapes
     *  with the task, so the JIT cannot elide the monitor). */
    static void sleep(long ms, Object lock) {
        switch (KIND) {
            case NONE -> Work.sleep(ms);
            case SYNCHRONIZED -> {
                synchronized (lock) {
                    Work.sleep(ms);
                }
            }
            case NATIVE_FRAME -> NativeFrame.sleepInUpcall(ms);
            case THREADLOCAL -> {
                byte[] cache = CACHE.get();
                cache[0]++;
                Work.sleep(ms);
            }
        }
    }

    /** qsort from libc with a Java comparator: the comparator's frames sit above a native frame. */
    private static final class NativeFrame {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle QSORT = LINKER.downcallHandle(
                LINKER.defaultLookup().find("qsort").orElseThrow(),
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
        /** Every task sleeps the same sleep-ms; a field, not a ThreadLocal, so this variant
         *  does not also carry a per-thread object (that is the threadlocal variant's pitfall). */
        private static volatile long sleepMs;
        private static final MemorySegment COMPARATOR;

        static {
            try {
                MethodHandle compare = MethodHandles.lookup().findStatic(NativeFrame.class, "compare",
                        MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
                var intPtr = ADDRESS.withTargetLayout(JAVA_INT);
                COMPARATOR = LINKER.upcallStub(compare, FunctionDescriptor.of(JAVA_INT, intPtr, intPtr),
                        Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Sorts {2, 1}: the one comparison that sees them out of order sleeps. */
        static void sleepInUpcall(long ms) {
            sleepMs = ms;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment pair = arena.allocateFrom(JAVA_INT, 2, 1);
                QSORT.invokeExact(pair, 2L, 4L, COMPARATOR);
                if (pair.getAtIndex(JAVA_INT, 0) != 1) throw new Work.Failure("qsort did not sort");
            } catch (Work.Failure e) {
                throw e;
            } catch (Throwable e) {
                throw new Work.Failure("qsort upcall failed: " + e);
            }
        }

        private static int compare(MemorySegment a, MemorySegment b) {
            int x = a.get(JAVA_INT, 0), y = b.get(JAVA_INT, 0);
            if (x > y) Work.sleep(sleepMs);
            return Integer.compare(x, y);
        }
    }
}
