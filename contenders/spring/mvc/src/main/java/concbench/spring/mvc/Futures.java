package concbench.spring.mvc;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** future.get(), rethrowing the task's own unchecked exception (a 502 stays a 502). */
final class Futures {
    private Futures() {
    }

    static <T> T get(Future<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }
}
