package concbench;

import java.util.Set;

/** One concurrency style: which workloads it implements and how to set one up. */
interface Style {
    Set<String> workloads();

    /** Batch workloads: validates the parameters (Params.BadInput on bad ones) and creates long-lived objects (executors). */
    Work.Iteration setUp(String workload, Params p) throws Params.BadInput;

    /** Server workloads (http-*): validates the parameters and builds the server, not yet bound. */
    default ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        throw new Params.BadInput("unknown workload " + workload);
    }

    default void close() {}
}
