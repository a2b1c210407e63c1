package concbench.helidon;

import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * http-aggregate (seed 003): GET /user/{id} -> the user as JSON after base, then detail and extra
 * concurrently. Helidon runs the handler on the connection's virtual thread, which makes the base
 * call itself, then forks detail and extra onto new virtual threads and joins both: blocking code
 * in plain sequence, as Helidon SE 4 is meant to be written.
 */
final class Aggregate implements Handler {
    private final ServerArgs args;
    private final Downstream downstream;
    /** detail and extra: one new virtual thread each (no pool to size; closed with the process). */
    private final ExecutorService forks = Executors.newVirtualThreadPerTaskExecutor();

    Aggregate(ServerArgs args, Downstream downstream) {
        this.args = args;
        this.downstream = downstream;
    }

    @Override
    public void handle(ServerRequest req, ServerResponse res) throws Exception {
        long id = UserIds.parse(req.path().pathParameters().get("id"));
        if (id < 0) {
            res.status(Status.NOT_FOUND_404).send();
            return;
        }
        try {
            downstream.call(Waits.Kind.BASE, args.baseMs());
            Future<?> detail = forks.submit(() -> call(Waits.Kind.DETAIL, args.detailMs()));
            Future<?> extra = forks.submit(() -> call(Waits.Kind.EXTRA, args.extraMs()));
            detail.get();
            extra.get();
        } catch (Downstream.BadGateway | ExecutionException e) {
            res.status(Status.BAD_GATEWAY_502).send();
            return;
        }
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.send(User.of(id)); // Jackson media support; Helidon sends it with Content-Length
    }

    private Void call(Waits.Kind kind, long ms) throws InterruptedException {
        downstream.call(kind, ms);
        return null;
    }
}
