package concbench;

import java.util.Map;
import java.util.Set;

/** java-thread-per-conn: http-hello on {@link ThreadPerConnServer} (one platform thread per connection). */
public final class ThreadPerConnStyle implements Style {
    @Override public Set<String> workloads() { return Set.of("http-hello"); }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        throw new Params.BadInput("unknown workload " + workload);
    }

    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        if (!workload.equals("http-hello")) throw new Params.BadInput("unknown workload " + workload);
        var c = HttpHello.Config.of(p); // pool-size validated, ignored: a thread per connection
        return new ThreadPerConnServer(c.bind(), c.port(), Thread.ofPlatform().name("conn-", 0), HttpHello.route(),
                Map.of("executor", "one new platform thread per connection (Thread.ofPlatform().start)"));
    }
}
